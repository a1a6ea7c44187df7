/**
 * The store's writes. Each batch is one statement with the rows as one JSON document
 * (`json_to_recordset`, as the accounts mirror writes: one parameter whatever the batch size), and
 * every write is idempotent: deals are keyed by (platform, native deal id) and inserted with
 * ON CONFLICT DO NOTHING, positions are upserts, so a replayed event or an overlapping backfill
 * changes nothing.
 *
 * Rows go in key order (deal id; position id). The live writer and a backfill can write the same
 * keys at once, each statement its own transaction; in one order, one waits for the other instead
 * of each holding a key the other needs (a deadlock, which fails a batch).
 */
import { sql } from "drizzle-orm";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { Db } from "../../../db/client.ts";
import { rowsOf } from "../../../db/rows.ts";
import type { DealColumns, PositionColumns } from "../rows.ts";

export interface PlatformKey {
  id: string;
  organizationId: string;
}

/**
 * Rows per statement. Fewer, larger statements write more a second: with the live writer's
 * 5,000-event batches, 1.4–1.5× the events a second of 250 rows (and 1,000-event batches) on
 * PostgreSQL, 1.3× on PGlite (`npm run bench -- writer`). The JSON of one is a few hundred KB.
 */
export const WRITE_BATCH = 1000;

const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Inserts the deals not stored yet; answers how many were new. A deal without stops takes its
 * position's from the open positions table.
 */
export async function insertDeals(db: Db, platform: PlatformKey, deals: readonly DealColumns[]): Promise<number> {
  let inserted = 0;
  const sorted = [...deals].sort((a, b) => byKey(a.dealId, b.dealId));
  for (let i = 0; i < sorted.length; i += WRITE_BATCH) {
    const rows = JSON.stringify(sorted.slice(i, i + WRITE_BATCH));
    const result = await db.execute(sql`
      insert into trade_deals (organization_id, platform_id, deal_id, login, time, action, entry, position_id, symbol,
        volume, price, sl, tp, profit, commission, swap, reason, comment, native)
      select ${platform.organizationId}::uuid, ${platform.id}::uuid, u."dealId", u.login, u.time, u.action, u.entry, u."positionId", u.symbol,
        u.volume, u.price, coalesce(u.sl, p.sl), coalesce(u.tp, p.tp), u.profit, u.commission, u.swap, u.reason, u.comment, u.native
      from json_to_recordset(${rows}::json) as u("dealId" text, login text, time timestamptz, action text, entry text, "positionId" text,
        symbol text, volume numeric, price float8, sl float8, tp float8, profit numeric, commission numeric, swap numeric, reason text,
        comment text, native jsonb)
      left join trade_positions p on p.platform_id = ${platform.id}::uuid and p.position_id = u."positionId"
      on conflict (platform_id, deal_id) do nothing`);
    inserted += affectedRows(result);
  }
  return inserted;
}

/**
 * Writes positions as they are now (later entries for the same id win). With `readBefore` (a
 * snapshot read from the platform after that database time), a row written since — by a live
 * event — is newer and left alone.
 */
export async function upsertPositions(db: Db, platform: PlatformKey, positions: readonly PositionColumns[], readBefore?: string): Promise<void> {
  const byId = new Map<string, PositionColumns>();
  for (const p of positions) byId.set(p.positionId, p);
  const all = [...byId.values()].sort((a, b) => byKey(a.positionId, b.positionId));
  const newer = readBefore === undefined ? sql`` : sql`where trade_positions.updated_at < ${readBefore}::timestamptz`;
  for (let i = 0; i < all.length; i += WRITE_BATCH) {
    const rows = JSON.stringify(all.slice(i, i + WRITE_BATCH));
    await db.execute(sql`
      insert into trade_positions (organization_id, platform_id, position_id, login, symbol, side, volume, open_time, open_price,
        current_price, sl, tp, profit, swap, reason, comment, native, updated_at)
      select ${platform.organizationId}::uuid, ${platform.id}::uuid, u."positionId", u.login, u.symbol, u.side, u.volume, u."openTime",
        u."openPrice", u."currentPrice", u.sl, u.tp, u.profit, u.swap, u.reason, u.comment, u.native, clock_timestamp()
      from json_to_recordset(${rows}::json) as u("positionId" text, login text, symbol text, side text, volume numeric, "openTime" timestamptz,
        "openPrice" float8, "currentPrice" float8, sl float8, tp float8, profit numeric, swap numeric, reason text, comment text, native jsonb)
      on conflict (platform_id, position_id) do update set
        login = excluded.login, symbol = excluded.symbol, side = excluded.side, volume = excluded.volume, open_time = excluded.open_time,
        open_price = excluded.open_price, current_price = excluded.current_price, sl = excluded.sl, tp = excluded.tp,
        profit = excluded.profit, swap = excluded.swap, reason = excluded.reason, comment = excluded.comment, native = excluded.native,
        updated_at = excluded.updated_at
      ${newer}`);
  }
}

export async function deletePositions(db: Db, platformId: string, positionIds: readonly string[]): Promise<void> {
  for (let i = 0; i < positionIds.length; i += WRITE_BATCH) {
    await db.execute(sql`
      delete from trade_positions where platform_id = ${platformId}::uuid and position_id = any(${sql.param(positionIds.slice(i, i + WRITE_BATCH))}::text[])`);
  }
}

/** Stored positions read at once when removing those the platform no longer lists. */
export const REMOVAL_PAGE = 1000;

/**
 * After a snapshot of the platform's open positions read after `readBefore`: removes the stored
 * ones it did not list, unless a live event wrote them since.
 */
export async function removePositionsNotListed(db: Db, platformId: string, listed: ReadonlySet<string>, readBefore: string): Promise<void> {
  // A page of stored ids at a time (keyset on the primary key), never every stored position of a
  // large platform in one result.
  let after: string | null = null;
  for (;;) {
    const result: unknown = await db.execute(sql`
      select position_id from trade_positions
      where platform_id = ${platformId}::uuid and updated_at < ${readBefore}::timestamptz
        ${after === null ? sql`` : sql`and position_id > ${after}`}
      order by position_id limit ${REMOVAL_PAGE}`);
    const ids = rowsOf<{ position_id: string }>(result).map((r) => r.position_id);
    await deletePositions(
      db,
      platformId,
      ids.filter((id) => !listed.has(id)),
    );
    if (ids.length < REMOVAL_PAGE) return;
    after = ids[ids.length - 1]!;
    await yieldToEventLoop();
  }
}

/** The database's clock now (positions' `updated_at` are on it). */
export async function databaseNow(db: Db): Promise<string> {
  const result = await db.execute(sql`select to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as now`);
  return rowsOf<{ now: string }>(result)[0]!.now;
}

export function affectedRows(result: unknown): number {
  const r = result as { rowCount?: number | null; affectedRows?: number };
  return r.rowCount ?? r.affectedRows ?? 0;
}
