/** The checks a trade server makes before it touches a position, with the messages a dealer sees. */
import {
  formatLots,
  isSessionOpen,
  moneyToDecimal,
  pointSize,
  type Money,
  type Side,
  type TradeSymbol,
} from "../../../../core/trading/index.ts";
import { connectorErrors } from "../../errors.ts";
import type { EngineContext } from "./context.ts";
import type { SimAccount } from "./state.ts";

export function formatMoney(amount: Money, currency: string): string {
  return `${moneyToDecimal(amount)} ${currency}`;
}

/** Opening needs an enabled account that may trade; a dealer (or the server) may still change and close positions of a read-only one. */
export function requireMayOpen(account: SimAccount): void {
  if (!account.enabled) throw connectorErrors.rejected("accountDisabled", `Account ${account.login} is disabled.`);
  if (account.readOnly)
    throw connectorErrors.rejected("tradeDisabled", `Trading is disabled for account ${account.login} (read-only).`);
}

export function requireMarketOpen(ctx: EngineContext, symbol: TradeSymbol): void {
  const serverTime = ctx.clock.now() + ctx.timeZoneOffsetMinutes * 60_000;
  if (!isSessionOpen(symbol.sessions, serverTime))
    throw connectorErrors.rejected("marketClosed", `The market for ${symbol.name} is closed now.`);
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
export function requireStops(
  symbol: TradeSymbol,
  side: Side,
  closePrice: number,
  sl: number | null | undefined,
  tp: number | null | undefined,
): void {
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

export function requireDeviation(
  symbol: TradeSymbol,
  price: number,
  expected: number | undefined,
  maxPoints: number | undefined,
): void {
  if (expected === undefined || maxPoints === undefined) return;
  const points = Math.round(Math.abs(price - expected) / pointSize(symbol.digits));
  if (points > maxPoints)
    throw connectorErrors.rejected(
      "priceChanged",
      `The price of ${symbol.name} moved to ${price}, ${points} points from ${expected} (at most ${maxPoints} allowed).`,
    );
}
