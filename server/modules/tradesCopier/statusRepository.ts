/**
 * The copier status's SQL over the ledger (copy_ledger, written by the engine; read only here), one
 * organization at a time: today's counts per follower, the latency of each stage as p50/p99
 * (nearest rank, `percentile_disc`) per follower, per link and in all (one query, grouping
 * sets), a 5-minute series per link, each follower's last outcomes, and the failed and skipped
 * copies newest first, and the deals of the copied positions (their P/L). "Today" starts at midnight in the organization's time zone (decision 0078).
 */
import { sql, type SQL } from "drizzle-orm";
import { moneyFromDecimal, type Money } from "../../../core/trading/money.ts";
import type { DbOrTx } from "../../db/client.ts";
import { rowsOf } from "../../db/rows.ts";

/** ms between two timestamptz columns, as float8. */
const msBetween = (later: string, earlier: string) => sql.raw(`extract(epoch from (${later} - ${earlier})) * 1000`);

const STAGES = {
  eventToEngine: msBetween("received_at", "source_time"),
  decision: msBetween("decided_at", "received_at"),
  sendToAck: msBetween("acked_at", "sent_at"),
  total: msBetween("acked_at", "source_time"),
} as const;
export type StageName = keyof typeof STAGES;
export const STAGE_NAMES = Object.keys(STAGES) as StageName[];

export interface StageRow {
  count: number;
  p50: number | null;
  p99: number | null;
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
/** A text column's value (the drivers give text as strings), null as null. */
const text = (v: unknown): string | null => (v === null || v === undefined ? null : (v as string));

/** The start of `now`'s day in the organization's time zone, and the zone. */
export async function dayStartOf(db: DbOrTx, organizationId: string, now: Date): Promise<{ dayStart: Date; timeZone: string }> {
  const result = await db.execute(sql`
    select o.time_zone as tz,
      (date_trunc('day', ${now.toISOString()}::timestamptz at time zone o.time_zone) at time zone o.time_zone) as day_start
    from organizations o where o.id = ${organizationId}::uuid`);
  const [row] = rowsOf<{ tz: string; day_start: string | Date }>(result);
  return { dayStart: new Date(row?.day_start ?? now), timeZone: row?.tz ?? "UTC" };
}

export interface FollowerCountsRow {
  linkId: string;
  platformId: string;
  login: string;
  copiesToday: number;
  failedToday: number;
  skippedToday: number;
  pending: number;
  lastCopyAt: string | null;
}

/** Per follower of the organization's ledger: today's copies, failures and skips, what is pending, the last copy. */
export async function followerCounts(db: DbOrTx, organizationId: string, dayStart: Date): Promise<FollowerCountsRow[]> {
  const day = dayStart.toISOString();
  const result = await db.execute(sql`
    select link_id, follower_platform_id, follower_login,
      count(*) filter (where state = 'done' and decided_at >= ${day}::timestamptz) as copies,
      count(*) filter (where state = 'failed' and decided_at >= ${day}::timestamptz) as failed,
      count(*) filter (where state = 'skipped' and decided_at >= ${day}::timestamptz) as skipped,
      count(*) filter (where state = 'pending') as pending,
      max(coalesce(acked_at, decided_at)) filter (where state = 'done') as last_copy
    from copy_ledger
    where organization_id = ${organizationId}::uuid
    group by link_id, follower_platform_id, follower_login`);
  return rowsOf<Record<string, unknown>>(result).map((r) => ({
    linkId: String(r.link_id),
    platformId: String(r.follower_platform_id),
    login: String(r.follower_login),
    copiesToday: Number(r.copies),
    failedToday: Number(r.failed),
    skippedToday: Number(r.skipped),
    pending: Number(r.pending),
    lastCopyAt: r.last_copy === null || r.last_copy === undefined ? null : new Date(r.last_copy as string).toISOString(),
  }));
}

export interface LatencyRow {
  /** null on the link's and the organization's rows. */
  platformId: string | null;
  login: string | null;
  /** null on the organization's row. */
  linkId: string | null;
  stages: Record<StageName, StageRow>;
}

/**
 * The stages' p50 and p99 over the copies (state done) decided in [since, now), per follower, per
 * link and in all. A stage whose times are missing on a row (never sent) leaves that row out of it.
 */
export async function latencies(db: DbOrTx, organizationId: string, since: Date): Promise<LatencyRow[]> {
  const columns = STAGE_NAMES.map(
    (name) => sql`,
      count(${STAGES[name]}) as ${sql.raw(`"${name}_n"`)},
      percentile_disc(0.5) within group (order by ${STAGES[name]}) as ${sql.raw(`"${name}_p50"`)},
      percentile_disc(0.99) within group (order by ${STAGES[name]}) as ${sql.raw(`"${name}_p99"`)}`,
  );
  const result = await db.execute(sql`
    select link_id, follower_platform_id, follower_login, grouping(link_id) as no_link, grouping(follower_login) as no_follower
      ${sql.join(columns, sql``)}
    from copy_ledger
    where organization_id = ${organizationId}::uuid and state = 'done' and decided_at >= ${since.toISOString()}::timestamptz
    group by grouping sets ((link_id, follower_platform_id, follower_login), (link_id), ())`);
  return rowsOf<Record<string, unknown>>(result).map((r) => ({
    linkId: Number(r.no_link) === 1 ? null : String(r.link_id),
    platformId: Number(r.no_follower) === 1 ? null : String(r.follower_platform_id),
    login: Number(r.no_follower) === 1 ? null : String(r.follower_login),
    stages: Object.fromEntries(
      STAGE_NAMES.map((name) => [name, { count: Number(r[`${name}_n`]), p50: num(r[`${name}_p50`]), p99: num(r[`${name}_p99`]) }]),
    ) as Record<StageName, StageRow>,
  }));
}

export interface SeriesRow {
  linkId: string;
  at: string;
  copies: number;
  p50: number;
  p99: number;
}

/** Per link, every `bucketSeconds` since `since` that had copies: their count and the whole copy's p50/p99. */
export async function latencySeries(db: DbOrTx, organizationId: string, since: Date, bucketSeconds: number): Promise<SeriesRow[]> {
  // The width inline (a whole number of ours), not a parameter: the select and the group by must be one expression.
  const width = sql.raw(String(Math.trunc(bucketSeconds)));
  const bucket = sql`to_timestamp(floor(extract(epoch from decided_at) / ${width}) * ${width})`;
  const result = await db.execute(sql`
    select link_id, ${bucket} as at, count(*) as copies,
      percentile_disc(0.5) within group (order by ${STAGES.total}) as p50,
      percentile_disc(0.99) within group (order by ${STAGES.total}) as p99
    from copy_ledger
    where organization_id = ${organizationId}::uuid and state = 'done' and acked_at is not null
      and decided_at >= ${since.toISOString()}::timestamptz
    group by link_id, ${bucket}
    order by link_id, at`);
  return rowsOf<Record<string, unknown>>(result).map((r) => ({
    linkId: String(r.link_id),
    at: new Date(r.at as string).toISOString(),
    copies: Number(r.copies),
    p50: Number(r.p50),
    p99: Number(r.p99),
  }));
}

export interface LastOutcomeRow {
  linkId: string;
  platformId: string;
  login: string;
  state: "done" | "failed" | "skipped";
  reason: string | null;
}

async function lastOf(db: DbOrTx, organizationId: string, where: SQL): Promise<LastOutcomeRow[]> {
  const result = await db.execute(sql`
    select distinct on (link_id, follower_platform_id, follower_login) link_id, follower_platform_id, follower_login, state, reason
    from copy_ledger
    where organization_id = ${organizationId}::uuid and ${where}
    order by link_id, follower_platform_id, follower_login, decided_at desc, request_id desc`);
  return rowsOf<Record<string, unknown>>(result).map((r) => ({
    linkId: String(r.link_id),
    platformId: String(r.follower_platform_id),
    login: String(r.follower_login),
    state: r.state as LastOutcomeRow["state"],
    reason: text(r.reason),
  }));
}

/** Each follower's last action sent (done or failed): a failed one makes it "failing". */
export const lastSent = (db: DbOrTx, organizationId: string) => lastOf(db, organizationId, sql`state in ('done', 'failed')`);

export interface EventRow {
  requestId: string;
  linkId: string;
  linkName: string;
  platformId: string;
  login: string;
  state: "failed" | "skipped";
  reason: string | null;
  sourceId: string;
  sourceAction: string;
  followerAction: string | null;
  symbol: string | null;
  volume: string | null;
  attempts: number;
  decidedAt: string;
  /** µs since 1970 of decided_at, exact: the paging cursor. */
  micros: string;
}

export interface EventQuery {
  linkId?: string;
  state?: "failed" | "skipped";
  limit: number;
  /** The cursor of the last row of the previous page: µs and request id. */
  before?: { micros: string; requestId: string };
}

/** The organization's failed and skipped copies, newest first (decided_at, then request id), one page. */
export async function copyEvents(db: DbOrTx, organizationId: string, q: EventQuery): Promise<EventRow[]> {
  const filters: SQL[] = [sql`c.organization_id = ${organizationId}::uuid`, q.state ? sql`c.state = ${q.state}` : sql`c.state in ('failed', 'skipped')`];
  if (q.linkId) filters.push(sql`c.link_id = ${q.linkId}::uuid`);
  if (q.before) {
    const at = sql`('epoch'::timestamptz + ${q.before.micros}::bigint * interval '1 microsecond')`;
    filters.push(sql`(c.decided_at, c.request_id) < (${at}, ${q.before.requestId})`);
  }
  const result = await db.execute(sql`
    select c.request_id, c.link_id, l.name as link_name, c.follower_platform_id, c.follower_login, c.state, c.reason, c.source_id,
      c.source_action, c.follower_action, c.symbol, c.volume, c.attempts, c.decided_at,
      (extract(epoch from c.decided_at) * 1000000)::bigint::text as micros
    from copy_ledger c join copy_links l on l.id = c.link_id and l.organization_id = c.organization_id
    where ${sql.join(filters, sql` and `)}
    order by c.decided_at desc, c.request_id desc
    limit ${q.limit}`);
  return rowsOf<Record<string, unknown>>(result).map((r) => ({
    requestId: String(r.request_id),
    linkId: String(r.link_id),
    linkName: String(r.link_name),
    platformId: String(r.follower_platform_id),
    login: String(r.follower_login),
    state: r.state as EventRow["state"],
    reason: text(r.reason),
    sourceId: String(r.source_id),
    sourceAction: String(r.source_action),
    followerAction: text(r.follower_action),
    symbol: text(r.symbol),
    volume: text(r.volume),
    attempts: Number(r.attempts),
    decidedAt: new Date(r.decided_at as string).toISOString(),
    micros: String(r.micros),
  }));
}

export interface CopiedPositionRow {
  linkId: string;
  platformId: string;
  login: string;
  sourceId: string;
  followerPositionId: string;
  symbol: string | null;
  volume: string | null;
}

/** The follower positions the copier opened (done `open` rows that name one), of one link or all. */
export async function copiedPositions(db: DbOrTx, organizationId: string, linkId?: string): Promise<CopiedPositionRow[]> {
  const result = await db.execute(sql`
    select link_id, follower_platform_id, follower_login, source_id, follower_position_id, symbol, volume
    from copy_ledger
    where organization_id = ${organizationId}::uuid and state = 'done' and follower_action = 'open' and follower_position_id is not null
      ${linkId ? sql`and link_id = ${linkId}::uuid` : sql``}`);
  return rowsOf<Record<string, unknown>>(result).map((r) => ({
    linkId: String(r.link_id),
    platformId: String(r.follower_platform_id),
    login: String(r.follower_login),
    sourceId: String(r.source_id),
    followerPositionId: String(r.follower_position_id),
    symbol: text(r.symbol),
    volume: text(r.volume),
  }));
}

export interface CopyDealRow {
  linkId: string;
  platformId: string;
  login: string;
  /** profit + swap + commission of one deal, minor units. */
  amount: Money;
}

/**
 * Every deal of the follower positions the copier made (done `open` and `close` rows that name
 * one: an MT4 partial close's new ticket included), from the trade history store, oldest first:
 * what the copies' realised P/L and drawdown are summed from (core/copier/profit.ts).
 */
export async function copiesDeals(db: DbOrTx, organizationId: string, linkId?: string): Promise<CopyDealRow[]> {
  const result = await db.execute(sql`
    with copies as (
      select distinct link_id, follower_platform_id, follower_login, follower_position_id
      from copy_ledger
      where organization_id = ${organizationId}::uuid and state = 'done' and follower_action in ('open', 'close')
        and follower_position_id is not null ${linkId ? sql`and link_id = ${linkId}::uuid` : sql``}
    )
    select c.link_id, c.follower_platform_id, c.follower_login, (d.profit + d.swap + d.commission)::text as amount
    from copies c
    join trade_deals d on d.platform_id = c.follower_platform_id and d.login = c.follower_login and d.position_id = c.follower_position_id
    where d.organization_id = ${organizationId}::uuid and d.action in ('buy', 'sell')
    order by d.time, d.seq`);
  return rowsOf<Record<string, unknown>>(result).map((r) => ({
    linkId: String(r.link_id),
    platformId: String(r.follower_platform_id),
    login: String(r.follower_login),
    amount: moneyFromDecimal(String(r.amount)),
  }));
}
