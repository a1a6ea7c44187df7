/**
 * The MT5 Web API's configuration commands (groups, symbols) over a session's authenticated
 * `call`: every record by index (`total`, then `next?index=`), one by name (`get`), and written
 * with `add`, which replaces the record of that name (docs/connectors.md, "Configuration writes").
 */
import type { Mt5Native } from "../mt5/native.ts";

type Call = (path: string, params?: Record<string, string | number>, body?: unknown) => Promise<unknown>;

export class Mt5ConfigCommands {
  constructor(private readonly call: Call) {}

  /** `total` then `next?index=` for each, as the vendor serves configuration. */
  async indexed<T>(base: "/api/group" | "/api/symbol" | "/api/plugin"): Promise<T[]> {
    const { Total } = (await this.call(`${base}/total`)) as { Total: string | number };
    const items: T[] = [];
    for (let index = 0; index < Number(Total); index++) items.push((await this.call(`${base}/next`, { index })) as T);
    return items;
  }

  async getGroup(name: string) {
    return (await this.call("/api/group/get", { group: name })) as Mt5Native["group"];
  }

  async getSymbol(name: string) {
    return (await this.call("/api/symbol/get", { symbol: name })) as Mt5Native["symbol"];
  }

  async updateGroup(group: Mt5Native["group"]) {
    return (await this.call("/api/group/add", {}, group)) as Mt5Native["group"];
  }

  async updateSymbol(symbol: Mt5Native["symbol"]) {
    return (await this.call("/api/symbol/add", {}, symbol)) as Mt5Native["symbol"];
  }
}
