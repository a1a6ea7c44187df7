/**
 * Net exposure in one currency (docs/trades-blotter.md#net-exposure): each symbol's notional is in
 * the currency its price is quoted in (USDJPY in JPY, XAUUSD in USD), so side by side they cannot
 * be compared or ranked. The organization's currency and each symbol's rate to it come from the
 * servers' own quotes (GET /api/tradesBlotter/exposure-rates); a symbol without one is shown
 * unconverted, never guessed.
 */
import type { ExposureRates } from "@core/schemas/tradesBlotter";
import type { SymbolExposure } from "./blotterTotals";

export interface ConvertedExposure {
  symbol: string;
  netLots: number;
  /** Notional in `currency`; null when it cannot be stated (see `missing`). */
  value: number | null;
  /** Why `value` is null: no contract size known, or no quote to convert the quote currency with. */
  missing: string | null;
}

/** Each symbol's notional in the organization's currency, largest first (then the unconverted, by lots). */
export function convertExposure(exposure: readonly SymbolExposure[], rates: ExposureRates | null | undefined): ConvertedExposure[] {
  const bySymbol = new Map<string, ExposureRates["symbols"][number]>();
  // The first platform that can convert a symbol gives its rate; another's entry only when none can.
  for (const s of rates?.symbols ?? []) {
    const known = bySymbol.get(s.symbol);
    if (!known || (known.rate === null && s.rate !== null)) bySymbol.set(s.symbol, s);
  }
  const list = exposure.map((e): ConvertedExposure => {
    if (!rates) return { symbol: e.symbol, netLots: e.netLots, value: null, missing: "Conversion rates are loading or unavailable" };
    const facts = bySymbol.get(e.symbol);
    const notional = e.notional ?? (facts ? e.lotPrice * facts.contractSize : null);
    if (notional === null || !facts) return { symbol: e.symbol, netLots: e.netLots, value: null, missing: "No connected server lists this symbol" };
    if (facts.rate === null) {
      return { symbol: e.symbol, netLots: e.netLots, value: null, missing: `No quote on the servers converts ${facts.quoteCurrency} to ${rates.currency}` };
    }
    return { symbol: e.symbol, netLots: e.netLots, value: notional * facts.rate, missing: null };
  });
  return list.sort(
    (a, b) =>
      Number(a.value === null) - Number(b.value === null) ||
      Math.abs(b.value ?? b.netLots) - Math.abs(a.value ?? a.netLots) ||
      a.symbol.localeCompare(b.symbol),
  );
}
