/**
 * Small conversions every codec needs, each refusing what its platform cannot represent with a
 * message a dealer understands (an MT4 ticket must be a number, MT4 trades 0.01-lot steps, …).
 */
import { lotsToVolume, MIN_LOT_STEP, volumeToLots, type Volume } from "../../../core/trading/index.ts";
import { connectorErrors } from "../errors.ts";

export function numericId(value: string, what: string): number {
  if (!/^\d{1,15}$/.test(value)) throw connectorErrors.invalidRequest(`${what} "${value}" is not valid: it must be a number.`);
  return Number(value);
}

export function volumeAsLots(volume: Volume, platform: string): number {
  if (!Number.isSafeInteger(volume) || volume < 0 || volume % MIN_LOT_STEP !== 0)
    throw connectorErrors.invalidRequest(`${platform} trades in steps of 0.01 lot; ${volume / 10_000} lot cannot be sent.`);
  return volumeToLots(volume);
}

export function lotsAsVolume(lots: number): Volume {
  return lotsToVolume(lots);
}

export const flag = (value: boolean): 0 | 1 => (value ? 1 : 0);

/** A price where 0 means "none" (MetaTrader's convention for SL and TP). */
export const priceOrNull = (price: number): number | null => (price === 0 ? null : price);
export const priceOrZero = (price: number | null | undefined): number => price ?? 0;

/** Looks a value up in a code table, both ways. */
export function codeTable<K extends string, C extends number | string>(table: Record<K, C>, what: string) {
  const reverse = new Map<unknown, K>(Object.entries(table).map(([k, c]) => [c, k as K]));
  return {
    /** Accepts any string so wider unions (every TradeReason) can be offered; unknown keys are refused. */
    encode(key: string): C {
      const code = (table as Record<string, C>)[key];
      if (code === undefined) throw connectorErrors.invalidRequest(`${what} "${key}" is not supported on this platform.`);
      return code;
    },
    decode(code: unknown): K {
      const key = reverse.get(code);
      if (key === undefined) throw connectorErrors.invalidRequest(`Unknown ${what} code ${String(code)} from the trading server.`);
      return key;
    },
  };
}

/** Milliseconds UTC ↔ server-local seconds (MT4) or milliseconds (MT5), the way MetaTrader stamps times. */
export function serverTimeCodec(offsetMinutes: number | (() => number), unitMs: 1 | 1000) {
  // A function when the offset is learnt from the server itself (the MT5 Web API's /api/time/get).
  const offsetMs = typeof offsetMinutes === "number" ? () => offsetMinutes * 60_000 : () => offsetMinutes() * 60_000;
  return {
    encode: (utc: number) => Math.floor((utc + offsetMs()) / unitMs),
    decode: (local: number) => local * unitMs - offsetMs(),
  };
}

/** Optional fields stay absent rather than `undefined`, so decoded requests compare equal to the originals. */
export function dropUndefined<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as never;
}

/** A holiday's year, month and day as the normalized date, YYYY-MM-DD. */
export function holidayDate(year: number, month: number, day: number): string {
  return `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}
