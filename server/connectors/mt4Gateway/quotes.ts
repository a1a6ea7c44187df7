/**
 * Live quotes through the MT4 manager gateway (docs/mt4-gateway.md, "Ticks"): the Manager API
 * pumps them (PUMP_UPDATE_BIDASK), so a quote stream is a pumping connection of its own, opened
 * without CLIENT_FLAGS_HIDETICKS (the session's trade pump hides them), whose `bidask` lines carry
 * the symbols that ticked (the latest of each, as SymbolInfoUpdated gives them). Trade events on
 * it are left to the session's own pump. A stream the gateway or the network ends is opened again
 * after a second while the session lives; a session the gateway forgot (401) ends it.
 */
import type { Client } from "undici";
import type { Clock, TimerHandle } from "../clock.ts";
import type { Mt4Quote } from "../mt4/native.ts";
import { guardedClients, type TlsTarget } from "../transport/client.ts";
import type { PumpLine } from "./format.ts";

/** How long a lost quote pump waits before it is opened again. */
export const MT4_QUOTE_REOPEN_MS = 1_000;

export interface QuotePumpOptions {
  /** `https://host:port` of the gateway, with the session's CA and target policy. */
  url: string;
  tls: TlsTarget;
  token: string;
  clock: Clock;
  /** False once the session has ended: the pump is not opened again. */
  alive: () => boolean;
  symbols: readonly string[] | null;
}

export function pumpTicks(options: QuotePumpOptions, onTicks: (ticks: readonly Mt4Quote[]) => void): () => void {
  const wanted = options.symbols ? new Set(options.symbols) : null;
  let stopped = false;
  let client: Client | null = null;
  let retry: TimerHandle | null = null;

  const again = () => {
    client?.destroy().catch(() => undefined);
    client = null;
    if (stopped || !options.alive()) return;
    retry = options.clock.setTimeout(() => void open(), MT4_QUOTE_REOPEN_MS);
  };

  const onLine = (text: string) => {
    let line: PumpLine;
    try {
      line = JSON.parse(text) as PumpLine;
    } catch {
      return again();
    }
    if (line.type !== "bidask" || stopped) return;
    const ticks = wanted ? line.ticks.filter((t) => wanted.has(t.symbol)) : line.ticks;
    if (ticks.length > 0) onTicks(ticks);
  };

  const open = async () => {
    retry = null;
    if (stopped || !options.alive()) return;
    try {
      const made = (await guardedClients(new URL(options.url), options.tls))();
      client = made;
      if (stopped) return void made.destroy().catch(() => undefined);
      const response = await made.request({ path: "/api/Pumping?flags=0", method: "GET", headers: { authorization: `Bearer ${options.token}` } });
      if (response.statusCode !== 200) {
        await response.body.dump().catch(() => undefined);
        // The gateway no longer knows the session: the session's own pump ends it too.
        if (response.statusCode === 401) return void made.destroy().catch(() => undefined);
        return again();
      }
      const body = response.body;
      body.setEncoding("utf8");
      let pending = "";
      body.on("data", (chunk: string) => {
        pending += chunk;
        for (let end = pending.indexOf("\n"); end >= 0; end = pending.indexOf("\n")) {
          const text = pending.slice(0, end);
          pending = pending.slice(end + 1);
          if (text.trim() !== "") onLine(text);
        }
      });
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        if (client === made) again();
      };
      body.on("end", end);
      body.on("error", end);
      body.on("close", end);
    } catch {
      again();
    }
  };

  void open();
  return () => {
    stopped = true;
    if (retry) options.clock.clearTimeout(retry);
    client?.destroy().catch(() => undefined);
    client = null;
  };
}
