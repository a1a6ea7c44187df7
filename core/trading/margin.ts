import type { AccountFigures, MarginState } from "./account.ts";
import type { Group } from "./group.ts";
import { roundToMinor, type Money } from "./money.ts";
import type { Side } from "./position.ts";
import { volumeToLots, type Volume } from "./volume.ts";

/**
 * Profit and margin from prices. Each position's profit is rounded once into minor units, as the
 * platforms do, so account figures are exact sums and equity = balance + credit + profit + swap
 * holds to the cent.
 */
export interface ProfitInput {
  side: Side;
  volume: Volume;
  openPrice: number;
  closePrice: number;
  contractSize: number;
  /** Account-currency value of one unit of the symbol's profit currency. */
  rateToAccount: number;
}

export function positionProfit(input: ProfitInput): Money {
  const move = input.side === "buy" ? input.closePrice - input.openPrice : input.openPrice - input.closePrice;
  return roundToMinor(move * volumeToLots(input.volume) * input.contractSize * input.rateToAccount);
}

export interface MarginInput {
  volume: Volume;
  price: number;
  contractSize: number;
  rateToAccount: number;
  leverage: number;
  /** The symbol's cap on leverage, if any. */
  maxLeverage: number | null;
}

/** Notional value in the account currency divided by the effective leverage. */
export function marginRequired(input: MarginInput): Money {
  const leverage = input.maxLeverage ? Math.min(input.leverage, input.maxLeverage) : input.leverage;
  const notional = volumeToLots(input.volume) * input.contractSize * input.price * input.rateToAccount;
  return roundToMinor(notional / leverage);
}

export interface OpenExposure {
  profit: Money;
  swap: Money;
  margin: Money;
}

export function accountFigures(
  balance: Money,
  credit: Money,
  positions: Iterable<OpenExposure>,
  group: Pick<Group, "marginLevelMode" | "marginCall" | "stopOut">,
): AccountFigures {
  let floating = 0;
  let margin = 0;
  for (const p of positions) {
    floating += p.profit + p.swap;
    margin += p.margin;
  }
  const equity = balance + credit + floating;
  const marginLevel = margin > 0 ? Math.round((equity * 10_000) / margin) / 100 : null;
  return {
    balance,
    credit,
    equity,
    margin,
    freeMargin: equity - margin,
    marginLevel,
    marginState: marginStateOf(equity, margin, marginLevel, group),
  };
}

function marginStateOf(
  equity: Money,
  margin: Money,
  marginLevel: number | null,
  group: Pick<Group, "marginLevelMode" | "marginCall" | "stopOut">,
): MarginState {
  if (margin === 0 || marginLevel === null) return "ok";
  const value = group.marginLevelMode === "percent" ? marginLevel : equity;
  if (value <= group.stopOut) return "stopOut";
  if (value <= group.marginCall) return "marginCall";
  return "ok";
}
