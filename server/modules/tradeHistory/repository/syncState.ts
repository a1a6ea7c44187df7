/** The store's state per platform (`trade_history_sync`): the last backfill's window and progress, and the last live event applied. */
import { and, eq, sql } from "drizzle-orm";
import type { TradeHistorySync } from "../../../../core/schemas/tradesBlotter.ts";
import type { Db } from "../../../db/client.ts";
import { tradeHistorySync } from "../../../db/schema.ts";
import { rowsOf } from "../../../db/rows.ts";
import type { PlatformKey } from "./writes.ts";

const s = tradeHistorySync;

export async function startBackfill(db: Db, platform: PlatformKey, window: { from: Date; to: Date }): Promise<void> {
  const values = {
    status: "backfilling" as const,
    windowFrom: window.from,
    windowTo: window.to,
    accountsDone: 0,
    accountsTotal: 0,
    deals: 0,
    lastError: null,
    startedAt: new Date(),
    finishedAt: null,
    updatedAt: new Date(),
  };
  await db
    .insert(s)
    .values({ platformId: platform.id, organizationId: platform.organizationId, ...values })
    .onConflictDoUpdate({ target: s.platformId, set: values });
}

export async function backfillProgress(db: Db, platformId: string, progress: { accountsDone: number; accountsTotal: number; deals: number }): Promise<void> {
  await db
    .update(s)
    .set({ ...progress, updatedAt: new Date() })
    .where(and(eq(s.platformId, platformId), eq(s.status, "backfilling")));
}

export async function finishBackfill(db: Db, platformId: string, outcome: { error: string | null }): Promise<void> {
  await db
    .update(s)
    .set({ status: outcome.error === null ? "live" : "failed", lastError: outcome.error, finishedAt: new Date(), updatedAt: new Date() })
    .where(eq(s.platformId, platformId));
}

/** After a live batch: the connector's sequence of its last event, per platform. */
export async function recordSequences(db: Db, sequences: ReadonlyMap<string, { organizationId: string; sequence: number }>): Promise<void> {
  if (sequences.size === 0) return;
  const rows = JSON.stringify([...sequences].map(([platformId, v]) => ({ platformId, organizationId: v.organizationId, sequence: v.sequence })));
  await db.execute(sql`
    insert into trade_history_sync (platform_id, organization_id, last_sequence, updated_at)
    select u."platformId", u."organizationId", u.sequence, now()
    from json_to_recordset(${rows}::json) as u("platformId" uuid, "organizationId" uuid, sequence bigint)
    join trade_platforms p on p.id = u."platformId"
    on conflict (platform_id) do update set last_sequence = excluded.last_sequence, updated_at = excluded.updated_at`);
}

const DAY_MS = 86_400_000;

/**
 * A pass over this window reads the whole configured window (a first backfill), not just what
 * followed the last stored deal: the store and the blotter's snapshots tell passes apart by it.
 */
export function readsWholeWindow(window: { from: Date; to: Date }, backfillDays: number): boolean {
  return window.from.getTime() <= window.to.getTime() - backfillDays * DAY_MS;
}

export async function getSync(db: Db, platformId: string): Promise<typeof s.$inferSelect | undefined> {
  const [row] = await db.select().from(s).where(eq(s.platformId, platformId));
  return row;
}

/** The newest deal stored for the platform, epoch ms (null when none). */
export async function lastDealTime(db: Db, platform: PlatformKey): Promise<number | null> {
  const result = await db.execute(sql`
    select (extract(epoch from max(time)) * 1000)::float8 as t from trade_deals
    where organization_id = ${platform.organizationId}::uuid and platform_id = ${platform.id}::uuid`);
  const t = rowsOf<{ t: number | string | null }>(result)[0]?.t;
  return t === null || t === undefined ? null : Number(t);
}

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

export function syncView(platformId: string, row: typeof s.$inferSelect | undefined): TradeHistorySync {
  if (!row) {
    return {
      platformId,
      status: "idle",
      windowFrom: null,
      windowTo: null,
      accountsDone: 0,
      accountsTotal: 0,
      deals: 0,
      lastError: null,
      lastSequence: 0,
      startedAt: null,
      finishedAt: null,
      updatedAt: new Date(0).toISOString(),
    };
  }
  return {
    platformId,
    status: row.status,
    windowFrom: iso(row.windowFrom),
    windowTo: iso(row.windowTo),
    accountsDone: row.accountsDone,
    accountsTotal: row.accountsTotal,
    deals: row.deals,
    lastError: row.lastError,
    lastSequence: row.lastSequence,
    startedAt: iso(row.startedAt),
    finishedAt: iso(row.finishedAt),
    updatedAt: row.updatedAt.toISOString(),
  };
}
