/**
 * Flexible Leverage's settings (docs/flexible-leverage.md): the plugin's `Managers` parameter and
 * an ordered list of rules. One contract for the editor, the API, the simulated servers' plugin and
 * Toolbox's own engine. Thresholds are written as the risk manager types them: equity and notional
 * in the account's currency (50000 = 50,000.00), exposure in lots (2.5). Times are the server's
 * wall clock (its IANA time zone is given when the rules are compiled, not stored in them).
 */
import { z } from "zod";
import { LoginSchema } from "../schemas/accounts.ts";
import { MAX_LEVERAGE, MIN_LEVERAGE } from "../trading/account.ts";

export const LEVERAGE_MODES = ["equity", "exposureLots", "exposureNotional"] as const;
export type LeverageMode = (typeof LEVERAGE_MODES)[number];

/** ISO order: Monday is 1, Sunday 7. */
export const WEEK_DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"] as const;
export type WeekDay = (typeof WEEK_DAYS)[number];

export const MAX_RULES = 200;
export const MAX_TIERS = 50;
export const MAX_WINDOWS = 50;
export const MAX_MANAGERS = 100;
/** Far above any account (MAX_ACCOUNT_MONEY is 1e12 in currency units) or any book in lots. */
export const MAX_THRESHOLD = 1_000_000_000_000;
/** A news window lasts at most a week. */
export const MAX_WINDOW_MINUTES = 7 * 24 * 60;

const TIME_PATTERN = /^([01]\d|2[0-3]):[0-5]\d$/;
const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

const thresholdText = (value: number) => value.toLocaleString("en-US", { maximumFractionDigits: 2 });

const leverage = (what: string) =>
  z
    .int({ error: `${what} must be a whole number, such as 100 for 1:100` })
    .min(MIN_LEVERAGE, { error: `${what} must be at least 1 (1:1)` })
    .max(MAX_LEVERAGE, { error: `${what} can be at most ${MAX_LEVERAGE.toLocaleString("en-US")} (1:${MAX_LEVERAGE})` });

const timeOfDay = (what: string) =>
  z
    .string({ error: `${what} must be a time such as "21:00"` })
    .trim()
    .regex(TIME_PATTERN, { error: `${what} must be a time from 00:00 to 23:59, such as "21:00"` });

function isCalendarDate(text: string): boolean {
  const match = DATE_PATTERN.exec(text);
  if (!match) return false;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(y, m - 1, d));
  return y >= 1970 && date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

const mask = (what: string, every: string) =>
  z
    .string({ error: `${what} must be text, such as "real*,!real\\demo*"` })
    .trim()
    .min(1, { error: `${what} cannot be empty: write * for every ${every}` })
    .max(1024, { error: `${what} is at most 1,024 characters` });

export const TierSchema = z.object(
  {
    threshold: z
      .number({ error: "A tier's threshold must be a number" })
      .min(0, { error: "A tier's threshold cannot be negative" })
      .max(MAX_THRESHOLD, { error: `A tier's threshold can be at most ${thresholdText(MAX_THRESHOLD)}` })
      .refine((v) => Math.abs(v * 100 - Math.round(v * 100)) < 1e-6, { error: "A tier's threshold has at most 2 decimals" }),
    leverage: leverage("A tier's leverage"),
  },
  { error: "A tier is a threshold and a leverage" },
);
export type Tier = z.infer<typeof TierSchema>;

export const WeekdayTimeSchema = z.object(
  {
    day: z.enum(WEEK_DAYS, { error: "The day must be one of monday, tuesday, wednesday, thursday, friday, saturday or sunday" }),
    time: timeOfDay("The time"),
  },
  { error: "A weekly time is a day and a time" },
);
export type WeekdayTime = z.infer<typeof WeekdayTimeSchema>;

export const WeekendWindowSchema = z
  .object({
    kind: z.literal("weekend"),
    from: WeekdayTimeSchema,
    to: WeekdayTimeSchema,
    leverage: leverage("The window's leverage"),
  })
  .refine((w) => w.from.day !== w.to.day || w.from.time !== w.to.time, {
    error: "A weekend window must end at another time than it starts",
    path: ["to"],
  })
  .meta({ description: "Every week from a day and time to a day and time of the server's clock (it may run over Sunday into Monday)" });
export type WeekendWindow = z.infer<typeof WeekendWindowSchema>;

export const NewsWindowSchema = z
  .object({
    kind: z.literal("news"),
    name: z.string().trim().max(64, { error: "A news window's name is at most 64 characters" }).default(""),
    date: z
      .string({ error: 'The date must be written as "2026-12-04"' })
      .trim()
      .refine(isCalendarDate, { error: 'The date must be a calendar date written as "2026-12-04"' }),
    time: timeOfDay("The news time"),
    durationMinutes: z
      .int({ error: "The duration must be whole minutes" })
      .min(1, { error: "The duration must be at least 1 minute" })
      .max(MAX_WINDOW_MINUTES, { error: `The duration can be at most ${MAX_WINDOW_MINUTES.toLocaleString("en-US")} minutes (a week)` }),
    leverage: leverage("The window's leverage"),
  })
  .meta({ description: "Once, from a date and time of the server's clock, for a number of minutes" });
export type NewsWindow = z.infer<typeof NewsWindowSchema>;

export const TimeWindowSchema = z.discriminatedUnion("kind", [WeekendWindowSchema, NewsWindowSchema], {
  error: "A time window is a weekend window or a news window",
});
export type TimeWindow = z.infer<typeof TimeWindowSchema>;

export const RuleSchema = z
  .object({
    name: z
      .string({ error: "A rule needs a name" })
      .trim()
      .min(1, { error: "A rule needs a name" })
      .max(64, { error: "A rule's name is at most 64 characters" }),
    active: z.boolean({ error: "Active must be true or false" }).default(true),
    groups: mask("The group mask", "group").meta({ description: 'Group mask: "*" any run of characters, "!" excludes (exclusions first), comma-separated' }),
    symbols: mask("The symbol mask", "symbol")
      .default("*")
      .meta({ description: 'Symbol mask; a pattern with "\\" is matched against the MT5 path ("Forex\\*"), one without against the name' }),
    mode: z
      .enum(LEVERAGE_MODES, { error: "The mode must be equity, exposureLots or exposureNotional" })
      .meta({ description: "What the tiers' thresholds are: the equity, the open lots, or the open notional in the account's currency" }),
    tiers: z
      .array(TierSchema, { error: "The tiers must be a list" })
      .max(MAX_TIERS, { error: `A rule has at most ${MAX_TIERS} tiers` })
      .default([])
      .meta({ description: "The ladder, thresholds strictly ascending: the highest tier whose threshold ≤ the value gives the leverage" }),
    windows: z
      .array(TimeWindowSchema, { error: "The time windows must be a list" })
      .max(MAX_WINDOWS, { error: `A rule has at most ${MAX_WINDOWS} time windows` })
      .default([])
      .meta({ description: "While one is open, the first open window's leverage applies instead of the tiers" }),
    /** null: no cap of the rule's own (the group's default leverage still caps). */
    maxLeverage: leverage("The maximum leverage")
      .nullable()
      .default(null)
      .meta({ description: "The rule's cap; null for none (the group's default leverage still caps)" }),
    /** Whether positions opened before the rules changed count (for the exposure, and for holding a symbol). */
    countExistingPositions: z
      .boolean({ error: "Count existing positions must be true or false" })
      .default(true)
      .meta({ description: "Whether positions opened before the rules changed count for the exposure and for holding a symbol" }),
  })
  .superRefine((rule, ctx) => {
    for (let i = 1; i < rule.tiers.length; i++) {
      const [previous, tier] = [rule.tiers[i - 1]!, rule.tiers[i]!];
      if (!(tier.threshold > previous.threshold)) {
        ctx.addIssue({
          code: "custom",
          path: ["tiers", i, "threshold"],
          message: `Tier ${i + 1}'s threshold (${thresholdText(tier.threshold)}) must be above tier ${i}'s (${thresholdText(previous.threshold)}): thresholds go strictly up`,
        });
      }
    }
    if (rule.tiers.length === 0 && rule.windows.length === 0) {
      ctx.addIssue({ code: "custom", path: ["tiers"], message: `Rule '${rule.name}' needs at least one tier or one time window` });
    }
  });
export type Rule = z.infer<typeof RuleSchema>;
export type RuleInput = z.input<typeof RuleSchema>;

export const FlexibleLeverageSettingsSchema = z
  .object({
    /** The plugin's `Managers` parameter: the manager logins allowed to change these settings. */
    managers: z
      .array(LoginSchema, { error: "The managers must be a list of logins" })
      .max(MAX_MANAGERS, { error: `At most ${MAX_MANAGERS} managers` })
      .default([])
      .meta({ description: "The plugin's Managers parameter: the manager logins allowed to change these settings" }),
    rules: z
      .array(RuleSchema, { error: "The rules must be a list" })
      .max(MAX_RULES, { error: `At most ${MAX_RULES} rules` })
      .default([]),
  })
  .superRefine((settings, ctx) => {
    const seen = new Map<string, number>();
    settings.rules.forEach((rule, i) => {
      const key = rule.name.toLowerCase();
      const first = seen.get(key);
      if (first !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["rules", i, "name"],
          message: `Rules ${first + 1} and ${i + 1} are both named '${rule.name}': a rule's name is unique`,
        });
      } else seen.set(key, i);
    });
    const managers = new Set<string>();
    settings.managers.forEach((login, i) => {
      if (managers.has(login)) ctx.addIssue({ code: "custom", path: ["managers", i], message: `Manager ${login} is listed twice` });
      managers.add(login);
    });
  });
export type FlexibleLeverageSettings = z.infer<typeof FlexibleLeverageSettingsSchema>;
export type FlexibleLeverageSettingsInput = z.input<typeof FlexibleLeverageSettingsSchema>;

/** The plugin's `Managers` parameter as the platform holds it ("1000, 1001;1002") → logins. */
export function parseManagersParameter(text: string): string[] {
  const logins = text
    .split(/[,;\s]+/)
    .map((part) => part.trim())
    .filter(Boolean);
  return [...new Set(logins)];
}

/** Logins → the `Managers` parameter's text ("1000,1001"). */
export function formatManagersParameter(logins: readonly string[]): string {
  return logins.join(",");
}
