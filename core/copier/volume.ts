/**
 * The follower's volume (docs/trades-copier.md "Volume"): first the raw figure of the volume mode,
 * in Volume units (1/10000 lot) but not yet whole; then fitted to the follower's symbol and limits:
 * capped at the maximum, rounded down to the symbol's step, and below the minimum either skipped
 * or, with "force minimum", raised to it. The result is a whole multiple of the step within the
 * limits, or a skip with its reason; never anything in between.
 */
import type { FollowerSettings, SkipReason } from "../schemas/copier.ts";
import type { TradeSymbol } from "../trading/symbol.ts";
import { lotsToVolume, VOLUME_PER_LOT, type Volume } from "../trading/volume.ts";
import type { AccountMoney } from "./types.ts";

/** Float noise of a product such as 0.1 × 3 must not lose a whole step when rounding down. */
const EPSILON = 1e-9;

export interface VolumeInputs {
  sourceVolume: Volume;
  sourceSymbol: TradeSymbol | undefined;
  followerSymbol: TradeSymbol;
  source: AccountMoney;
  follower: AccountMoney;
  /** |source open price − source SL| in price units, null without a stop loss (risk percent needs it). */
  stopDistance: number | null;
  /** Follower symbol's profit currency → follower's account currency. */
  profitRate: number | undefined;
}

/** Source contract size ÷ follower contract size (1 when either is unknown or zero). */
export function contractRatio(source: TradeSymbol | undefined, follower: TradeSymbol): number {
  if (!source || !(source.contractSize > 0) || !(follower.contractSize > 0)) return 1;
  return source.contractSize / follower.contractSize;
}

/** The volume mode's figure before fitting, or why there is none. */
export function rawVolume(settings: Pick<FollowerSettings, "volume" | "alignContractSize">, inputs: VolumeInputs): number | SkipReason {
  const mode = settings.volume;
  const align = settings.alignContractSize ? contractRatio(inputs.sourceSymbol, inputs.followerSymbol) : 1;
  const ratio = (follower: number, source: number) => (source > 0 && follower > 0 ? follower / source : 0);
  switch (mode.mode) {
    case "same":
      return inputs.sourceVolume * align;
    case "multiplier":
      return inputs.sourceVolume * mode.multiplier * align;
    case "fixed":
      return lotsToVolume(Number(mode.lots));
    case "equity":
      return inputs.sourceVolume * ratio(inputs.follower.equity, inputs.source.equity) * mode.factor * align;
    case "balance":
      return inputs.sourceVolume * ratio(inputs.follower.balance, inputs.source.balance) * mode.factor * align;
    case "riskPercent": {
      if (inputs.stopDistance === null || !(inputs.stopDistance > 0)) return "noStopLossForRisk";
      if (inputs.profitRate === undefined || !(inputs.profitRate > 0)) return "noConversionRate";
      if (!(inputs.followerSymbol.contractSize > 0)) return "volumeZero";
      // Money at risk (account currency, major units) ÷ loss of one lot at the stop.
      const atRisk = (Math.max(0, inputs.follower.equity) / 100) * (mode.percent / 100);
      const lossPerLot = inputs.followerSymbol.contractSize * inputs.stopDistance * inputs.profitRate;
      return (atRisk / lossPerLot) * VOLUME_PER_LOT;
    }
  }
}

/** The follower's bounds for a symbol: the symbol's minimum and maximum, narrowed by the follower's own. */
export function volumeLimits(settings: Pick<FollowerSettings, "minLots" | "maxLots">, symbol: TradeSymbol): { min: Volume; max: Volume; step: Volume } {
  const step = Math.max(1, symbol.volumeStep);
  const min = Math.max(symbol.volumeMin, settings.minLots === null ? 0 : lotsToVolume(Number(settings.minLots)), step);
  const max = Math.min(symbol.volumeMax, settings.maxLots === null ? Number.POSITIVE_INFINITY : lotsToVolume(Number(settings.maxLots)));
  return { min, max, step };
}

export function floorToStep(volume: number, step: Volume): Volume {
  return Math.floor(volume / step + EPSILON) * step;
}

export function ceilToStep(volume: number, step: Volume): Volume {
  return Math.ceil(volume / step - EPSILON) * step;
}

/** A raw figure fitted to the follower's symbol and limits: a multiple of the step within them, or a skip. */
export function fitVolume(
  raw: number,
  settings: Pick<FollowerSettings, "minLots" | "maxLots" | "forceMinimum">,
  symbol: TradeSymbol,
): { volume: Volume } | { skip: SkipReason } {
  const { min, max, step } = volumeLimits(settings, symbol);
  const top = floorToStep(max, step);
  // Nothing to scale (a zero source volume, an account without equity): never forced up to the minimum.
  if (!Number.isFinite(raw) || raw <= 0) return { skip: "volumeZero" };
  const volume = floorToStep(Math.min(raw, top), step);
  if (volume >= min) return { volume };
  if (settings.forceMinimum) return atLeastMinimum(min, top, step);
  return { skip: volume === 0 ? "volumeZero" : "volumeBelowMinimum" };
}

function atLeastMinimum(min: Volume, top: Volume, step: Volume): { volume: Volume } | { skip: SkipReason } {
  const volume = ceilToStep(min, step);
  return volume <= top ? { volume } : { skip: "volumeBelowMinimum" };
}

/**
 * How much of the follower's copy a source partial close closes: the source's closed fraction of
 * what it held, times the follower's volume, rounded down to the step (so never more than its
 * share, never more than open). A remainder below the symbol's minimum cannot stay open on its
 * own: then the whole copy is closed. Zero after rounding: nothing to close (volumeZero).
 */
export function partialCloseVolume(
  followerVolume: Volume,
  sourceBefore: Volume,
  sourceClosed: Volume,
  symbol: TradeSymbol | undefined,
): { volume: Volume; whole: boolean } | { skip: SkipReason } {
  if (followerVolume <= 0) return { skip: "notCopied" };
  if (sourceClosed >= sourceBefore) return { volume: followerVolume, whole: true };
  const step = Math.max(1, symbol?.volumeStep ?? 1);
  const minimum = Math.max(step, symbol?.volumeMin ?? 0);
  const share = floorToStep((followerVolume * sourceClosed) / sourceBefore, step);
  const volume = Math.min(share, followerVolume);
  if (volume <= 0) return { skip: "volumeZero" };
  if (followerVolume - volume < minimum) return { volume: followerVolume, whole: true };
  return { volume, whole: false };
}

/** What a copy opened with: its own volume and the source's volume then (the ledger's open, fill or resync row). */
export interface OpenedShare {
  volume: Volume;
  sourceVolume: Volume;
}

/**
 * The volume a copy should hold while the source holds `sourceNow` of the position: what it
 * opened with × sourceNow ÷ what the source held then, rounded UP to the step (so what is closed
 * is rounded down: never more than the source's fraction), never more than it opened with. The
 * same figure whichever partial closes were seen: live, caught up after a gap, or resynced.
 */
export function copyShare(opened: OpenedShare, sourceNow: Volume, symbol: TradeSymbol | undefined): Volume {
  if (!(opened.sourceVolume > 0) || sourceNow >= opened.sourceVolume) return opened.volume;
  if (sourceNow <= 0) return 0;
  const step = Math.max(1, symbol?.volumeStep ?? 1);
  return Math.min(opened.volume, ceilToStep((opened.volume * sourceNow) / opened.sourceVolume, step));
}

/**
 * What brings a copy of `copyVolume` down to `share`: the part above it, or the whole copy when
 * the share is below what may stay open (the symbol's minimum, one step); null when the copy holds
 * no more than its share (nothing to close: a repeat, or a copy already reduced by hand).
 */
export function closeToShare(copyVolume: Volume, share: Volume, symbol: TradeSymbol | undefined): { volume: Volume; whole: boolean } | null {
  if (copyVolume <= 0 || share >= copyVolume) return null;
  const step = Math.max(1, symbol?.volumeStep ?? 1);
  const minimum = Math.max(step, symbol?.volumeMin ?? 0);
  if (share < minimum) return { volume: copyVolume, whole: true };
  return { volume: copyVolume - share, whole: false };
}
