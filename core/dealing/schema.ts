/**
 * Dealing settings of one trade platform (docs/dealing.md): execution profiles, the weekly
 * schedule that switches them in the server's time zone, holidays, and a manual override with an
 * end time. One contract for the page, the API, the scheduler and the simulated servers' engine.
 * Markups are points (the symbol's smallest price step), split between bid and ask; a symbol's
 * own markup overrides its group's.
 */
import { z } from "zod";

export const WEEK_DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"] as const;
export type WeekDay = (typeof WEEK_DAYS)[number];

export const MAX_PROFILES = 20;
export const MAX_MARKUPS = 500;
export const MAX_SCHEDULE_ENTRIES = 200;
export const MAX_HOLIDAYS = 200;
export const MAX_MARKUP_POINTS = 100_000;
export const MAX_DELAY_MS = 60_000;
export const MAX_STALE_MS = 86_400_000;

const TIME_PATTERN = /^([01]\d|2[0-3]):[0-5]\d$/;
const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

export function isCalendarDate(text: string): boolean {
  const match = DATE_PATTERN.exec(text);
  if (!match) return false;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(y, m - 1, d));
  return y >= 1970 && y < 3000 && date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

const profileName = (what: string) =>
  z
    .string({ error: `${what} must be text, such as "news"` })
    .trim()
    .min(1, { error: `${what} cannot be empty` })
    .max(64, { error: `${what} is at most 64 characters` });

const points = (what: string) =>
  z
    .int({ error: `${what} must be a whole number of points, such as 20` })
    .min(0, { error: `${what} cannot be negative` })
    .max(MAX_MARKUP_POINTS, { error: `${what} can be at most ${MAX_MARKUP_POINTS.toLocaleString("en-US")} points` });

export const MarkupSchema = z.object({
  kind: z.enum(["symbol", "group"], { error: 'Markup kind must be "symbol" or "group"' }),
  /** A symbol's name ("EURUSD"), or a symbol group's path ("Forex\\Majors"; every symbol under it). */
  target: z
    .string({ error: "Markup target must be a symbol or a symbol group, such as EURUSD" })
    .trim()
    .min(1, { error: "Markup target cannot be empty" })
    .max(128, { error: "Markup target is at most 128 characters" }),
  bidPoints: points("Bid markup"),
  askPoints: points("Ask markup"),
});
export type Markup = z.infer<typeof MarkupSchema>;

const optionalLimit = (what: string, max: number, unit: string) =>
  z
    .int({ error: `${what} must be a whole number of ${unit}, or empty for none` })
    .min(0, { error: `${what} cannot be negative` })
    .max(max, { error: `${what} can be at most ${max.toLocaleString("en-US")} ${unit}` })
    .nullable();

export const ExecutionProfileSchema = z
  .object({
    name: profileName("Profile name"),
    markups: z
      .array(MarkupSchema)
      .max(MAX_MARKUPS, { error: `A profile has at most ${MAX_MARKUPS} markups` })
      .default([]),
    /** Points a market order's price may move from the price the client saw; null: no limit. */
    maxDeviationPoints: optionalLimit("Maximum deviation", MAX_MARKUP_POINTS, "points"),
    executionDelayMs: z
      .int({ error: "Execution delay must be a whole number of milliseconds" })
      .min(0, { error: "Execution delay cannot be negative" })
      .max(MAX_DELAY_MS, { error: `Execution delay can be at most ${MAX_DELAY_MS.toLocaleString("en-US")} ms` })
      .default(0),
    /** Lots; null: no limit beyond the symbol's own. */
    maxVolumeLots: z
      .number({ error: "Maximum volume per order must be a number of lots, or empty for none" })
      .positive({ error: "Maximum volume per order must be more than 0 lots" })
      .max(1_000_000, { error: "Maximum volume per order can be at most 1,000,000 lots" })
      .nullable(),
    /** A quote older than this is refused; null: never. */
    staleQuoteMs: optionalLimit("Stale-quote threshold", MAX_STALE_MS, "ms"),
  })
  .superRefine((profile, ctx) => {
    const seen = new Set<string>();
    profile.markups.forEach((m, i) => {
      const key = `${m.kind}:${m.target.toLowerCase()}`;
      if (seen.has(key))
        ctx.addIssue({
          code: "custom",
          path: ["markups", i, "target"],
          message: `${m.kind === "symbol" ? "Symbol" : "Group"} ${m.target} has two markups in profile "${profile.name}"`,
        });
      seen.add(key);
    });
  });
export type ExecutionProfile = z.infer<typeof ExecutionProfileSchema>;

export const ScheduleEntrySchema = z.object({
  day: z.enum(WEEK_DAYS, { error: "Day must be a day of the week, such as monday" }),
  time: z.string({ error: 'Time must be a time such as "21:00"' }).trim().regex(TIME_PATTERN, { error: 'Time must be from 00:00 to 23:59, such as "21:00"' }),
  profile: profileName("Scheduled profile"),
});
export type ScheduleEntry = z.infer<typeof ScheduleEntrySchema>;

export const DealingHolidaySchema = z.object({
  date: z
    .string({ error: 'Holiday date must be a date such as "2026-12-25"' })
    .trim()
    .refine(isCalendarDate, { error: 'Holiday date must be a real date such as "2026-12-25"' }),
  name: z.string({ error: "Holiday name must be text" }).trim().max(128, { error: "Holiday name is at most 128 characters" }).default(""),
  /** The profile in force all that day (server time, 00:00 to 24:00). */
  profile: profileName("Holiday profile"),
});
export type DealingHoliday = z.infer<typeof DealingHolidaySchema>;

export const DealingSettingsSchema = z
  .object({
    profiles: z
      .array(ExecutionProfileSchema)
      .min(1, { error: "Add at least one execution profile" })
      .max(MAX_PROFILES, { error: `At most ${MAX_PROFILES} execution profiles` }),
    /** In force when no schedule entry, holiday or override says otherwise. */
    defaultProfile: profileName("Default profile"),
    schedule: z
      .array(ScheduleEntrySchema)
      .max(MAX_SCHEDULE_ENTRIES, { error: `At most ${MAX_SCHEDULE_ENTRIES} schedule entries` })
      .default([]),
    holidays: z
      .array(DealingHolidaySchema)
      .max(MAX_HOLIDAYS, { error: `At most ${MAX_HOLIDAYS} holidays` })
      .default([]),
  })
  .superRefine((settings, ctx) => {
    const names = new Set<string>();
    settings.profiles.forEach((p, i) => {
      if (names.has(p.name)) ctx.addIssue({ code: "custom", path: ["profiles", i, "name"], message: `Two profiles are named "${p.name}"` });
      names.add(p.name);
    });
    const known = (name: string) => names.has(name);
    if (!known(settings.defaultProfile))
      ctx.addIssue({ code: "custom", path: ["defaultProfile"], message: `Default profile "${settings.defaultProfile}" is not one of the profiles` });
    const slots = new Set<string>();
    settings.schedule.forEach((entry, i) => {
      if (!known(entry.profile))
        ctx.addIssue({
          code: "custom",
          path: ["schedule", i, "profile"],
          message: `Schedule entry ${entry.day} ${entry.time} names no profile "${entry.profile}"`,
        });
      const slot = `${entry.day} ${entry.time}`;
      if (slots.has(slot)) ctx.addIssue({ code: "custom", path: ["schedule", i, "time"], message: `Two schedule entries switch at ${slot}` });
      slots.add(slot);
    });
    const dates = new Set<string>();
    settings.holidays.forEach((h, i) => {
      if (!known(h.profile)) ctx.addIssue({ code: "custom", path: ["holidays", i, "profile"], message: `Holiday ${h.date} names no profile "${h.profile}"` });
      if (dates.has(h.date)) ctx.addIssue({ code: "custom", path: ["holidays", i, "date"], message: `Two holidays on ${h.date}` });
      dates.add(h.date);
    });
  });
export type DealingSettings = z.infer<typeof DealingSettingsSchema>;
export type DealingSettingsInput = z.input<typeof DealingSettingsSchema>;

/** A manual override: `profile` from `from` until `until` (epoch ms). */
export interface DealingOverride {
  profile: string;
  from: number;
  until: number;
}

export const OverrideBodySchema = z.object({
  profile: profileName("Override profile"),
  until: z.iso.datetime({ offset: true, error: 'Override end must be a date and time such as "2026-11-28T18:00:00Z"' }),
});
export type OverrideBody = z.infer<typeof OverrideBodySchema>;

/** A platform starts with one profile, "normal", without markups or limits. */
export function defaultDealingSettings(): DealingSettings {
  return {
    profiles: [{ name: "normal", markups: [], maxDeviationPoints: null, executionDelayMs: 0, maxVolumeLots: null, staleQuoteMs: null }],
    defaultProfile: "normal",
    schedule: [],
    holidays: [],
  };
}

const ReasonSchema = z.object({ kind: z.enum(["override", "holiday", "schedule", "default"]), text: z.string() });

export const ActiveProfileViewSchema = z.object({
  profile: z.string(),
  reason: ReasonSchema,
  /** ISO instants. */
  since: z.string().nullable(),
  next: z.object({ at: z.string(), profile: z.string(), reason: ReasonSchema }).nullable(),
});
export type ActiveProfileView = z.infer<typeof ActiveProfileViewSchema>;

const WrittenObjectSchema = z.object({
  kind: z.literal("symbol"),
  name: z.string(),
  before: z.record(z.string(), z.number()),
  after: z.record(z.string(), z.number()),
});

/** How the profile in force reaches the platform's server (docs/dealing.md "Real servers"). */
export const ServerWritesViewSchema = z.object({
  /** engine: a simulated server's engine obeys every setting; configuration: written to the server's symbols at each switch. */
  appliedBy: z.enum(["engine", "configuration"]),
  /** The settings this platform type cannot take, and why (empty for simulated servers). */
  cannotTake: z.array(z.object({ setting: z.string(), reason: z.string() })),
  /** The last write to a real server: its profile, when, how it ended, what changed. */
  last: z
    .object({
      profile: z.string(),
      at: z.string().nullable(),
      status: z.enum(["writing", "applied", "refused", "failed"]),
      message: z.string().nullable(),
      objects: z.array(WrittenObjectSchema),
      skipped: z.array(z.object({ name: z.string(), message: z.string() })),
      notTaken: z.array(z.object({ setting: z.string(), reason: z.string() })),
    })
    .nullable(),
});
export type ServerWritesView = z.infer<typeof ServerWritesViewSchema>;

export const DealingViewSchema = z.object({
  platformId: z.string(),
  /** The server's IANA time zone: the schedule's and holidays' clock. */
  timeZone: z.string(),
  settings: DealingSettingsSchema,
  override: z.object({ profile: z.string(), from: z.string(), until: z.string() }).nullable(),
  active: ActiveProfileViewSchema,
  updatedAt: z.string().nullable(),
  serverWrites: ServerWritesViewSchema.optional(),
});
export type DealingView = z.infer<typeof DealingViewSchema>;
