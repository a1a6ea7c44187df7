/**
 * What a simulated server trades and how its groups are set up: forex majors, metals, indices
 * and crypto with realistic digits, contract sizes, spreads and sessions (in server time).
 * Group names follow each platform's habits (MT5 uses folders, Match-Trader groups sit in offers).
 */
import { dailySessions, lotsToVolume, type Group, type TradePlatformType, type TradeSymbol } from "../../../core/trading/index.ts";
import type { Random } from "./random.ts";

export interface SymbolSeed {
  symbol: TradeSymbol;
  /** Mid price the feed starts from. */
  price: number;
  /** Standard deviation of one feed tick, relative to price. */
  volatility: number;
}

const WEEKDAYS = [1, 2, 3, 4, 5];
const ALL_DAYS = [0, 1, 2, 3, 4, 5, 6];
// Forex and metals: Monday 00:05 to Friday 23:55 server time; indices 01:00–23:00; crypto always.
const FX_SESSIONS = [{ day: 1, from: 5, to: 1440 }, ...dailySessions([2, 3, 4]), { day: 5, from: 0, to: 1435 }];
const INDEX_SESSIONS = dailySessions(WEEKDAYS, 60, 1380);
const CRYPTO_SESSIONS = dailySessions(ALL_DAYS);

type Seed = [
  name: string,
  description: string,
  cls: TradeSymbol["class"],
  digits: number,
  contract: number,
  base: string,
  profit: string,
  spread: number,
  price: number,
  volatility: number,
  maxLeverage: number | null,
];

const SEEDS: Seed[] = [
  ["EURUSD", "Euro vs US Dollar", "forex", 5, 100_000, "EUR", "USD", 12, 1.095, 0.00006, null],
  ["GBPUSD", "Great Britain Pound vs US Dollar", "forex", 5, 100_000, "GBP", "USD", 15, 1.27, 0.00007, null],
  ["USDJPY", "US Dollar vs Japanese Yen", "forex", 3, 100_000, "USD", "JPY", 14, 145.5, 0.00006, null],
  ["USDCHF", "US Dollar vs Swiss Franc", "forex", 5, 100_000, "USD", "CHF", 16, 0.86, 0.00006, null],
  ["AUDUSD", "Australian Dollar vs US Dollar", "forex", 5, 100_000, "AUD", "USD", 14, 0.665, 0.00007, null],
  ["USDCAD", "US Dollar vs Canadian Dollar", "forex", 5, 100_000, "USD", "CAD", 18, 1.34, 0.00006, null],
  ["XAUUSD", "Gold vs US Dollar", "metal", 2, 100, "XAU", "USD", 30, 2030, 0.0001, null],
  ["XAGUSD", "Silver vs US Dollar", "metal", 3, 5000, "XAG", "USD", 25, 23, 0.00015, null],
  ["US30", "Dow Jones Industrial Average", "index", 1, 1, "USD", "USD", 20, 37_500, 0.0001, 100],
  ["GER40", "DAX 40", "index", 1, 1, "EUR", "EUR", 15, 16_700, 0.0001, 100],
  ["BTCUSD", "Bitcoin vs US Dollar", "crypto", 2, 1, "BTC", "USD", 2000, 46_000, 0.0003, 20],
  ["ETHUSD", "Ethereum vs US Dollar", "crypto", 2, 1, "ETH", "USD", 150, 2600, 0.0004, 20],
];

const PATHS: Record<TradeSymbol["class"], string> = {
  forex: "Forex\\Majors",
  metal: "Metals\\Spot",
  index: "Indices\\Cash",
  crypto: "Crypto\\Spot",
};

export function symbolCatalog(): SymbolSeed[] {
  return SEEDS.map(([name, description, cls, digits, contractSize, base, profit, spread, price, volatility, maxLeverage]) => ({
    price,
    volatility,
    symbol: {
      name,
      description,
      class: cls,
      path: `${PATHS[cls]}\\${name}`,
      digits,
      contractSize,
      baseCurrency: base,
      profitCurrency: profit,
      executionMode: cls === "forex" ? "instant" : "market",
      tradeMode: "full",
      spread,
      spreadBalance: 0,
      stopsLevel: 10,
      freezeLevel: 0,
      swapLong: -2.5,
      swapShort: 0.8,
      volumeMin: lotsToVolume(0.01),
      volumeMax: lotsToVolume(cls === "crypto" ? 10 : 100),
      volumeStep: lotsToVolume(0.01),
      maxLeverage,
      marginInitial: 0,
      marginMaintenance: 0,
      marginHedged: 0,
      sessions: cls === "crypto" ? CRYPTO_SESSIONS : cls === "index" ? INDEX_SESSIONS : FX_SESSIONS,
    },
  }));
}

type GroupSeed = { key: string; currency: string; leverage: number; commission: number; real: boolean };

const GROUP_SEEDS: GroupSeed[] = [
  { key: "retail-usd", currency: "USD", leverage: 100, commission: 0, real: false },
  { key: "pro-usd", currency: "USD", leverage: 200, commission: 700, real: false },
  { key: "retail-eur", currency: "EUR", leverage: 100, commission: 0, real: false },
  { key: "retail-usd", currency: "USD", leverage: 100, commission: 0, real: true },
];

function groupName(platform: TradePlatformType, seed: GroupSeed): string {
  const tier = seed.real ? "real" : "demo";
  if (platform === "MT5") return `${tier}\\${seed.key}`;
  return `${tier}-${seed.key}`;
}

export function groupCatalog(platform: TradePlatformType, random: Random): Group[] {
  return GROUP_SEEDS.map((seed) => ({
    name: groupName(platform, seed),
    currency: seed.currency,
    defaultLeverage: seed.leverage,
    marginLevelMode: "percent",
    marginCall: 100,
    stopOut: 50,
    marginMode: "hedging",
    hedgingProhibited: false,
    fifoClose: false,
    maxPositions: 200,
    symbols: "*",
    commissionPerLot: seed.commission,
    native: platform === "MatchTrader" ? { platform, offerId: random.uuid(), branch: seed.real ? "Real" : "Demo" } : { platform },
  }));
}
