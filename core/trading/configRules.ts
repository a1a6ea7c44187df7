/**
 * Configuration writes (docs/connectors.md, "Configuration writes"): what a group or symbol patch
 * may change on each platform, and the platforms' rules for the result, as pure checks with the
 * sentences a dealer reads. A connector refuses a patch these reject before anything is sent; the
 * simulated server checks the written object again, as a trade server does.
 */
import { isValidLeverage } from "./account.ts";
import { canonicalConfig } from "./configVersion.ts";
import type { Group } from "./group.ts";
import { moneyToDecimal } from "./money.ts";
import type { TradePlatformType } from "./platform.ts";
import type { TradeSymbol } from "./symbol.ts";
import { formatLots, MIN_LOT_STEP } from "./volume.ts";

/** The fields of a group an editor may send; a group is known by its name, which a patch cannot change. */
export type GroupPatch = Partial<Omit<Group, "name" | "native">>;
/** The fields of a symbol an editor may send; a symbol is known by its name, which a patch cannot change. */
export type SymbolPatch = Partial<Omit<TradeSymbol, "name">>;

export const GROUP_PATCH_FIELDS = [
  "currency",
  "defaultLeverage",
  "marginLevelMode",
  "marginCall",
  "stopOut",
  "marginMode",
  "hedgingProhibited",
  "fifoClose",
  "maxPositions",
  "symbols",
  "commissionPerLot",
] as const satisfies readonly (keyof GroupPatch)[];

export const SYMBOL_PATCH_FIELDS = [
  "description",
  "class",
  "path",
  "digits",
  "contractSize",
  "baseCurrency",
  "profitCurrency",
  "executionMode",
  "tradeMode",
  "spread",
  "spreadBalance",
  "stopsLevel",
  "freezeLevel",
  "swapLong",
  "swapShort",
  "volumeMin",
  "volumeMax",
  "volumeStep",
  "maxLeverage",
  "marginInitial",
  "marginMaintenance",
  "marginHedged",
  "sessions",
] as const satisfies readonly (keyof SymbolPatch)[];

type Refusals<K extends string> = Partial<Record<K, string>>;

/** Fields no platform lets an existing object change, and why. */
const GROUP_FIXED: Refusals<keyof GroupPatch> = {
  currency: "A group's currency cannot be changed: its accounts hold their money in it. Create a new group in the other currency instead.",
};
const SYMBOL_FIXED: Refusals<keyof SymbolPatch> = {
  class: "A symbol's class cannot be changed.",
  baseCurrency: "A symbol's base currency cannot be changed: create a new symbol instead.",
  profitCurrency: "A symbol's profit currency cannot be changed: open positions are valued in it. Create a new symbol instead.",
};

/** What each platform's configuration cannot take, and why (docs/connectors.md, "Configuration writes"). */
export const UNWRITABLE_GROUP_FIELDS: Record<TradePlatformType, Refusals<keyof GroupPatch>> = {
  MT4: {
    ...GROUP_FIXED,
    marginMode: "MetaTrader 4 accounts always hedge: a group cannot be switched to netting.",
  },
  MT5: GROUP_FIXED,
  MatchTrader: {
    ...GROUP_FIXED,
    marginLevelMode: "Match-Trader's margin call and stop-out levels are percentages of margin; they cannot be set as amounts of money.",
    marginMode: "The Match-Trader Broker API cannot switch a group between hedging and netting.",
    fifoClose: "Match-Trader has no FIFO close rule to set on a group.",
    maxPositions: "Match-Trader has no limit on open positions to set on a group.",
  },
};

export const UNWRITABLE_SYMBOL_FIELDS: Record<TradePlatformType, Refusals<keyof SymbolPatch>> = {
  MT4: SYMBOL_FIXED,
  MT5: SYMBOL_FIXED,
  MatchTrader: {
    ...SYMBOL_FIXED,
    executionMode: "Match-Trader executes every instrument at the market; it has no execution mode to set.",
    spread: "Match-Trader sets spreads as a group's bid and ask markups, not on the instrument.",
    spreadBalance: "Match-Trader sets spreads as a group's bid and ask markups: there is no spread balance on the instrument.",
    marginInitial: "Match-Trader computes margin from the leverage: there are no margin figures to set on an instrument.",
    marginMaintenance: "Match-Trader computes margin from the leverage: there are no margin figures to set on an instrument.",
    marginHedged: "Match-Trader computes margin from the leverage: there are no margin figures to set on an instrument.",
    stopsLevel: "Match-Trader has no stops level to set on an instrument.",
    freezeLevel: "Match-Trader has no freeze level to set on an instrument.",
  },
};

export type ConfigCheck<T> = { ok: true; value: T } | { ok: false; problems: string[] };

const same = (a: unknown, b: unknown) => canonicalConfig({ v: a }) === canonicalConfig({ v: b });

/**
 * The patch applied to `current`, or why not: fields unknown, fields the platform cannot take (a
 * field sent with its current value is no change and passes), then the platform's rules for the
 * result.
 */
function patched<T extends object, K extends string>(
  current: T,
  patch: unknown,
  fields: readonly K[],
  unwritable: Refusals<K>,
  what: string,
  problemsOf: (value: T) => string[],
): ConfigCheck<T> {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch))
    return { ok: false, problems: [`The change to the ${what} must be an object of fields.`] };
  const problems: string[] = [];
  const changes: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (!(fields as readonly string[]).includes(field)) {
      problems.push(field === "name" ? `A ${what}'s name cannot be changed.` : `"${field}" is not a field of a ${what} that can be changed.`);
      continue;
    }
    if (same(value, (current as Record<string, unknown>)[field])) continue;
    const refusal = unwritable[field as K];
    if (refusal) problems.push(refusal);
    else changes[field] = value;
  }
  if (problems.length > 0) return { ok: false, problems };
  const value = { ...current, ...changes } as T;
  const rules = problemsOf(value);
  return rules.length > 0 ? { ok: false, problems: rules } : { ok: true, value };
}

export function patchGroup(platform: TradePlatformType, current: Group, patch: GroupPatch): ConfigCheck<Group> {
  return patched(current, patch, GROUP_PATCH_FIELDS, UNWRITABLE_GROUP_FIELDS[platform], "group", (g) => groupProblems(g));
}

export function patchSymbol(platform: TradePlatformType, current: TradeSymbol, patch: SymbolPatch): ConfigCheck<TradeSymbol> {
  return patched(current, patch, SYMBOL_PATCH_FIELDS, UNWRITABLE_SYMBOL_FIELDS[platform], "symbol", (s) => symbolProblems(s, platform));
}

const isWhole = (n: unknown, min = 0): n is number => typeof n === "number" && Number.isSafeInteger(n) && n >= min;
const isBoolean = (b: unknown) => typeof b === "boolean";
const MAX_PERCENT = 10_000;

/** The platforms' rules for a group, as sentences; none when it is valid. */
export function groupProblems(group: Group): string[] {
  const problems: string[] = [];
  if (!isValidLeverage(group.defaultLeverage)) problems.push("The default leverage must be a whole number from 1 to 10000 (1:1 to 1:10000).");
  const percent = group.marginLevelMode === "percent";
  if (!percent && group.marginLevelMode !== "money")
    problems.push("The margin call and stop-out levels are either a percentage of margin or an amount of equity.");
  const levelOk = (n: number) =>
    percent ? typeof n === "number" && Number.isFinite(n) && n >= 0 && n <= MAX_PERCENT && Math.abs(Math.round(n * 100) - n * 100) < 1e-6 : isWhole(n);
  const levelRule = percent ? "a percentage from 0 to 10000 with at most two decimals" : "an amount of equity in cents, zero or more";
  const levelsOk = levelOk(group.marginCall) && levelOk(group.stopOut);
  if (!levelOk(group.marginCall)) problems.push(`The margin call level must be ${levelRule}.`);
  if (!levelOk(group.stopOut)) problems.push(`The stop-out level must be ${levelRule}.`);
  if (levelsOk && (percent || group.marginLevelMode === "money") && !(group.marginCall > group.stopOut)) {
    const show = (n: number) => (percent ? `${n} %` : `${moneyToDecimal(n)} ${group.currency}`);
    problems.push(
      `The margin call level (${show(group.marginCall)}) must be above the stop-out level (${show(group.stopOut)}): the margin call warns before the stop out closes positions.`,
    );
  }
  if (group.marginMode !== "hedging" && group.marginMode !== "netting") problems.push("The margin mode is hedging or netting.");
  if (!isBoolean(group.hedgingProhibited)) problems.push("Hedging prohibited is yes or no.");
  if (!isBoolean(group.fifoClose)) problems.push("FIFO close is yes or no.");
  if (!isWhole(group.maxPositions) || group.maxPositions > 100_000)
    problems.push("The maximum of open positions must be a whole number from 0 (no limit) to 100000.");
  if (typeof group.symbols !== "string" || group.symbols.length > 1024)
    problems.push("The allowed symbols are masks separated by commas, at most 1024 characters.");
  else if (group.symbols.split(",").some((part) => /^\s*!?\s*$/.test(part)) && group.symbols.trim() !== "")
    problems.push(`The allowed symbols "${group.symbols}" hold an empty mask: write masks such as "Forex\\*,!Crypto\\*".`);
  if (!isWhole(group.commissionPerLot)) problems.push("The commission per lot must be an amount in cents, zero or more.");
  return problems;
}

const EXECUTION_MODES = ["request", "instant", "market"];
const TRADE_MODES = ["full", "closeOnly", "disabled"];
const MINUTES_PER_DAY = 24 * 60;

/** The platforms' rules for a symbol, as sentences; none when it is valid. */
export function symbolProblems(symbol: TradeSymbol, platform: TradePlatformType): string[] {
  const problems: string[] = [];
  if (typeof symbol.description !== "string" || symbol.description.length > 128) problems.push("The description is text of at most 128 characters.");
  if (typeof symbol.path !== "string" || symbol.path.trim() === "" || symbol.path.length > 128)
    problems.push('The symbol group is required (a path such as "Forex\\Majors", at most 128 characters).');
  if (!isWhole(symbol.digits) || symbol.digits > 8) problems.push("Digits must be a whole number from 0 to 8.");
  if (!(typeof symbol.contractSize === "number" && Number.isFinite(symbol.contractSize) && symbol.contractSize > 0))
    problems.push("The contract size must be a positive number of units per lot.");
  if (!EXECUTION_MODES.includes(symbol.executionMode)) problems.push("The execution mode is request, instant or market.");
  if (!TRADE_MODES.includes(symbol.tradeMode)) problems.push("The trade mode is full, close only or disabled.");
  for (const [value, label] of [
    [symbol.spread, "The spread"],
    [symbol.stopsLevel, "The stops level"],
    [symbol.freezeLevel, "The freeze level"],
  ] as const)
    if (!isWhole(value) || value > 100_000) problems.push(`${label} must be a whole number of points from 0 to 100000.`);
  if (!Number.isSafeInteger(symbol.spreadBalance) || Math.abs(symbol.spreadBalance) > 100_000)
    problems.push("The spread balance must be a whole number of points from -100000 to 100000.");
  if (!Number.isFinite(symbol.swapLong) || !Number.isFinite(symbol.swapShort)) problems.push("Swaps must be numbers.");
  for (const [value, label] of [
    [symbol.marginInitial, "initial margin"],
    [symbol.marginMaintenance, "maintenance margin"],
    [symbol.marginHedged, "hedged margin"],
  ] as const)
    if (!(typeof value === "number" && Number.isFinite(value) && value >= 0))
      problems.push(`The ${label} must be an amount per lot, zero or more (0: from the contract size and leverage).`);
  problems.push(...volumeProblems(symbol, platform));
  if (symbol.maxLeverage !== null && !isValidLeverage(symbol.maxLeverage))
    problems.push("The symbol's maximum leverage must be a whole number from 1 to 10000, or empty for none.");
  problems.push(...sessionProblems(symbol.sessions));
  return problems;
}

function volumeProblems(symbol: Pick<TradeSymbol, "volumeMin" | "volumeMax" | "volumeStep">, platform: TradePlatformType): string[] {
  const { volumeMin: min, volumeMax: max, volumeStep: step } = symbol;
  const named = [
    [min, "minimum volume"],
    [max, "maximum volume"],
    [step, "volume step"],
  ] as const;
  const bad = named.filter(([v]) => !isWhole(v, 1));
  if (bad.length > 0) return bad.map(([, label]) => `The ${label} must be a positive volume.`);
  const problems: string[] = [];
  if (platform !== "MT5")
    for (const [v, label] of named)
      if (v % MIN_LOT_STEP !== 0)
        problems.push(
          `The ${label} (${formatLots(v)} lot) is finer than ${platform === "MT4" ? "MetaTrader 4" : "Match-Trader"} trades: use steps of 0.01 lot.`,
        );
  if (min > max) problems.push(`The minimum volume (${formatLots(min)} lot) must not be above the maximum (${formatLots(max)} lot).`);
  if (min % step !== 0) problems.push(`The volume step (${formatLots(step)} lot) must divide the minimum volume (${formatLots(min)} lot).`);
  if (max % step !== 0) problems.push(`The volume step (${formatLots(step)} lot) must divide the maximum volume (${formatLots(max)} lot).`);
  return problems;
}

const DAY_NAMES = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

function sessionProblems(sessions: TradeSymbol["sessions"]): string[] {
  if (!Array.isArray(sessions)) return ["The sessions are a list of trading windows."];
  const problems: string[] = [];
  for (const s of sessions) {
    const valid =
      typeof s === "object" && s !== null && isWhole(s.day) && s.day <= 6 && isWhole(s.from) && isWhole(s.to) && s.from < s.to && s.to <= MINUTES_PER_DAY;
    if (!valid) {
      problems.push("Each session is a weekday (0 Sunday to 6 Saturday) with a start before its end, in minutes from 0 to 1440.");
      return problems;
    }
  }
  for (let day = 0; day < 7; day++) {
    const windows = sessions.filter((s) => s.day === day).sort((a, b) => a.from - b.from);
    for (let i = 1; i < windows.length; i++) {
      const [before, after] = [windows[i - 1], windows[i]];
      if (before && after && after.from < before.to) problems.push(`Two ${DAY_NAMES[day]} sessions overlap: one must end before the next starts.`);
    }
  }
  return problems;
}
