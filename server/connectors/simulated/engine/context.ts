/** What every part of the engine works with: the books, the prices, the clock and the logs. */
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
