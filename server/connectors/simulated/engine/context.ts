/** What every part of the engine works with: the books, the prices, the clock and the logs. */
import { isSessionOpen, type Session } from "../../../../core/trading/index.ts";
import type { Clock } from "../../clock.ts";
import type { RecordedTradeEvent } from "../../wire/codec.ts";
import type { EngineFlavour } from "../flavour.ts";
import type { Random } from "../random.ts";
import type { ServerJournal } from "./journal.ts";
import type { PriceFeed } from "./prices.ts";
import type { EngineState } from "./state.ts";
import type { TransactionLog } from "./transactions.ts";

export interface EngineContext {
  state: EngineState;
  flavour: EngineFlavour;
  feed: PriceFeed;
  journal: ServerJournal;
  log: TransactionLog;
  random: Random;
  clock: Clock;
  /** Server time offset, for sessions (which run in server time). */
  timeZoneOffsetMinutes: number;
  /**
   * Whether every market is open now whatever its sessions say (SimulatedServerOptions
   * `marketsAlwaysOpen`: test runs on any day of the week); false by default.
   */
  marketsAlwaysOpen?: () => boolean;
}

/** Whether `symbol` trades at `serverTime` (server-local ms): its sessions, unless every market is held open. */
export function marketOpen(ctx: EngineContext, symbol: { sessions: readonly Session[] }, serverTime: number): boolean {
  return ctx.marketsAlwaysOpen?.() === true || isSessionOpen(symbol.sessions, serverTime);
}

/** Now, at the platform's resolution (whole seconds on MT4). */
export function now(ctx: EngineContext): number {
  const unit = ctx.flavour.timeUnitMs;
  return Math.floor(ctx.clock.now() / unit) * unit;
}

/** Records one transaction. Events are snapshots: later changes to a position must not reach them. */
export function commit(ctx: EngineContext, events: RecordedTradeEvent[]): void {
  ctx.log.append(events.map((e) => structuredClone(e)));
}
