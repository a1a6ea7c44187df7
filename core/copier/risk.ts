/**
 * The follower's risk stops (docs/trades-copier.md "Risk stops and close-only"): an equity floor
 * and a daily loss limit, in the follower's account currency. A tripped stop refuses new positions
 * and pending orders; the engine then suspends the follower (persisted until a member resumes it,
 * or, for the daily loss limit, until the organization's next day), and with `closeAndSuspend`
 * closes its copied positions too. Closes and stop changes of positions already copied are still
 * copied. Pure: the engine reads the figures, these rules decide.
 */
import type { FollowerSettings } from "../schemas/copier.ts";
import type { Deal } from "../trading/deal.ts";
import type { Money } from "../trading/money.ts";
import type { Timestamp } from "../trading/platform.ts";
import type { Position } from "../trading/position.ts";
import { stableId } from "./requestId.ts";
import type { RiskStopTrip } from "./types.ts";

/** Amounts in the settings are major units (100.5 = 100.50); money in the model is minor units. */
const minor = (amount: number): Money => Math.round(amount * 100);

export function riskStopOf(
  settings: Pick<FollowerSettings, "equityFloor" | "dailyLossLimit">,
  follower: { equity: Money; dailyProfit: Money },
): RiskStopTrip | null {
  if (settings.equityFloor && follower.equity < minor(settings.equityFloor.amount)) {
    return { stop: "equityFloor", action: settings.equityFloor.action };
  }
  if (settings.dailyLossLimit && -follower.dailyProfit >= minor(settings.dailyLossLimit.amount)) {
    return { stop: "dailyLossLimit", action: settings.dailyLossLimit.action };
  }
  return null;
}

/** Today's P/L of a follower's copies, in minor units of its account currency (negative is a loss). */
export interface DailyProfit {
  /** profit + swap + commission of the copies' closing deals since the day's start. */
  realized: Money;
  /** profit + swap of the copies still open, now. */
  floating: Money;
  total: Money;
}

/**
 * Today's P/L of the follower's copied positions: realised (the closing deals, `entry` out, of the
 * copies — by position id — whose time is at or after the day's start: profit + swap + commission)
 * plus floating (profit + swap of the copies open now, whenever they opened). Positions the
 * follower opened itself, and other links' copies, are not counted.
 */
export function dailyProfitOf(input: {
  deals: readonly Deal[];
  open: readonly Position[];
  /** The follower position ids that are this link's copies (every ticket of an MT4 chain). */
  copies: ReadonlySet<string>;
  dayStart: Timestamp;
}): DailyProfit {
  let realized = 0;
  for (const d of input.deals) {
    if (d.entry !== "out" || d.positionId === null || !input.copies.has(d.positionId) || d.time < input.dayStart) continue;
    realized += d.profit + d.swap + d.commission;
  }
  let floating = 0;
  for (const p of input.open) if (input.copies.has(p.id)) floating += p.profit + p.swap;
  return { realized, floating, total: realized + floating };
}

/** A follower suspended by a risk stop (persisted beside its settings). */
export interface Suspension extends RiskStopTrip {
  /** When the stop tripped (ms). Part of the request ids of its closes. */
  at: Timestamp;
  /** When it lifts by itself (the daily loss limit: the organization's next day); null: only a member resumes it. */
  until: Timestamp | null;
}

/** The suspension in force at `now`, or null (none, or a daily one whose day is over). */
export function suspensionAt(suspension: Suspension | null, now: Timestamp): Suspension | null {
  if (!suspension) return null;
  return suspension.until !== null && suspension.until <= now ? null : suspension;
}

/** When a stop tripped during the day [dayStart, nextDayStart) lifts by itself: the daily limit at the next day, the floor never. */
export function suspensionUntil(stop: RiskStopTrip["stop"], nextDayStart: Timestamp): Timestamp | null {
  return stop === "dailyLossLimit" ? nextDayStart : null;
}

/**
 * The request id of closing (or cancelling) one copy because a stop tripped with
 * `closeAndSuspend`: from the link, the follower, the source position or order and the
 * suspension's time, so a retry or another node closes nothing twice, and a later suspension
 * (after a resume) gets ids of its own.
 */
export function riskCloseRequestId(linkId: string, follower: string, sourceId: string, suspendedAt: Timestamp): string {
  return stableId(`copier|${linkId}|${follower}|${sourceId}|riskStop:${suspendedAt}`);
}

/** The words of a suspension, for the status and the links screen. */
export function suspensionText(s: Pick<Suspension, "stop" | "action">): string {
  const stop = s.stop === "equityFloor" ? "The follower's equity fell below its floor" : "The follower reached its daily loss limit";
  return s.action === "closeAndSuspend" ? `${stop}: its copies were closed and it is suspended` : `${stop}: it is suspended`;
}
