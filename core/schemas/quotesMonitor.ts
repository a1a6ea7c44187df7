/**
 * The Quotes Monitor's contract, once (docs/quotes-monitor.md): the live rows the stream sends
 * (server/modules/quotesMonitor/, GET /api/quotesMonitor/live) and the screen shows
 * (app/features/quotes-monitor/), a symbol's last hour for its chart, and the organization's alert
 * rules (GET/POST/PUT/DELETE /api/quotesMonitor/alert-rules) with the messages the API and the
 * form share.
 */
import { z } from "zod";
import type { SessionState } from "../trading/symbol.ts";
import { NOTIFICATION_SEVERITIES } from "../notifications.ts";

export const ALERT_KINDS = ["staleFeed", "spread", "crossServer"] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

export const ALERT_KIND_LABELS: Record<AlertKind, string> = {
  staleFeed: "Stale feed",
  spread: "Wide spread",
  crossServer: "Cross-server difference",
};

const SESSION_STATES = ["open", "closed", "holiday"] as const satisfies readonly SessionState[];

/** One (platform, symbol) of the monitor, as the live stream sends it. Prices as the platform quotes them. */
export const QuoteRowSchema = z
  .object({
    key: z.string().meta({ description: "`${platformId}:${symbol}`" }),
    platformId: z.string(),
    symbol: z.string(),
    path: z.string().meta({ description: 'The symbol\'s group path, e.g. "Forex\\Majors"' }),
    digits: z.number(),
    bid: z.number().nullable(),
    ask: z.number().nullable(),
    spread: z.number().nullable().meta({ description: "Spread now, in points" }),
    avgSpreadMinute: z.number().nullable().meta({ description: "Average spread in points over the last minute (ticks seen by this node)" }),
    avgSpreadHour: z.number().nullable().meta({ description: "Average spread in points over the last hour" }),
    ticksPerMinute: z.number(),
    lastTickAt: z.number().nullable().meta({ description: "The last tick's time (ms since the epoch, UTC), null when none was seen" }),
    session: z.enum(SESSION_STATES),
    alerts: z.array(z.enum(ALERT_KINDS)).meta({ description: "The alerts raised now on this row" }),
  })
  .meta({ description: "One (platform, symbol) of the monitor" });
export type QuoteRow = z.infer<typeof QuoteRowSchema>;

export const QuotePlatformSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  /** Why its quotes do not arrive (not connected, the connector cannot stream quotes yet); null when they do. */
  problem: z.string().nullable(),
});
export type QuotePlatform = z.infer<typeof QuotePlatformSchema>;

/**
 * A row's price moved since the stream last sent it: `[key, bid, ask, spread (points), lastTickAt]`.
 * The live stream's frames carry these instead of whole rows when only the price changed.
 */
export type QuoteTick = [key: string, bid: number, ask: number, spread: number | null, lastTickAt: number];

/** A row's figures changed (about once a second): `[key, ticksPerMinute, avgSpreadMinute, avgSpreadHour]`. */
export type QuoteFigures = [key: string, ticksPerMinute: number, avgSpreadMinute: number | null, avgSpreadHour: number | null];

/**
 * A frame of the live stream: `snapshot` replaces everything (every row, no ticks); a `frame`
 * updates the rows it names, whole (`rows`: new to the stream, or their session or alerts changed),
 * their price (`ticks`), or their figures (`figures`).
 */
export const QuoteFrameSchema = z
  .object({
    now: z.number().meta({ description: 'The server\'s time when it was sent (ms): "time without ticks" is counted from it' }),
    rows: z.array(QuoteRowSchema),
    ticks: z
      .array(z.tuple([z.string(), z.number(), z.number(), z.number().nullable(), z.number()]))
      .optional()
      .meta({ description: "[key, bid, ask, spread, lastTickAt] of rows whose price alone moved (live frames only)" }),
    figures: z
      .array(z.tuple([z.string(), z.number(), z.number().nullable(), z.number().nullable()]))
      .optional()
      .meta({ description: "[key, ticksPerMinute, avgSpreadMinute, avgSpreadHour] of rows whose figures changed (live frames only)" }),
    platforms: z.array(QuotePlatformSchema).optional(),
  })
  .meta({ description: "The monitor's rows: the snapshot, or a live frame's changes" });
export type QuoteFrame = z.infer<typeof QuoteFrameSchema>;

/** One 10-second slice of a symbol's last hour (GET /api/quotesMonitor/history). */
export interface QuoteHistoryPoint {
  time: number;
  ticks: number;
  bid: number | null;
  ask: number | null;
  /** Average and widest spread of the slice, in points. */
  avgSpread: number | null;
  maxSpread: number | null;
}

/** A row is a problem when an alert is raised on it or its market is open but the feed is silent. */
export function isProblemRow(row: QuoteRow): boolean {
  return row.alerts.length > 0;
}

// ── Alert rules ─────────────────────────────────────────────────────────────────────────────

export const ALERT_RULES_MAX = 100;
export const ALERT_RULE_NAME_MAX = 100;
export const SYMBOL_MASK_MAX = 500;

const Name = z
  .string({ error: "name must be text" })
  .trim()
  .min(1, "Give the rule a name")
  .max(ALERT_RULE_NAME_MAX, `A rule's name has at most ${ALERT_RULE_NAME_MAX} characters`);

const SymbolMask = z
  .string({ error: "symbolMask must be text" })
  .trim()
  .min(1, "symbolMask must not be empty: * is every symbol")
  .max(SYMBOL_MASK_MAX, `symbolMask has at most ${SYMBOL_MASK_MAX} characters`)
  .regex(/^[^\s]+$/, "symbolMask is a comma-separated list of names and wildcards without spaces, such as EUR*,!EURGBP")
  .default("*");

const Platforms = z
  .union(
    [
      z.literal("all"),
      z
        .array(z.uuid({ error: "platformIds must be platform ids" }), { error: 'platformIds must be "all" or a list of platform ids' })
        .min(1, "Pick at least one platform")
        .max(100),
    ],
    {
      error: 'platformIds must be "all" or a list of platform ids',
    },
  )
  .default("all");

const positive = (field: string, max: number, unit: string) =>
  z
    .number({ error: `${field} must be a number` })
    .positive(`${field} must be more than 0`)
    .max(max, `${field} is at most ${max} ${unit}`);

const common = {
  name: Name,
  enabled: z.boolean({ error: "enabled must be true or false" }).default(true),
  platformIds: Platforms,
  symbolMask: SymbolMask,
  severity: z.enum(NOTIFICATION_SEVERITIES, { error: "severity must be info, warning or error" }).default("warning"),
  cooldownSeconds: z
    .number({ error: "cooldownSeconds must be a number" })
    .int("cooldownSeconds must be a whole number of seconds")
    .min(0, "cooldownSeconds is at least 0")
    .max(86_400, "cooldownSeconds is at most 86400 (a day)")
    .default(300),
};

export const StaleFeedRuleSchema = z
  .object({
    kind: z.literal("staleFeed"),
    ...common,
    /** No tick for this long while the symbol's session is open. */
    staleSeconds: z
      .number({ error: "staleSeconds must be a number" })
      .int("staleSeconds must be a whole number of seconds")
      .min(1, "staleSeconds is at least 1")
      .max(86_400, "staleSeconds is at most 86400 (a day)"),
  })
  .strict();

export const SpreadRuleSchema = z
  .object({
    kind: z.literal("spread"),
    ...common,
    /** Spread above this many points. */
    spreadPoints: positive("spreadPoints", 1_000_000, "points").nullable().default(null),
    /** Spread above this many times its average over the last hour. */
    spreadTimesAverage: z
      .number({ error: "spreadTimesAverage must be a number" })
      .gt(1, "spreadTimesAverage must be more than 1 (times the average)")
      .max(1000, "spreadTimesAverage is at most 1000")
      .nullable()
      .default(null),
  })
  .strict()
  .refine((r) => r.spreadPoints !== null || r.spreadTimesAverage !== null, {
    message: "Give spreadPoints, spreadTimesAverage or both",
    path: ["spreadPoints"],
  });

export const CrossServerRuleSchema = z
  .object({
    kind: z.literal("crossServer"),
    ...common,
    /** The same symbol's mid price differs between two platforms by more than this many points. */
    differencePoints: positive("differencePoints", 1_000_000, "points"),
  })
  .strict();

/** What a client sends to create or replace a rule. */
export const AlertRuleInputSchema = z.discriminatedUnion("kind", [StaleFeedRuleSchema, SpreadRuleSchema, CrossServerRuleSchema], {
  error: "kind must be staleFeed, spread or crossServer",
});
export type AlertRuleInput = z.infer<typeof AlertRuleInputSchema>;
export type AlertRule = AlertRuleInput & { id: string; createdAt: string; updatedAt: string };

/** The thresholds of a rule (what is kept in its `settings`), by kind. */
export function thresholdsOf(rule: AlertRuleInput): Record<string, number | null> {
  switch (rule.kind) {
    case "staleFeed":
      return { staleSeconds: rule.staleSeconds };
    case "spread":
      return { spreadPoints: rule.spreadPoints, spreadTimesAverage: rule.spreadTimesAverage };
    case "crossServer":
      return { differencePoints: rule.differencePoints };
  }
}
