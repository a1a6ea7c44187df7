/**
 * A follower's P/L from the copier's positions (docs/trades-copier.md "Status"): realised (every
 * deal of the copied positions: profit, swap and commission, the opening deal's commission
 * included), floating (profit and swap of the copies open now) and the largest drawdown of that
 * P/L: its running sum over the deals in time order, then the floating P/L now, and the deepest fall
 * from a peak (starting at zero) to a later point. Money in minor units of the follower's currency.
 */
import type { Money } from "../trading/index.ts";

export interface CopiesProfit {
  realized: Money;
  floating: Money;
  total: Money;
  /** The deepest fall of the P/L curve from a peak, ≥ 0. */
  maxDrawdown: Money;
}

/** `deals`: the amounts (profit + swap + commission) of the copied positions' deals, oldest first. */
export function copiesProfitOf(deals: readonly Money[], floating: Money): CopiesProfit {
  let running = 0;
  let peak = 0;
  let maxDrawdown = 0;
  const step = (value: number) => {
    if (value > peak) peak = value;
    else if (peak - value > maxDrawdown) maxDrawdown = peak - value;
  };
  for (const amount of deals) {
    running += amount;
    step(running);
  }
  step(running + floating);
  return { realized: running, floating, total: running + floating, maxDrawdown };
}
