/**
 * Volume is an integer count of 1/10000 lots (MetaTrader 5's own unit): 0.01 lot = 100,
 * 1 lot = 10000. Integers keep copier multipliers, partial closes and sums exact, where lots as
 * floats would drift. MT4 and Match-Trader speak lots; their connectors convert at the edge.
 */
export type Volume = number;

export const VOLUME_PER_LOT = 10_000;

/** The smallest step any platform here trades in: 0.01 lot. */
export const MIN_LOT_STEP: Volume = 100;

export function lotsToVolume(lots: number): Volume {
  if (!Number.isFinite(lots)) throw new RangeError(`Not a number of lots: ${lots}`);
  const scaled = Number((lots * VOLUME_PER_LOT).toPrecision(15));
  const volume = Math.sign(scaled) * Math.round(Math.abs(scaled));
  return volume === 0 ? 0 : volume;
}

export function volumeToLots(volume: Volume): number {
  return volume / VOLUME_PER_LOT;
}

export function isVolume(value: unknown): value is Volume {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/** "0.1", "1.25": lots for display, without float noise. */
export function formatLots(volume: Volume): string {
  return String(Number(volumeToLots(volume).toFixed(4)));
}
