/**
 * The editor's draft of Flexible Leverage settings: what the form holds (numbers as typed, so
 * "50000." or an empty cell can be on screen), turned into the API's settings for validation with
 * the engine's own schema (core/flexibleLeverage/schema.ts) and for the preview and the save.
 */
import {
  FlexibleLeverageSettingsSchema,
  type FlexibleLeverageSettings,
  type FlexibleLeverageSettingsInput,
  type LeverageMode,
  type WeekDay,
} from "@core/flexibleLeverage/index";

export interface DraftTier {
  threshold: string;
  leverage: string;
}

export type DraftWindow =
  | { kind: "weekend"; fromDay: WeekDay; fromTime: string; toDay: WeekDay; toTime: string; leverage: string }
  | { kind: "news"; name: string; date: string; time: string; duration: string; leverage: string };

export interface DraftRule {
  /** Stable across reorders (React keys). */
  key: string;
  name: string;
  active: boolean;
  groups: string;
  symbols: string;
  mode: LeverageMode;
  tiers: DraftTier[];
  windows: DraftWindow[];
  maxLeverage: string;
  countExistingPositions: boolean;
}

export interface Draft {
  managers: string;
  rules: DraftRule[];
}

let nextKey = 1;
export const newKey = () => `rule-${nextKey++}`;

const text = (value: number | null | undefined) => (value === null || value === undefined ? "" : String(value));

export function draftOf(settings: FlexibleLeverageSettings): Draft {
  return {
    managers: settings.managers.join(", "),
    rules: settings.rules.map((r) => ({
      key: newKey(),
      name: r.name,
      active: r.active,
      groups: r.groups,
      symbols: r.symbols,
      mode: r.mode,
      tiers: r.tiers.map((t) => ({ threshold: text(t.threshold), leverage: text(t.leverage) })),
      windows: r.windows.map((w) =>
        w.kind === "weekend"
          ? { kind: "weekend", fromDay: w.from.day, fromTime: w.from.time, toDay: w.to.day, toTime: w.to.time, leverage: text(w.leverage) }
          : { kind: "news", name: w.name, date: w.date, time: w.time, duration: text(w.durationMinutes), leverage: text(w.leverage) },
      ),
      maxLeverage: text(r.maxLeverage),
      countExistingPositions: r.countExistingPositions,
    })),
  };
}

export function newRule(index: number): DraftRule {
  return {
    key: newKey(),
    name: `Rule ${index + 1}`,
    active: true,
    groups: "*",
    symbols: "*",
    mode: "equity",
    tiers: [{ threshold: "0", leverage: "100" }],
    windows: [],
    maxLeverage: "",
    countExistingPositions: true,
  };
}

/** A number as typed: empty is left out (the schema names what is missing), anything else is Number() (NaN is refused). */
const num = (value: string): number | undefined => (value.trim() === "" ? undefined : Number(value.replace(/[\s,_]/g, "")));

export function settingsOf(draft: Draft): FlexibleLeverageSettingsInput {
  return {
    managers: draft.managers
      .split(/[,;\s]+/)
      .map((m) => m.trim())
      .filter(Boolean),
    rules: draft.rules.map((r) => ({
      name: r.name,
      active: r.active,
      groups: r.groups,
      symbols: r.symbols,
      mode: r.mode,
      tiers: r.tiers.map((t) => ({ threshold: num(t.threshold) as number, leverage: num(t.leverage) as number })),
      windows: r.windows.map((w) =>
        w.kind === "weekend"
          ? { kind: "weekend" as const, from: { day: w.fromDay, time: w.fromTime }, to: { day: w.toDay, time: w.toTime }, leverage: num(w.leverage) as number }
          : {
              kind: "news" as const,
              name: w.name,
              date: w.date,
              time: w.time,
              durationMinutes: num(w.duration) as number,
              leverage: num(w.leverage) as number,
            },
      ),
      maxLeverage: r.maxLeverage.trim() === "" ? null : (num(r.maxLeverage) as number),
      countExistingPositions: r.countExistingPositions,
    })),
  };
}

export type Problems = Map<string, string>;
export const pathKey = (path: readonly PropertyKey[]) => path.map(String).join(".");

/** The settings when valid, and every problem by its path ("rules.0.tiers.1.threshold"). */
export function validate(draft: Draft): { settings: FlexibleLeverageSettings | null; problems: Problems } {
  const parsed = FlexibleLeverageSettingsSchema.safeParse(settingsOf(draft));
  if (parsed.success) return { settings: parsed.data, problems: new Map() };
  const problems: Problems = new Map();
  for (const issue of parsed.error.issues) {
    const key = pathKey(issue.path);
    if (!problems.has(key)) problems.set(key, issue.message);
  }
  return { settings: null, problems };
}

/** Problems of one rule (any path under rules.i). */
export function ruleHasProblem(problems: Problems, index: number): boolean {
  const prefix = `rules.${index}`;
  for (const key of problems.keys()) if (key === prefix || key.startsWith(`${prefix}.`)) return true;
  return false;
}

export function move<T>(list: readonly T[], from: number, to: number): T[] {
  if (to < 0 || to >= list.length) return [...list];
  const copy = [...list];
  const [item] = copy.splice(from, 1);
  copy.splice(to, 0, item as T);
  return copy;
}
