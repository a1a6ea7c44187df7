/**
 * The Trades Copier's status (GET /api/tradesCopier/status, …/status/events, …/status/divergence;
 * docs/trades-copier.md "Status"): each link and follower's state, today's counts and the latency
 * of each stage, read from the copier's ledger (copy_ledger), and the divergence between the
 * source's open positions and the follower's copies. Times as ISO strings, latencies in
 * milliseconds, lots as text.
 */
import { z } from "zod";
import { AccountRefSchema } from "./copier.ts";

export const FOLLOWER_STATES = ["running", "paused", "closeOnly", "failing", "suspended"] as const;
export type FollowerState = (typeof FOLLOWER_STATES)[number];

/** p50 and p99 (nearest rank) of one stage over the copies of the last 24 hours; null without any. */
export const StageLatencySchema = z.object({
  count: z.number().int(),
  p50: z.number().nullable(),
  p99: z.number().nullable(),
});
export type StageLatency = z.infer<typeof StageLatencySchema>;

export const LatencySchema = z.object({
  /** received_at − source_time: the source's event to the engine. */
  eventToEngine: StageLatencySchema,
  /** decided_at − received_at: the engine's decision. */
  decision: StageLatencySchema,
  /** acked_at − sent_at: the follower's platform, send to acknowledgement. */
  sendToAck: StageLatencySchema,
  /** acked_at − source_time: the whole copy. */
  total: StageLatencySchema,
});
export type Latency = z.infer<typeof LatencySchema>;

export const FollowerStatusSchema = z.object({
  account: AccountRefSchema,
  platformName: z.string(),
  enabled: z.boolean(),
  state: z.enum(FOLLOWER_STATES),
  /** Why, in words: the failed copy's reason, the risk stop that suspended it, what is disabled. */
  stateReason: z.string().nullable(),
  /** When a risk stop suspended it, and when that lifts by itself (null: when a member resumes it); null when not suspended. */
  suspendedAt: z.string().nullable(),
  suspendedUntil: z.string().nullable(),
  lastCopyAt: z.string().nullable(),
  copiesToday: z.number().int(),
  failedToday: z.number().int(),
  skippedToday: z.number().int(),
  /** Recorded and not yet answered by the platform (being sent, or waiting for a retry). */
  pending: z.number().int(),
  latency: LatencySchema,
});
export type FollowerStatus = z.infer<typeof FollowerStatusSchema>;

export const LatencyPointSchema = z.object({
  /** The bucket's start (every `bucketSeconds`); buckets without copies are left out. */
  at: z.string(),
  copies: z.number().int(),
  /** Of the whole copy (source event → acknowledgement), in ms. */
  p50: z.number(),
  p99: z.number(),
});
export type LatencyPoint = z.infer<typeof LatencyPointSchema>;

export const LinkStatusSchema = z.object({
  id: z.string(),
  name: z.string(),
  enabled: z.boolean(),
  source: AccountRefSchema.extend({ platformName: z.string() }),
  followers: z.array(FollowerStatusSchema),
  latency: LatencySchema,
  series: z.array(LatencyPointSchema),
});
export type LinkStatus = z.infer<typeof LinkStatusSchema>;

export const CopierTotalsSchema = z.object({
  links: z.number().int(),
  followers: z.number().int(),
  copiesToday: z.number().int(),
  failedToday: z.number().int(),
  /** p99 of the whole copy over the last 24 hours, in ms; null without copies. */
  p99: z.number().nullable(),
});
export type CopierTotals = z.infer<typeof CopierTotalsSchema>;

export const CopierStatusSchema = z.object({
  asOf: z.string(),
  /** Today's start in the organization's time zone (copies, failed and skipped "today"). */
  dayStart: z.string(),
  timeZone: z.string(),
  /** Latencies and the series cover [since, asOf): the last 24 hours. */
  since: z.string(),
  bucketSeconds: z.number().int(),
  totals: CopierTotalsSchema,
  links: z.array(LinkStatusSchema),
});
export type CopierStatus = z.infer<typeof CopierStatusSchema>;

export const COPY_EVENT_STATES = ["failed", "skipped"] as const;

export const CopyEventSchema = z.object({
  requestId: z.string(),
  linkId: z.string(),
  linkName: z.string(),
  follower: AccountRefSchema,
  state: z.enum(COPY_EVENT_STATES),
  /** The platform's words for a failure; a skip's reason code (SKIP_REASONS). */
  reason: z.string().nullable(),
  /** A skip's reason in words (SKIP_REASON_TEXTS); the failure's reason as is. */
  reasonText: z.string().nullable(),
  sourceId: z.string(),
  sourceAction: z.string(),
  followerAction: z.string().nullable(),
  symbol: z.string().nullable(),
  volume: z.string().nullable(),
  attempts: z.number().int(),
  decidedAt: z.string(),
});
export type CopyEvent = z.infer<typeof CopyEventSchema>;

export const CopyEventsSchema = z.object({
  events: z.array(CopyEventSchema),
  /** Pass as `before` for the next (older) page; null on the last page. */
  next: z.string().nullable(),
});
export type CopyEvents = z.infer<typeof CopyEventsSchema>;

export const DIVERGENCE_KINDS = ["missing", "extra"] as const;

/**
 * One difference between the source and a follower:
 *  - missing: the source holds the position, the follower's copy was made and is no longer open
 *    (closed by hand, stopped out) — resync opens it again;
 *  - extra: the follower still holds a copy of a source position that is closed — resync closes it.
 */
export const DivergenceItemSchema = z.object({
  kind: z.enum(DIVERGENCE_KINDS),
  sourceId: z.string(),
  symbol: z.string().nullable(),
  side: z.enum(["buy", "sell"]).nullable(),
  /** The source's volume (missing) or the follower's (extra), lots. */
  volume: z.string().nullable(),
  followerPositionId: z.string().nullable(),
});
export type DivergenceItem = z.infer<typeof DivergenceItemSchema>;

export const FollowerDivergenceSchema = z.object({
  linkId: z.string(),
  account: AccountRefSchema,
  /** false when a platform could not be read (then `error` says why and the lists are empty). */
  known: z.boolean(),
  error: z.string().nullable(),
  /** The source's open positions, and the follower's open positions that are copies (from the ledger). */
  sourceOpen: z.number().int(),
  copiesOpen: z.number().int(),
  /** Floating P/L (profit + swap) of the follower's copied open positions, in its account currency. */
  floatingProfit: z.string().nullable(),
  /**
   * Realised P/L of the copies: profit, swap and commission of every deal of the positions the
   * copier made on the follower (opening commissions included), from the trade history store.
   */
  realizedProfit: z.string(),
  /** Realised plus floating. */
  totalProfit: z.string().nullable(),
  /** The deepest fall of the copies' P/L (realised over the deals in time order, then with the floating P/L now) from a peak, ≥ 0. */
  maxDrawdown: z.string().nullable(),
  items: z.array(DivergenceItemSchema),
});
export type FollowerDivergence = z.infer<typeof FollowerDivergenceSchema>;

export const CopierDivergenceSchema = z.object({
  asOf: z.string(),
  followers: z.array(FollowerDivergenceSchema),
});
export type CopierDivergence = z.infer<typeof CopierDivergenceSchema>;

/** The resync plan the engine's routes answer (GET, then POST …/links/:linkId/followers/:platformId/:login/resync). */
export const ResyncPlanSchema = z.object({
  actions: z.array(
    z.object({
      kind: z.enum(["open", "close", "reduce"]),
      sourceId: z.string(),
      symbol: z.string(),
      side: z.enum(["buy", "sell"]),
      volume: z.string(),
      followerPositionId: z.string().optional(),
    }),
  ),
});
export type ResyncPlan = z.infer<typeof ResyncPlanSchema>;
