/** The checks a trade server makes before it touches a position, with the messages a dealer sees. */
import {
  formatLots,
  MAX_ACCOUNT_MONEY,
  MAX_OPERATION_AMOUNT,
  moneyToDecimal,
  moneyToDisplay,
  pointSize,
  type Money,
  type Side,
  type TradeSymbol,
} from "../../../../core/trading/index.ts";
import { connectorErrors } from "../../errors.ts";
import { marketOpen, type EngineContext } from "./context.ts";
import type { SimAccount } from "./state.ts";

export function formatMoney(amount: Money, currency: string): string {
  return `${moneyToDecimal(amount)} ${currency}`;
}

/**
 * The server's limits on money (core/trading/money.ts), refused the way MT5 refuses them (4005
 * TRADE_MAX_MONEY): one balance operation moves at most MAX_OPERATION_AMOUNT, and no operation
 * may take an account's balance, credit or equity past ±MAX_ACCOUNT_MONEY. Nothing past the bound
 * is ever computed into the books, so every figure stays an exact integer.
 */
export function requireOperationAmount(amount: Money, currency: string): void {
  if (amount > MAX_OPERATION_AMOUNT)
    throw connectorErrors.rejected(
      "maxMoney",
      `The server refuses this amount: one operation may move at most ${moneyToDisplay(MAX_OPERATION_AMOUNT)} ${currency}.`,
    );
}

export type BoundedFigure = "balance" | "credit" | "equity";

/** `value` is what the figure would become; `refused` says what is refused ("this amount", "closing #12" …). */
export function requireWithinAccountBound(figure: BoundedFigure, value: number, currency: string, refused = "this amount"): void {
  if (Math.abs(value) <= MAX_ACCOUNT_MONEY) return;
  const limit = value > 0 ? `may not exceed ${moneyToDisplay(MAX_ACCOUNT_MONEY)}` : `may not go below ${moneyToDisplay(-MAX_ACCOUNT_MONEY)}`;
  throw connectorErrors.rejected("maxMoney", `The server refuses ${refused}: an account's ${figure} ${limit} ${currency}.`);
}

/** Opening needs an enabled account that may trade; a dealer (or the server) may still change and close positions of a read-only one. */
export function requireMayOpen(account: SimAccount): void {
  if (!account.enabled) throw connectorErrors.rejected("accountDisabled", `Account ${account.login} is disabled.`);
  if (account.readOnly) throw connectorErrors.rejected("tradeDisabled", `Trading is disabled for account ${account.login} (read-only).`);
}

export function requireMarketOpen(ctx: EngineContext, symbol: TradeSymbol): void {
  const serverTime = ctx.clock.now() + ctx.timeZoneOffsetMinutes * 60_000;
  if (!marketOpen(ctx, symbol, serverTime)) throw connectorErrors.rejected("marketClosed", `The market for ${symbol.name} is closed now.`);
}

export function requireVolume(symbol: TradeSymbol, volume: number): void {
  const ok = volume >= symbol.volumeMin && volume <= symbol.volumeMax && volume % symbol.volumeStep === 0;
  if (!ok)
    throw connectorErrors.rejected(
      "invalidVolume",
      `${formatLots(volume)} lot is not allowed for ${symbol.name}: from ${formatLots(symbol.volumeMin)} to ${formatLots(symbol.volumeMax)} lots in steps of ${formatLots(symbol.volumeStep)}.`,
    );
}

/**
 * Stops sit on the losing and winning sides of the price the position closes at, at least the
 * symbol's stops level away: below the bid for a buy's stop loss, above it for its take profit.
 */
export function requireStops(symbol: TradeSymbol, side: Side, closePrice: number, sl: number | null | undefined, tp: number | null | undefined): void {
  const gap = symbol.stopsLevel * pointSize(symbol.digits);
  const below = (price: number) => price <= closePrice - gap;
  const above = (price: number) => price >= closePrice + gap;
  const slOk = sl == null || (side === "buy" ? below(sl) : above(sl));
  const tpOk = tp == null || (side === "buy" ? above(tp) : below(tp));
  if (!slOk || !tpOk)
    throw connectorErrors.rejected(
      "invalidStops",
      `Invalid stops for a ${side} of ${symbol.name} at ${closePrice}: the stop loss must be ${side === "buy" ? "below" : "above"} and the take profit ${side === "buy" ? "above" : "below"} the price, at least ${symbol.stopsLevel} points away.`,
    );
}

export function requireDeviation(symbol: TradeSymbol, price: number, expected: number | undefined, maxPoints: number | undefined): void {
  if (expected === undefined || maxPoints === undefined) return;
  const points = Math.round(Math.abs(price - expected) / pointSize(symbol.digits));
  if (points > maxPoints)
    throw connectorErrors.rejected(
      "priceChanged",
      `The price of ${symbol.name} moved to ${price}, ${points} points from ${expected} (at most ${maxPoints} allowed).`,
    );
}
