/**
 * Prices stay plain numbers rounded to the symbol's digits, which is exactly what MetaTrader
 * stores (a double rounded to `digits`). They are never summed, so they cannot drift; money
 * computed from them is rounded once into integer minor units (see money.ts).
 */
export function roundPrice(price: number, digits: number): number {
  return Number(price.toFixed(digits));
}

/** Size of one point (the last digit) of a symbol quoted with `digits` decimals. */
export function pointSize(digits: number): number {
  return 10 ** -digits;
}

export function pointsToPrice(points: number, digits: number): number {
  return roundPrice(points * pointSize(digits), digits);
}

/** Distance between two prices in points, as an integer. */
export function priceDistancePoints(a: number, b: number, digits: number): number {
  return Math.round(Math.abs(a - b) * 10 ** digits);
}
