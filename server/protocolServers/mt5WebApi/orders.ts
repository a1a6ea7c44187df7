/**
 * One idea: the MT5 Web API's order commands (docs/connectors.md#vendor-mt5): open pending orders
 * (`/api/order/get`, `get_total`, `get_page`, `get_batch`) and the orders that left the book
 * (`/api/history/get`, `get_total`, `get_page`, `get_batch`), as IMTOrder records with their final
 * State and, filled, the position they opened. History periods are unix seconds of server time,
 * both ends included, matched against the time the order left the book. Only pending orders are in
 * this server's order history (a market request's own order is not kept).
 */
import { mt5OrderCodecs } from "../../connectors/mt5/orders.ts";
import { MT5_ORDER_STATE, MT5_RETCODE, type Mt5Native, type Mt5Order } from "../../connectors/mt5/native.ts";
import type { SimulatedServer } from "../../connectors/simulated/server.ts";
import type { FinishedOrder } from "../../connectors/simulated/engine/state.ts";
import { serverTimeCodec } from "../../connectors/wire/convert.ts";
import type { WireSession } from "../../connectors/wire/wire.ts";
import { CommandError, list, login, number, page, text } from "./params.ts";

const STATE = { filled: MT5_ORDER_STATE.filled, cancelled: MT5_ORDER_STATE.canceled, expired: MT5_ORDER_STATE.expired } as const;

export class OrderCommands {
  private readonly time;
  private readonly codecs;

  constructor(private readonly simulated: SimulatedServer) {
    this.time = serverTimeCodec(simulated.timeZoneOffsetMinutes, 1);
    this.codecs = mt5OrderCodecs(this.time);
  }

  /** The answer to an order or history command, or undefined when `path` is neither. */
  async command(path: string, params: Record<string, unknown>, session: WireSession<Mt5Native>): Promise<{ answer: unknown } | undefined> {
    switch (path) {
      case "/api/order/get": {
        const ticket = text(params.ticket);
        const order = (await session.pendingOrders(null)).find((o) => o.Order === ticket);
        if (!order) throw new CommandError(MT5_RETCODE.notFound, `No open order ${ticket}.`);
        return { answer: order };
      }
      case "/api/order/get_total":
        return { answer: { Total: (await session.pendingOrders(login(params.login))).length } };
      case "/api/order/get_page":
        return { answer: page(await session.pendingOrders(login(params.login)), params) };
      case "/api/order/get_batch":
        return { answer: await this.openBatch(params, session) };
      case "/api/history/get": {
        const ticket = text(params.ticket);
        const order = this.history(null, 0, Number.MAX_SAFE_INTEGER).find((o) => o.Order === ticket);
        if (!order) throw new CommandError(MT5_RETCODE.notFound, `No order ${ticket} in the history.`);
        return { answer: order };
      }
      case "/api/history/get_total":
        return { answer: { Total: this.historyOf(params).length } };
      case "/api/history/get_page":
        return { answer: page(this.historyOf(params), params) };
      case "/api/history/get_batch": {
        if (params.ticket !== undefined) {
          const tickets = new Set(list(params.ticket));
          return { answer: this.history(null, 0, Number.MAX_SAFE_INTEGER).filter((o) => tickets.has(o.Order)) };
        }
        return { answer: this.historyOf(params) };
      }
      default:
        return undefined;
    }
  }

  private async openBatch(params: Record<string, unknown>, session: WireSession<Mt5Native>): Promise<Mt5Order[]> {
    if (params.ticket !== undefined) {
      const tickets = new Set(list(params.ticket));
      return (await session.pendingOrders(null)).filter((o) => tickets.has(o.Order));
    }
    if (params.group !== undefined) {
      if (text(params.group) !== "*") throw new CommandError(MT5_RETCODE.params, "Only the mask * is served for orders by group.");
      return session.pendingOrders(null);
    }
    const orders: Mt5Order[] = [];
    for (const one of list(params.login)) orders.push(...(await session.pendingOrders(login(one))));
    return orders;
  }

  /** `login=` or `group=*`, with `from` and `to` (required, as at the vendor). */
  private historyOf(params: Record<string, unknown>): Mt5Order[] {
    const from = this.time.decode(number(params.from) * 1000);
    const to = this.time.decode(number(params.to) * 1000 + 999);
    if (params.group !== undefined) {
      if (text(params.group) !== "*") throw new CommandError(MT5_RETCODE.params, "Only the mask * is served for history orders by group.");
      return this.history(null, from, to);
    }
    const logins = list(params.login);
    if (logins.length === 0) throw new CommandError(MT5_RETCODE.params, "A login or a group is required.");
    return logins.flatMap((one) => this.history(login(one), from, to));
  }

  private history(who: string | null, from: number, to: number): Mt5Order[] {
    let finished: FinishedOrder[];
    try {
      finished = this.simulated.engine.orderHistory(who, from, to);
    } catch {
      throw new CommandError(MT5_RETCODE.notFound, `No account ${who}.`);
    }
    return finished
      .sort((a, b) => a.time - b.time || Number(a.order.id) - Number(b.order.id))
      .map((f) => this.codecs.encodeOrder(f.order, STATE[f.state], f.time, f.positionId));
  }
}
