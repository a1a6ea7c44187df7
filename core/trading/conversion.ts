/**
 * Converting an amount from one currency to another with the server's own quotes, the way
 * MetaTrader does for profit and margin: a direct pair (EURUSD), its inverse (USDJPY for JPY→USD),
 * or through USD (JPY→EUR = JPY→USD→EUR). Mid prices, so the rate does not flicker with the spread.
 */
export type MidPrice = (symbol: string) => number | undefined;

export function conversionRate(from: string, to: string, mid: MidPrice): number | undefined {
  if (from === to) return 1;
  const direct = mid(`${from}${to}`);
  if (direct) return direct;
  const inverse = mid(`${to}${from}`);
  if (inverse) return 1 / inverse;
  if (from !== "USD" && to !== "USD") {
    const toUsd = conversionRate(from, "USD", mid);
    const fromUsd = conversionRate("USD", to, mid);
    if (toUsd && fromUsd) return toUsd * fromUsd;
  }
  return undefined;
}
