/**
 * Live quotes over the MT5 Web API (docs/quotes-monitor.md, "How each vendor's quotes arrive"):
 * the Web API pushes nothing, so the session polls `/api/tick/last` for the symbols (100 a
 * request, as the session's `getQuotes` reads them) every `intervalMs`, and hands on only the
 * ticks that changed since the last poll (a newer `Datetime_msc`, or another bid or ask). What
 * it gives is conflated by nature: the latest tick of each symbol at each poll. A symbol whose
 * feed stopped keeps the same last tick, so nothing more of it is handed on. One poll at a time;
 * a refused poll (e.g. retcode 12, too frequent) is skipped, a lost session ends the polling.
 */
import type { Clock, TimerHandle } from "../clock.ts";
import type { Mt5Tick } from "../mt5/native.ts";
import { LinkError } from "../wire/wire.ts";

/** Twice a second: a stale feed is seen within the monitor's second, 2,000 symbols are 20 requests a poll. */
export const MT5_QUOTE_POLL_MS = 500;

/** Symbols named in one `/api/tick/last` request. */
const TICKS_PER_REQUEST = 100;

/** The last tick of each symbol named, `TICKS_PER_REQUEST` symbols a request (`call` gets them comma-separated). */
export async function readLastTicks(call: (symbols: string) => Promise<Mt5Tick[]>, names: readonly string[]): Promise<Mt5Tick[]> {
  const ticks: Mt5Tick[] = [];
  for (let i = 0; i < names.length; i += TICKS_PER_REQUEST) ticks.push(...(await call(names.slice(i, i + TICKS_PER_REQUEST).join(","))));
  return ticks;
}

export interface TickSource {
  /** `/api/tick/last` for these symbols, or for all of the server's. */
  getQuotes(symbols: readonly string[] | null): Promise<Mt5Tick[]>;
}

export function pollLastTicks(
  source: TickSource,
  clock: Clock,
  onTicks: (ticks: readonly Mt5Tick[]) => void,
  options: { symbols: readonly string[] | null; intervalMs?: number },
): () => void {
  const intervalMs = options.intervalMs ?? MT5_QUOTE_POLL_MS;
  const last = new Map<string, Mt5Tick>();
  let stopped = false;
  let timer: TimerHandle | null = null;

  const changed = (tick: Mt5Tick) => {
    const before = last.get(tick.Symbol);
    return !before || before.Datetime_msc !== tick.Datetime_msc || before.Bid !== tick.Bid || before.Ask !== tick.Ask;
  };

  const poll = async () => {
    timer = null;
    if (stopped) return;
    try {
      const fresh = (await source.getQuotes(options.symbols)).filter(changed);
      if (stopped) return;
      for (const tick of fresh) last.set(tick.Symbol, tick);
      if (fresh.length > 0) onTicks(fresh);
    } catch (error) {
      // The session is gone: the connector attaches to the next one.
      if (error instanceof LinkError) stopped = true;
    }
    if (!stopped) timer = clock.setTimeout(() => void poll(), intervalMs);
  };

  void poll();
  return () => {
    stopped = true;
    if (timer) clock.clearTimeout(timer);
    timer = null;
  };
}
