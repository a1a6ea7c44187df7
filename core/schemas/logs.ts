/**
 * The /logs screen's API (docs/logs.md): the organization's audit log (filtered, sorted by time,
 * offset paged, exported as CSV), each platform's server journal, and the retention setting.
 */
import { z } from "zod";
import { JOURNAL_LEVELS } from "../trading/journal.ts";
import { optionalQuery } from "./query.ts";

const IsoTime = (name: string) => z.iso.datetime({ offset: true, error: `${name} must be an ISO 8601 date and time, e.g. 2026-01-31T09:00:00Z` });
const FilterText = (name: string) => z.string().trim().max(200, `${name} is at most 200 characters`);

/**
 * The longest range the audit log is read over at once (a year, leap day included): from `from`
 * to `to`, or to now when `to` is open. Without `from` the log is read from its oldest record.
 */
export const AUDIT_MAX_RANGE_DAYS = 366;
const DAY_MS = 86_400_000;
/** Why a range is too long for the audit log, in a person's words; null when it is not. */
export function auditRangeTooLong(from: string | undefined, to: string | undefined, now = Date.now()): string | null {
  if (!from) return null;
  const end = to ? Date.parse(to) : now;
  return end - Date.parse(from) > AUDIT_MAX_RANGE_DAYS * DAY_MS
    ? `The range is at most ${AUDIT_MAX_RANGE_DAYS} days: choose a later From or an earlier To, or export a year at a time.`
    : null;
}

export const AuditFiltersSchema = z
  .object({
    from: optionalQuery(IsoTime("from")),
    to: optionalQuery(IsoTime("to")),
    /** The actor's name or e-mail (contains), or their exact subject. */
    actor: optionalQuery(FilterText("actor")),
    /** Any part of an action (case-insensitive): `tradePlatform` finds every `tradePlatform.*`, `balance` every balance operation. */
    action: optionalQuery(FilterText("action")),
    /** The target's type or id (contains). */
    target: optionalQuery(FilterText("target")),
    /** Free text: action, actor, target, source address, before and after. */
    q: optionalQuery(FilterText("q")),
    sort: optionalQuery(z.enum(["asc", "desc"], { error: "sort must be asc (oldest first) or desc (newest first)" })).default("desc"),
  })
  .refine((f) => !f.from || !f.to || Date.parse(f.from) <= Date.parse(f.to), { message: "from must not be after to", path: ["from"] })
  .superRefine((f, ctx) => {
    const problem = auditRangeTooLong(f.from, f.to);
    if (problem) ctx.addIssue({ code: "custom", message: problem, path: [] });
  });
export type AuditFilters = z.output<typeof AuditFiltersSchema>;

export const AuditQuerySchema = z.intersection(
  AuditFiltersSchema,
  z.object({
    limit: z.coerce.number({ error: "limit must be a number" }).int().min(1, "limit is at least 1").max(500, "limit is at most 500").default(100),
    offset: z.coerce
      .number({ error: "offset must be a number" })
      .int()
      .min(0, "offset is at least 0")
      .max(1_000_000, "offset is at most 1000000; narrow the filters instead")
      .default(0),
  }),
);
export type AuditQuery = z.output<typeof AuditQuerySchema>;

export const AuditEventSchema = z.object({
  id: z.string(),
  at: z.string(),
  actorSub: z.string(),
  actorName: z.string().nullable(),
  action: z.string(),
  targetType: z.string(),
  targetId: z.string(),
  /** What the target is called now (a platform's or customer's name, a member's name, "platform · login" for an account); null when it no longer exists. */
  targetName: z.string().nullable(),
  before: z.unknown(),
  after: z.unknown(),
  sourceIp: z.string().nullable(),
});
export type AuditEvent = z.infer<typeof AuditEventSchema>;

export const AuditPageSchema = z.object({
  items: z.array(AuditEventSchema),
  total: z.number().int().meta({ description: "The matching rows, counted up to 10,000 past the offset (see totalCapped)" }),
  totalCapped: z.boolean().meta({ description: "true when more rows match than were counted: total is then a lower bound" }),
});
export type AuditPage = z.infer<typeof AuditPageSchema>;

export const AUDIT_CSV_COLUMNS = [
  ["at", "Time"],
  ["actorName", "Actor"],
  ["actorSub", "Actor id"],
  ["action", "Action"],
  ["targetType", "Target type"],
  ["targetId", "Target"],
  ["targetName", "Target name"],
  ["sourceIp", "Source IP"],
  ["before", "Before"],
  ["after", "After"],
] as const satisfies readonly (readonly [keyof AuditEvent, string])[];

const Levels = z.preprocess(
  (v) => (typeof v === "string" ? v.split(",").filter((s) => s.trim() !== "") : v),
  z.array(z.enum(JOURNAL_LEVELS as [string, ...string[]], { error: `levels are ${JOURNAL_LEVELS.join(", ")}` })).max(JOURNAL_LEVELS.length),
);

export const JournalFiltersSchema = z.object({
  platformId: z.uuid({ error: "platformId must be a trade platform's id" }),
  levels: optionalQuery(Levels),
  /** Case-insensitive substring of the message. */
  text: optionalQuery(FilterText("text")),
  login: optionalQuery(z.string().trim().max(32, "login is at most 32 characters")),
});

export const JournalQuerySchema = JournalFiltersSchema.extend({
  from: optionalQuery(IsoTime("from")),
  to: optionalQuery(IsoTime("to")),
  limit: z.coerce.number({ error: "limit must be a number" }).int().min(1, "limit is at least 1").max(1000, "limit is at most 1000").default(500),
}).refine((f) => !f.from || !f.to || Date.parse(f.from) <= Date.parse(f.to), { message: "from must not be after to", path: ["from"] });
export type JournalQueryInput = z.output<typeof JournalQuerySchema>;

export const JournalTailQuerySchema = JournalFiltersSchema.extend({
  /** Entries after this time (the newest the client holds); from now on without it. */
  since: optionalQuery(IsoTime("since")),
});

export const JournalEntrySchema = z.object({
  id: z.string(),
  time: z.string(),
  level: z.enum(JOURNAL_LEVELS as [string, ...string[]]),
  sourceIp: z.string().nullable(),
  login: z.string().nullable(),
  message: z.string(),
});
export type JournalEntryView = z.infer<typeof JournalEntrySchema>;

export const JournalPageSchema = z.object({
  /** Newest first. */
  items: z.array(JournalEntrySchema),
  /** More entries matched than `limit`: narrow the time range or the filters. */
  truncated: z.boolean(),
});
export type JournalPage = z.infer<typeof JournalPageSchema>;

export const LogSettingsSchema = z
  .object({
    auditRetentionDays: z
      .number({ error: "auditRetentionDays must be a number of days" })
      .int("auditRetentionDays must be a whole number of days")
      .min(30, "audit records are kept at least 30 days")
      .max(3650, "audit records are kept at most 3650 days (10 years)"),
  })
  .strict();
export type LogSettings = z.infer<typeof LogSettingsSchema>;
