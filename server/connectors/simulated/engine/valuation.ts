/**
 * Profit, margin and account figures from the feed's current prices, through the pure maths of
 * core/trading/margin.ts. Profit is converted from the symbol's profit currency to the account
 * currency with the server's own quotes, as MetaTrader does.
 */
import {
  accountFigures,
  MONEY_DIGITS,
  volumeToLots,
  marginRequired,
  positionProfit,
  type Account,
  type AccountFigures,
  type PositionRecord,
  type TradeSymbol,
} from "../../../../core/trading/index.ts";
import type { EngineContext } from "./context.ts";
import type { SimAccount } from "./state.ts";

export function rateToAccount(ctx: EngineContext, from: string, accountCurrency: string): number {
  const rate = ctx.feed.rate(from, accountCurrency);
  if (rate === undefined) throw new Error(`No quote converts ${from} to ${accountCurrency}`);
  return rate;
}

export function quoteOf(ctx: EngineContext, symbol: string) {
  const quote = ctx.feed.quote(symbol);
  if (!quote) throw new Error(`No quote for ${symbol}`);
  return quote;
}

/** The price a position would close at now: bid for a buy, ask for a sell. */
export function closingPrice(ctx: EngineContext, position: Pick<PositionRecord, "symbol" | "side">): number {
  const quote = quoteOf(ctx, position.symbol);
  return position.side === "buy" ? quote.bid : quote.ask;
}

/** Brings a position's current price and floating profit up to date. */
export function revalue(ctx: EngineContext, position: PositionRecord, account: SimAccount): PositionRecord {
  const symbol = ctx.state.symbol(position.symbol);
  position.currentPrice = closingPrice(ctx, position);
  position.profit = profitAt(ctx, position, position.volume, position.currentPrice, symbol, account);
  return position;
}

export function profitAt(
  ctx: EngineContext,
  position: Pick<PositionRecord, "side" | "openPrice">,
  volume: number,
  closePrice: number,
  symbol: TradeSymbol,
  account: SimAccount,
): number {
  return positionProfit({
    side: position.side,
    volume,
    openPrice: position.openPrice,
    closePrice,
    contractSize: symbol.contractSize,
    rateToAccount: rateToAccount(ctx, symbol.profitCurrency, account.currency),
  });
}

export function marginFor(ctx: EngineContext, symbol: TradeSymbol, volume: number, price: number, account: SimAccount): number {
  return marginRequired({
    volume,
    price,
    contractSize: symbol.contractSize,
    rateToAccount: rateToAccount(ctx, symbol.profitCurrency, account.currency),
    leverage: account.leverage,
    maxLeverage: symbol.maxLeverage,
  });
}

/**
 * What a position of `volume` at `price` is worth in the account currency, in minor units, as a
 * plain float (it is compared with the account bound, never booked). The account's floating
 * profit can only be a fraction of its positions' worth (times the prices' change), so keeping
 * that worth within the bound keeps every figure far inside the exact-integer range.
 */
export function notionalOf(ctx: EngineContext, symbol: TradeSymbol, volume: number, price: number, account: SimAccount): number {
  const rate = rateToAccount(ctx, symbol.profitCurrency, account.currency);
  return volumeToLots(volume) * symbol.contractSize * price * rate * 10 ** MONEY_DIGITS;
}

/** The worth of the account's open positions at their open prices (see notionalOf). */
export function exposureOf(ctx: EngineContext, account: SimAccount): number {
  let total = 0;
  for (const id of account.positions) {
    const position = ctx.state.position(id);
    total += notionalOf(ctx, ctx.state.symbol(position.symbol), position.volume, position.openPrice, account);
  }
  return total;
}

export function figuresOf(ctx: EngineContext, account: SimAccount): AccountFigures {
  const exposures = [...account.positions].map((id) => {
    const position = revalue(ctx, ctx.state.position(id), account);
    const symbol = ctx.state.symbol(position.symbol);
    return { profit: position.profit, swap: position.swap, margin: marginFor(ctx, symbol, position.volume, position.currentPrice, account) };
  });
  return accountFigures(account.balance, account.credit, exposures, ctx.state.group(account.group));
}

export function snapshotAccount(ctx: EngineContext, account: SimAccount): Account {
  return {
    login: account.login,
    group: account.group,
    name: account.name,
    email: account.email,
    phone: account.phone,
    country: account.country,
    city: account.city,
    address: account.address,
    comment: account.comment,
    registration: account.registration,
    lastAccess: account.lastAccess,
    leverage: account.leverage,
    currency: account.currency,
    ...figuresOf(ctx, account),
    enabled: account.enabled,
    readOnly: account.readOnly,
    changePasswordAllowed: account.changePasswordAllowed,
    otpEnabled: account.otpEnabled,
    agentAccount: account.agentAccount,
    leadSource: account.leadSource,
    native: account.native,
  };
}

/** A copy of the position, valued now, for answers and events. */
export function snapshotPosition(ctx: EngineContext, position: PositionRecord): PositionRecord {
  return { ...revalue(ctx, position, ctx.state.account(position.login)) };
}
