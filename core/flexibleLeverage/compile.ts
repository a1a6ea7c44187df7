/**
 * Rules compiled once for many evaluations (docs/flexible-leverage.md "Speed"): masks compiled,
 * ladders as typed arrays in the units the accounts come in (cents, 1/10000 lot), news windows
 * turned into instants, and three caches: the rules whose group mask takes a group, the rules
 * whose symbol mask takes a symbol, and the open windows in the last minute asked about. A
 * server has tens of groups and hundreds of symbols for 100,000 accounts, so each mask is tested
 * about once per group or symbol, not once per account.
 */
import { VOLUME_PER_LOT } from "../trading/volume.ts";
import { compileGroupMask, compileSymbolMask, matchesEverything } from "./masks.ts";
import { noRuleReason, ruleReason, tierText } from "./reason.ts";
import type { FlexibleLeverageSettingsInput, LeverageMode, Rule } from "./schema.ts";
import { FlexibleLeverageSettingsSchema } from "./schema.ts";
import { compileWindow, openWindows, type CompiledWindow } from "./windows.ts";
import { MINUTE_MS, knownTimeZone } from "./zonedTime.ts";

/** Caches are dropped past this many names (a server has far fewer groups or symbols). */
const CACHE_LIMIT = 100_000;

export interface CompiledRule {
  index: number;
  name: string;
  active: boolean;
  mode: LeverageMode;
  matchesGroup: (group: string) => boolean;
  matchesSymbol: (symbol: string) => boolean;
  /** The symbol mask takes every symbol: the rule does not need a position on one. */
  allSymbols: boolean;
  countExisting: boolean;
  /** Ascending; cents for equity and notional, 1/10000 lot for lots. */
  thresholds: Float64Array;
  leverages: Int32Array;
  /** As written (for the reasons). */
  thresholdsAsWritten: readonly number[];
  windows: readonly CompiledWindow[];
  /** Infinity when the rule has no maximum. */
  maxLeverage: number;
  /** Per tier: account currency → the reason before any cap. */
  tierReasons: Map<string, string>[];
  windowReasons: string[];
}

export interface CompiledRules {
  timeZone: string;
  rules: readonly CompiledRule[];
  /** Indices of the active rules whose group mask takes `group`, in order. */
  rulesForGroup(group: string): Int32Array;
  /** Per rule index: 1 when its symbol mask takes `symbol`. */
  symbolFlags(symbol: string): Uint8Array;
  /** Per rule index: its first open window at `at`, or -1 (kept for the last minute asked). */
  openWindowsAt(at: number): Int32Array;
  /** The reason of an account no rule takes. */
  noRuleReason(groupLeverage: number): string;
}

function unitsOf(mode: LeverageMode, threshold: number): number {
  // Both scales are exact for thresholds of at most 2 decimals (the schema's rule).
  return Math.round(threshold * (mode === "exposureLots" ? VOLUME_PER_LOT : 100));
}

function compileRule(rule: Rule, index: number, timeZone: string): CompiledRule {
  const windows = rule.windows.map((w) => compileWindow(w, timeZone));
  return {
    index,
    name: rule.name,
    active: rule.active,
    mode: rule.mode,
    matchesGroup: compileGroupMask(rule.groups),
    matchesSymbol: compileSymbolMask(rule.symbols),
    allSymbols: matchesEverything(rule.symbols),
    countExisting: rule.countExistingPositions,
    thresholds: Float64Array.from(rule.tiers, (t) => unitsOf(rule.mode, t.threshold)),
    leverages: Int32Array.from(rule.tiers, (t) => t.leverage),
    thresholdsAsWritten: rule.tiers.map((t) => t.threshold),
    windows,
    maxLeverage: rule.maxLeverage ?? Infinity,
    tierReasons: rule.tiers.map(() => new Map<string, string>()),
    windowReasons: windows.map((w) => ruleReason(rule.name, w.text, w.leverage)),
  };
}

/** The reason of tier `tier` of `rule` for an account in `currency`, before any cap. */
export function tierReason(rule: CompiledRule, tier: number, currency: string): string {
  const byCurrency = rule.tierReasons[tier]!;
  let reason = byCurrency.get(currency);
  if (reason === undefined) {
    reason = ruleReason(rule.name, tierText(rule.mode, rule.thresholdsAsWritten[tier]!, currency), rule.leverages[tier]!);
    if (byCurrency.size < CACHE_LIMIT) byCurrency.set(currency, reason);
  }
  return reason;
}

/**
 * Compiles settings for `timeZone` (the server's IANA zone). Settings are parsed again here, so
 * the engine never runs rules the schema would refuse (non-ascending tiers, bad times…): a
 * ZodError is thrown for them.
 */
export function compileRules(settings: FlexibleLeverageSettingsInput, options: { timeZone: string }): CompiledRules {
  const { timeZone } = options;
  if (!knownTimeZone(timeZone)) throw new RangeError(`"${timeZone}" is not an IANA time zone name`);
  const parsed = FlexibleLeverageSettingsSchema.parse(settings);
  const rules = parsed.rules.map((rule, i) => compileRule(rule, i, timeZone));

  const groups = new Map<string, Int32Array>();
  const symbols = new Map<string, Uint8Array>();
  const noRule = new Map<number, string>();
  let windowsMinute = NaN;
  let windows: Int32Array = new Int32Array(rules.length).fill(-1);

  return {
    timeZone,
    rules,
    rulesForGroup(group) {
      let found = groups.get(group);
      if (!found) {
        found = Int32Array.from(rules.filter((r) => r.active && r.matchesGroup(group)).map((r) => r.index));
        if (groups.size >= CACHE_LIMIT) groups.clear();
        groups.set(group, found);
      }
      return found;
    },
    symbolFlags(symbol) {
      let flags = symbols.get(symbol);
      if (!flags) {
        flags = Uint8Array.from(rules, (r) => (r.matchesSymbol(symbol) ? 1 : 0));
        if (symbols.size >= CACHE_LIMIT) symbols.clear();
        symbols.set(symbol, flags);
      }
      return flags;
    },
    openWindowsAt(at) {
      // Windows open and close on whole minutes (a time of the server's clock, whose offset is whole
      // minutes in every zone since 1972, plus whole minutes): one answer serves a whole minute, so
      // evaluating account after account at "now" computes the windows once a minute.
      const minute = Math.floor(at / MINUTE_MS);
      if (minute !== windowsMinute) {
        windows = openWindows(rules, minute * MINUTE_MS, timeZone);
        windowsMinute = minute;
      }
      return windows;
    },
    noRuleReason(groupLeverage) {
      let reason = noRule.get(groupLeverage);
      if (reason === undefined) {
        reason = noRuleReason(groupLeverage);
        if (noRule.size < CACHE_LIMIT) noRule.set(groupLeverage, reason);
      }
      return reason;
    },
  };
}
