/**
 * Flexible Leverage's settings as the plugin keeps them: its parameters, name/value strings
 * (docs/flexible-leverage.md "The plugin's parameters"). One layout for MT4 and MT5, shaped by MT4's
 * fields (a value holds 127 characters, a plugin at most 32 parameters):
 *
 *   Managers   "1000,1001"
 *   Rules.1    the first 127 characters of the rules' text
 *   Rules.2    the next 127 …
 *
 * The rules' text is compact JSON (short keys, defaults left out, every character past ASCII
 * written \uXXXX so MT4's byte fields keep it whole), read back by joining `Rules.1`, `Rules.2` …
 * in their numbers' order. A lone `Rules` parameter (what a fresh simulated plugin holds, "[]") is
 * read too. Other parameters are the plugin's own and are kept as they are.
 */
import {
  formatManagersParameter,
  parseManagersParameter,
  type FlexibleLeverageSettings,
  type FlexibleLeverageSettingsInput,
  type RuleInput,
} from "./schema.ts";
import { FlexibleLeverageSettingsSchema } from "./schema.ts";

export interface PluginParameterLike {
  name: string;
  value: string;
}

/** What one parameter value holds on MT4 (char[128] with its terminating zero). */
export const RULES_CHUNK = 127;
/** An MT4 plugin keeps at most 32 parameters: `Managers` and 31 chunks of rules. */
export const MT4_MAX_PARAMETERS = 32;
export const MANAGERS_PARAMETER = "Managers";
export const RULES_PARAMETER = "Rules";
const CHUNK_NAME = /^Rules\.([1-9]\d{0,3})$/;

const MODE_CODES = { equity: "e", exposureLots: "l", exposureNotional: "n" } as const;
const MODES_BY_CODE: Record<string, string> = { e: "equity", l: "exposureLots", n: "exposureNotional" };

type Compact = Record<string, unknown>;

function compactRule(rule: FlexibleLeverageSettings["rules"][number]): Compact {
  const out: Compact = { n: rule.name };
  if (!rule.active) out.a = 0;
  out.g = rule.groups;
  if (rule.symbols !== "*") out.s = rule.symbols;
  out.m = MODE_CODES[rule.mode];
  if (rule.tiers.length > 0) out.t = rule.tiers.map((t) => [t.threshold, t.leverage]);
  if (rule.windows.length > 0)
    out.w = rule.windows.map((w) =>
      w.kind === "weekend"
        ? ["w", w.from.day, w.from.time, w.to.day, w.to.time, w.leverage]
        : ["n", w.date, w.time, w.durationMinutes, w.leverage, ...(w.name ? [w.name] : [])],
    );
  if (rule.maxLeverage !== null) out.x = rule.maxLeverage;
  if (!rule.countExistingPositions) out.e = 0;
  return out;
}

/** A compact rule back to the settings' shape (left for the schema to judge); a full rule object is taken as it is. */
function expandRule(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const r = value as Compact;
  if ("name" in r) return r;
  const rule: Record<string, unknown> = { name: r.n, groups: r.g, mode: typeof r.m === "string" ? (MODES_BY_CODE[r.m] ?? r.m) : r.m };
  if (r.a !== undefined) rule.active = r.a !== 0 && r.a !== false;
  if (r.s !== undefined) rule.symbols = r.s;
  const list = (v: unknown): unknown[] | null => (Array.isArray(v) ? (v as unknown[]) : null);
  const tiers = list(r.t);
  if (tiers)
    rule.tiers = tiers.map((t) => {
      const pair = list(t);
      return pair ? { threshold: pair[0], leverage: pair[1] } : t;
    });
  const windows = list(r.w);
  if (windows)
    rule.windows = windows.map((item) => {
      const w = list(item);
      if (!w) return item;
      if (w[0] === "w") return { kind: "weekend", from: { day: w[1], time: w[2] }, to: { day: w[3], time: w[4] }, leverage: w[5] };
      if (w[0] === "n") return { kind: "news", date: w[1], time: w[2], durationMinutes: w[3], leverage: w[4], name: w[5] ?? "" };
      return item;
    });
  if (r.x !== undefined) rule.maxLeverage = r.x;
  if (r.e !== undefined) rule.countExistingPositions = r.e !== 0 && r.e !== false;
  return rule;
}

const asciiOnly = (text: string) => text.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

/** The rules' text as stored: compact JSON, ASCII only. */
export function encodeRulesText(settings: FlexibleLeverageSettings): string {
  return asciiOnly(JSON.stringify(settings.rules.map(compactRule)));
}

/**
 * Settings → the plugin's parameters: `Managers`, then `Rules.1` … `Rules.N` (N ≥ 1, each at most
 * RULES_CHUNK characters); the plugin's other parameters (`others`) are kept, after them, in
 * their order. Any `Rules` or `Rules.<n>` among `others` is dropped (replaced).
 */
export function encodeSettingsParameters(settings: FlexibleLeverageSettings, others: readonly PluginParameterLike[] = []): PluginParameterLike[] {
  const text = encodeRulesText(settings);
  const chunks: PluginParameterLike[] = [];
  for (let i = 0; i === 0 || i * RULES_CHUNK < text.length; i++)
    chunks.push({ name: `${RULES_PARAMETER}.${i + 1}`, value: text.slice(i * RULES_CHUNK, (i + 1) * RULES_CHUNK) });
  const kept = others.filter((p) => !isSettingsParameter(p.name)).map((p) => ({ name: p.name, value: p.value }));
  return [{ name: MANAGERS_PARAMETER, value: formatManagersParameter(settings.managers) }, ...chunks, ...kept];
}

/** Parameters this codec owns (`Managers`, `Rules`, `Rules.<n>`). */
export function isSettingsParameter(name: string): boolean {
  return name === MANAGERS_PARAMETER || name === RULES_PARAMETER || CHUNK_NAME.test(name);
}

export type DecodedSettings =
  | { ok: true; settings: FlexibleLeverageSettings; text: string }
  | { ok: false; message: string; issues: { path: (string | number)[]; message: string }[]; text: string };

/** The rules' text as stored in `parameters` (the chunks joined in their numbers' order; a lone `Rules` otherwise). */
export function rulesTextOf(parameters: readonly PluginParameterLike[]): string {
  const chunks = parameters
    .map((p) => ({ match: CHUNK_NAME.exec(p.name), value: p.value }))
    .filter((c): c is { match: RegExpExecArray; value: string } => c.match !== null)
    .sort((a, b) => Number(a.match[1]) - Number(b.match[1]));
  if (chunks.length > 0) return chunks.map((c) => c.value).join("");
  return parameters.find((p) => p.name === RULES_PARAMETER)?.value ?? "[]";
}

/** The plugin's parameters → its settings, or why they cannot be read (a plugin configured by hand, or another version). */
export function decodeSettingsParameters(parameters: readonly PluginParameterLike[]): DecodedSettings {
  const text = rulesTextOf(parameters);
  const managers = parseManagersParameter(parameters.find((p) => p.name === MANAGERS_PARAMETER)?.value ?? "");
  let rules: unknown;
  try {
    rules = JSON.parse(text.trim() === "" ? "[]" : text);
  } catch {
    return { ok: false, message: "The plugin's Rules parameters are not JSON: Toolbox cannot read them", issues: [], text };
  }
  if (!Array.isArray(rules)) return { ok: false, message: "The plugin's Rules parameters are not a list of rules", issues: [], text };
  const input: FlexibleLeverageSettingsInput = { managers, rules: rules.map(expandRule) as RuleInput[] };
  const parsed = FlexibleLeverageSettingsSchema.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({ path: i.path.filter((p): p is string | number => typeof p !== "symbol"), message: i.message }));
    return { ok: false, message: `The plugin's rules are not valid: ${issues[0]?.message ?? "unreadable"}`, issues, text };
  }
  return { ok: true, settings: parsed.data, text };
}
