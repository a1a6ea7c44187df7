/**
 * A profile written to a real server (docs/dealing.md "Real servers"): what each platform type can
 * take, and the symbol changes a profile implies, as pure functions. Toolbox keeps each changed
 * symbol's original values (`originals`) so that the profile without markups or limits writes them
 * back exactly.
 *
 * - A spread markup of b bid points and a ask points widens the symbol's spread by a + b and moves
 *   its spread balance by a − b (the bid goes down b points, the ask up a; core/trading/symbol.ts).
 *   Symbol-wide: every group trading the symbol gets it.
 * - A maximum volume per order lowers the symbol's volume maximum to it (rounded down to the
 *   symbol's step); never raises it, nor below the symbol's minimum.
 * - Maximum deviation, execution delay and the stale-quote threshold are not fields of the
 *   configuration objects Toolbox writes: no platform type takes them.
 */
import type { TradePlatformType } from "../trading/platform.ts";
import type { TradeSymbol } from "../trading/symbol.ts";
import { markupFor } from "./markup.ts";
import type { ExecutionProfile } from "./schema.ts";

/** The symbol fields a profile writes. */
export const DEALING_SYMBOL_FIELDS = ["spread", "spreadBalance", "volumeMax"] as const;
export type DealingSymbolField = (typeof DEALING_SYMBOL_FIELDS)[number];
export type DealingSymbolValues = Record<DealingSymbolField, number>;

/** Per symbol: its values before Toolbox first changed them, and what Toolbox last wrote. */
export type DealingOriginals = Record<string, { original: DealingSymbolValues; written: DealingSymbolValues }>;

export type ProfileSetting = "markups" | "maxDeviationPoints" | "executionDelayMs" | "maxVolumeLots" | "staleQuoteMs";

const NO_CONFIG_FIELD = "no field of the server's configuration objects carries it";
/** What a real server of each type cannot take, and why (the API's `cannotTake`, docs/dealing.md's table). */
export const CANNOT_TAKE: Record<TradePlatformType, Partial<Record<ProfileSetting, string>>> = {
  MT4: {
    maxDeviationPoints: `Maximum deviation cannot be written to an MT4 server: ${NO_CONFIG_FIELD} (a dealer or gateway plugin sets it).`,
    executionDelayMs: `Execution delay cannot be written to an MT4 server: ${NO_CONFIG_FIELD} (a dealer or gateway plugin's job).`,
    staleQuoteMs: `The stale-quote threshold cannot be written to an MT4 server: ${NO_CONFIG_FIELD}.`,
  },
  MT5: {
    maxDeviationPoints: `Maximum deviation cannot be written to an MT5 server: ${NO_CONFIG_FIELD} (a dealer or gateway plugin sets it).`,
    executionDelayMs: `Execution delay cannot be written to an MT5 server: ${NO_CONFIG_FIELD} (a dealer or gateway plugin's job).`,
    staleQuoteMs: `The stale-quote threshold cannot be written to an MT5 server: ${NO_CONFIG_FIELD}.`,
  },
  MatchTrader: {
    markups:
      "Spread markups cannot be written to a Match-Trader server: its spreads are a group's bid and ask markups, which the Broker API does not let Toolbox write.",
    maxDeviationPoints: `Maximum deviation cannot be written to a Match-Trader server: ${NO_CONFIG_FIELD}.`,
    executionDelayMs: `Execution delay cannot be written to a Match-Trader server: ${NO_CONFIG_FIELD}.`,
    staleQuoteMs: `The stale-quote threshold cannot be written to a Match-Trader server: ${NO_CONFIG_FIELD}.`,
  },
};

export function cannotTake(platform: TradePlatformType): { setting: ProfileSetting; reason: string }[] {
  return Object.entries(CANNOT_TAKE[platform]).map(([setting, reason]) => ({ setting: setting as ProfileSetting, reason: reason }));
}

/** The settings `profile` uses that a server of type `platform` cannot take (a setting left empty or 0 is not used). */
export function settingsNotTaken(platform: TradePlatformType, profile: ExecutionProfile): { setting: ProfileSetting; reason: string }[] {
  const used: Record<ProfileSetting, boolean> = {
    markups: profile.markups.some((m) => m.bidPoints > 0 || m.askPoints > 0),
    maxDeviationPoints: profile.maxDeviationPoints !== null,
    executionDelayMs: profile.executionDelayMs > 0,
    maxVolumeLots: profile.maxVolumeLots !== null,
    staleQuoteMs: profile.staleQuoteMs !== null,
  };
  return cannotTake(platform).filter((c) => used[c.setting]);
}

export const dealingValuesOf = (symbol: TradeSymbol): DealingSymbolValues => ({
  spread: symbol.spread,
  spreadBalance: symbol.spreadBalance,
  volumeMax: symbol.volumeMax,
});

const sameValues = (a: DealingSymbolValues, b: DealingSymbolValues) => DEALING_SYMBOL_FIELDS.every((f) => a[f] === b[f]);

/** The values `profile` wants on a symbol whose own values are `original`. */
export function profileValues(platform: TradePlatformType, profile: ExecutionProfile, symbol: TradeSymbol, original: DealingSymbolValues): DealingSymbolValues {
  const wanted = { ...original };
  if (!CANNOT_TAKE[platform].markups) {
    const markup = markupFor(profile, { name: symbol.name, path: symbol.path });
    wanted.spread = original.spread + markup.bidPoints + markup.askPoints;
    wanted.spreadBalance = original.spreadBalance + markup.askPoints - markup.bidPoints;
  }
  if (profile.maxVolumeLots !== null && symbol.volumeStep > 0) {
    const cap = Math.floor(Math.round(profile.maxVolumeLots * 10_000) / symbol.volumeStep) * symbol.volumeStep;
    if (cap < original.volumeMax) wanted.volumeMax = Math.max(cap, symbol.volumeMin);
  }
  return wanted;
}

export interface SymbolWrite {
  name: string;
  /** configVersion of the symbol as read: the write is refused if it changed since. */
  expected: string;
  before: DealingSymbolValues;
  after: DealingSymbolValues;
}

export interface WritePlan {
  writes: SymbolWrite[];
  /** Symbols left alone: their fields were changed outside Toolbox while a profile was in force. */
  skipped: { name: string; message: string }[];
  /** The originals to keep before writing (every symbol about to leave its own values). */
  originalsBefore: DealingOriginals;
  /** The originals once every write landed. */
  originalsAfter: DealingOriginals;
}

/**
 * The writes that put `profile` on the server whose symbols are `symbols` (with their versions).
 * A symbol already as wanted is not written. A symbol Toolbox changed whose values are no longer
 * what Toolbox wrote was changed by someone else meanwhile: its new values are kept, taken as its
 * own, and it is reported rather than overwritten.
 */
export function planProfileWrite(
  platform: TradePlatformType,
  profile: ExecutionProfile,
  symbols: readonly { symbol: TradeSymbol; version: string }[],
  originals: DealingOriginals,
): WritePlan {
  const writes: SymbolWrite[] = [];
  const skipped: WritePlan["skipped"] = [];
  const before: DealingOriginals = {};
  const after: DealingOriginals = {};
  for (const { symbol, version } of symbols) {
    const current = dealingValuesOf(symbol);
    let kept = originals[symbol.name];
    // Still what Toolbox wrote, or its own values again (a pass that stopped before writing it): Toolbox's to change.
    if (kept && !sameValues(kept.written, current) && !sameValues(kept.original, current)) {
      const changed = DEALING_SYMBOL_FIELDS.filter((f) => kept!.written[f] !== current[f]);
      skipped.push({
        name: symbol.name,
        message: `${symbol.name}: ${changed.join(", ")} changed outside Toolbox since the profile was written; left as the server has it (now its own values).`,
      });
      continue;
    }
    const original = kept?.original ?? current;
    const wanted = profileValues(platform, profile, symbol, original);
    const back = sameValues(wanted, original);
    if (!back) {
      kept = { original, written: wanted };
      before[symbol.name] = kept;
      after[symbol.name] = kept;
    } else if (kept && !sameValues(current, original)) {
      before[symbol.name] = kept;
    }
    if (!sameValues(wanted, current)) writes.push({ name: symbol.name, expected: version, before: current, after: wanted });
  }
  return { writes, skipped, originalsBefore: before, originalsAfter: after };
}

/** Only the fields that differ, as { before, after } (the audit's diff). */
export function valuesDiff(
  before: DealingSymbolValues,
  after: DealingSymbolValues,
): { before: Partial<DealingSymbolValues>; after: Partial<DealingSymbolValues> } {
  const diff = { before: {} as Partial<DealingSymbolValues>, after: {} as Partial<DealingSymbolValues> };
  for (const f of DEALING_SYMBOL_FIELDS)
    if (before[f] !== after[f]) {
      diff.before[f] = before[f];
      diff.after[f] = after[f];
    }
  return diff;
}
