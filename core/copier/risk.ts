/**
 * The follower's risk stops (docs/trades-copier.md "Risk stops"): an equity floor and a daily loss
 * limit, in the follower's account currency. A tripped stop refuses new positions and pending
 * orders; the engine then suspends the follower, and with `closeAndSuspend` closes its copied
 * positions too. Closes and stop changes of positions already copied are still copied.
 */
import type { FollowerSettings } from "../schemas/copier.ts";
import type { Money } from "../trading/money.ts";
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
