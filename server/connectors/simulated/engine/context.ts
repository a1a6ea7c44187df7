/** What every part of the engine works with: the books, the prices, the clock and the logs. */
import { holidayShuts, isSessionOpen, type Session } from "../../../../core/trading/index.ts";
import type { ExecutionProfile } from "../../../../core/dealing/schema.ts";
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
  /** The dealing execution profile in force (./dealing.ts; Toolbox's dealing scheduler sets it); none: plain execution. */
  dealingProfile?: ExecutionProfile | null;
}

/** Whether `symbol` trades at `serverTime` (server-local ms): its sessions and the server's holidays, unless every market is held open. */
export function marketOpen(ctx: EngineContext, symbol: { name: string; path: string; sessions: readonly Session[] }, serverTime: number): boolean {
  if (ctx.marketsAlwaysOpen?.() === true) return true;
  return isSessionOpen(symbol.sessions, serverTime) && !holidayShuts(ctx.state.holidays, symbol, serverTime);
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
