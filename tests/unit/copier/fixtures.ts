/** Symbols, settings, positions and contexts for the copy rules' tests, written out by hand. */
import { FollowerSettingsSchema, type FollowerSettings, type FollowerSettingsInput } from "../../../core/schemas/copier.ts";
import type { FollowerContext, PreviewContext } from "../../../core/copier/index.ts";
import type { PendingOrder, Position, TradeSymbol } from "../../../core/trading/index.ts";

export const FOLLOWER_PLATFORM = "11111111-1111-4111-8111-111111111111";

export function symbol(name: string, patch: Partial<TradeSymbol> = {}): TradeSymbol {
  return {
    name,
    description: name,
    class: "forex",
    path: "Forex",
    digits: 5,
    contractSize: 100_000,
    baseCurrency: name.slice(0, 3),
    profitCurrency: name.slice(3, 6) || "USD",
    executionMode: "market",
    tradeMode: "full",
    spread: 10,
    spreadBalance: 0,
    stopsLevel: 0,
    freezeLevel: 0,
    swapLong: 0,
    swapShort: 0,
    volumeMin: 100,
    volumeMax: 1_000_000,
    volumeStep: 100,
    maxLeverage: null,
    marginInitial: 0,
    marginMaintenance: 0,
    marginHedged: 0,
    sessions: [],
    ...patch,
  };
}

export function settings(patch: Omit<Partial<FollowerSettingsInput>, "account"> = {}): FollowerSettings {
  return FollowerSettingsSchema.parse({ account: { platformId: FOLLOWER_PLATFORM, login: "2001" }, ...patch });
}

export function position(patch: Partial<Position> = {}): Position {
  return {
    id: "5001",
    login: "1001",
    symbol: "EURUSD",
    side: "buy",
    volume: 1000,
    openTime: 1_000_000,
    openPrice: 1.10012,
    currentPrice: 1.1,
    sl: null,
    tp: null,
    profit: 0,
    swap: 0,
    comment: "",
    reason: "client",
    previousId: null,
    native: { platform: "MT5", position: 5001 },
    ...patch,
  };
}

export function order(patch: Partial<PendingOrder> = {}): PendingOrder {
  return {
    id: "7001",
    login: "1001",
    symbol: "EURUSD",
    type: "buyLimit",
    volume: 1000,
    price: 1.095,
    sl: null,
    tp: null,
    expiration: null,
    placedTime: 1_000_000,
    comment: "",
    reason: "client",
    native: { platform: "MT5", order: 7001 },
    ...patch,
  };
}

export function context(patch: Partial<FollowerContext> = {}, symbols: TradeSymbol[] = [symbol("EURUSD")]): FollowerContext {
  return {
    linkId: "22222222-2222-4222-8222-222222222222",
    linkEnabled: true,
    followerSymbols: new Map(symbols.map((s) => [s.name, s])),
    sourceSymbol: symbol("EURUSD"),
    follower: { balance: 1_000_000, equity: 1_000_000 },
    source: { balance: 1_000_000, equity: 1_000_000 },
    price: null,
    profitRate: 1,
    now: 1_000_000,
    copied: null,
    copiedOrder: null,
    dailyProfit: 0,
    ...patch,
  };
}

export function previewContext(patch: Partial<FollowerContext> = {}, symbols: TradeSymbol[] = [symbol("EURUSD")], rate = 1): PreviewContext {
  const { sourceSymbol: _s, profitRate: _r, copied: _c, copiedOrder: _o, now: _n, price: _p, dailyProfit: _d, ...base } = context(patch, symbols);
  return { ...base, sourceSymbols: new Map(symbols.map((s) => [s.name, s])), profitRateOf: () => rate };
}
