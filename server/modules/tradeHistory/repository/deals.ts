/**
 * The blotter's historical deals (GET /api/tradesBlotter/deals and deals.csv): one query on the
 * store, newest first by (time, ingest seq) — a keyset, so a page is an index range of the
 * organization's time index (or its login index), and paging never repeats or skips a row while
 * deals are being added. The group comes from the accounts mirror (a primary-key lookup per row
 * of the page; a group mask is a semi-join on it), the platform's name and clock from its row.
 */
import { sql, type SQL } from "drizzle-orm";
import {
  BLOTTER_TOTAL_CAP,
  type BlotterDealTotals,
  type BlotterDeal,
  type BlotterDealFilters,
  type BlotterDealPage,
  type BlotterDealQuery,
} from "../../../../core/schemas/tradesBlotter.ts";
import type { Db } from "../../../db/client.ts";
import { rowsOf } from "../../../db/rows.ts";
import { blotterPlatformIds } from "./blotterPlatforms.ts";
import { decodeCursor, encodeCursor } from "../cursor.ts";
import { filterConditions } from "./filters.ts";
import { dealTicket, lotsText } from "../rows.ts";

interface DealRecord {
  platform_id: string;
  platform_name: string;
  deal_id: string;
  seq: string | number;
  t: string | number;
  login: string;
  group: string | null;
  time: string;
  server_time: string;
  action: BlotterDeal["action"];
  entry: BlotterDeal["entry"];
  position_id: string | null;
  symbol: string | null;
  volume: string;
  price: number;
  sl: number | null;
  tp: number | null;
  profit: string;
  commission: string;
  swap: string;
  reason: string;
  comment: string;
  native: Record<string, unknown>;
}

function where(organizationId: string, platformIds: readonly string[], q: BlotterDealFilters): SQL {
  const conditions = filterConditions("d", organizationId, platformIds, q, sql`d.action`);
  conditions.push(sql`d.time >= ${q.from}::timestamptz`, sql`d.time < ${q.to}::timestamptz`);
  return sql.join(conditions, sql` and `);
}

/**
 * A page of deals: chosen, in order, from the deals alone (the filters, a group mask included, are
 * conditions on them), and only then joined to their platform, with each row's group looked up by
 * its key. Joined first, the planner could not tell how few platforms there are and read every
 * matching deal of the range to sort them (a group mask org-wide at 1,000,000 deals: 120 ms for
 * the page, against 5 ms walking the time index until the page is full); a join to the accounts
 * after the page read every account to hash them (docs/benchmarks.md, 2026-11-24).
 */
async function selectDeals(db: Db, condition: SQL, after: [number, number] | null, limit: number): Promise<DealRecord[]> {
  const keyset = after === null ? sql`` : sql`and (d.time, d.seq) < (to_timestamp(${after[0]}::float8 / 1000), ${after[1]}::bigint)`;
  const result = await db.execute(sql`
    select d.platform_id, p.name as platform_name, d.deal_id, d.seq, (extract(epoch from d.time) * 1000)::float8 as t, d.login,
      (select a."group" from trading_accounts a where a.platform_id = d.platform_id and a.login = d.login) as "group",
      to_char(d.time at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as time,
      to_char(d.time at time zone p.time_zone, 'YYYY-MM-DD HH24:MI:SS.MS') as server_time,
      d.action, d.entry, d.position_id, d.symbol, d.volume::text as volume, d.price, d.sl, d.tp,
      d.profit::text as profit, d.commission::text as commission, d.swap::text as swap, d.reason, d.comment, d.native
    from (select * from trade_deals d where ${condition} ${keyset} order by d.time desc nulls last, d.seq desc nulls last limit ${limit}) d
    join trade_platforms p on p.id = d.platform_id
    order by d.time desc nulls last, d.seq desc nulls last`);
  return rowsOf<DealRecord>(result);
}

function toDeal(r: DealRecord): BlotterDeal {
  return {
    key: `${r.platform_id}:${r.deal_id}`,
    platformId: r.platform_id,
    platformName: r.platform_name,
    dealId: r.deal_id,
    ticket: dealTicket(r.native, r.deal_id),
    login: r.login,
    group: r.group ?? "",
    time: r.time,
    serverTime: r.server_time,
    action: r.action,
    side: r.action === "buy" || r.action === "sell" ? r.action : null,
    entry: r.entry,
    positionId: r.position_id,
    symbol: r.symbol,
    volume: lotsText(r.volume),
    price: Number(r.price),
    sl: r.sl === null ? null : Number(r.sl),
    tp: r.tp === null ? null : Number(r.tp),
    profit: r.profit,
    commission: r.commission,
    swap: r.swap,
    reason: r.reason,
    comment: r.comment,
    native: r.native,
  };
}

const keyOf = (r: DealRecord): [number, number] => [Math.round(Number(r.t)), Number(r.seq)];

/** Matching deals, counted up to `cap` (the count stops there): the deals alone (a group mask is a semi-join of its own). */
async function countDeals(db: Db, condition: SQL, cap: number | null): Promise<number> {
  const limit = cap === null ? sql`` : sql`limit ${cap + 1}`;
  const result = await db.execute(sql`select count(*)::int as n from (select 1 from trade_deals d where ${condition} ${limit}) x`);
  return Number(rowsOf<{ n: number }>(result)[0]?.n ?? 0);
}

export async function dealsPage(db: Db, organizationId: string, q: BlotterDealQuery): Promise<BlotterDealPage> {
  const after = q.cursor === undefined ? null : decodeCursor<[number, number]>(q.cursor, ["n", "n"]);
  const platformIds = await blotterPlatformIds(db, organizationId, q.platformIds);
  if (platformIds.length === 0) return { items: [], nextCursor: null, total: after === null ? 0 : null, totalCapped: false };
  const condition = where(organizationId, platformIds, q);
  const rows = await selectDeals(db, condition, after, q.limit + 1);
  const more = rows.length > q.limit;
  const page = more ? rows.slice(0, q.limit) : rows;
  let total: number | null = null;
  let totalCapped = false;
  if (after === null) {
    // A page that holds everything is the count; otherwise count, up to the cap.
    const counted = more ? await countDeals(db, condition, BLOTTER_TOTAL_CAP) : page.length;
    totalCapped = counted > BLOTTER_TOTAL_CAP;
    total = Math.min(counted, BLOTTER_TOTAL_CAP);
  }
  return { items: page.map(toDeal), nextCursor: more ? encodeCursor(keyOf(page[page.length - 1]!)) : null, total, totalCapped };
}

/** Every matching deal, newest first, page by page (the CSV export): the count first, then the rows. */
export async function allDeals(
  db: Db,
  organizationId: string,
  q: BlotterDealFilters,
  pageSize = 1000,
): Promise<{ total: number; pages: AsyncGenerator<BlotterDeal[]> }> {
  const platformIds = await blotterPlatformIds(db, organizationId, q.platformIds);
  if (platformIds.length === 0) return { total: 0, pages: (async function* () {})() };
  // The rows stored when the export starts: deals added meanwhile are not in it, so the count
  // header matches the lines that follow.
  const newest = rowsOf<{ seq: string }>(await db.execute(sql`select last_value::text as seq from trade_deals_seq`))[0]?.seq ?? "0";
  const condition = sql`${where(organizationId, platformIds, q)} and d.seq <= ${newest}::bigint`;
  const total = await countDeals(db, condition, null);
  async function* pages(): AsyncGenerator<BlotterDeal[]> {
    let after: [number, number] | null = null;
    // Never more rows than counted, so the count header stays true while deals are being added.
    let left = total;
    while (left > 0) {
      const rows = await selectDeals(db, condition, after, Math.min(pageSize, left));
      if (rows.length === 0) return;
      left -= rows.length;
      yield rows.map(toDeal);
      if (rows.length < pageSize) return;
      after = keyOf(rows[rows.length - 1]!);
    }
  }
  return { total, pages: pages() };
}

/**
 * The figures of every deal matching the filters over the whole range (GET /api/tradesBlotter/
 * deals/totals), summed in the database in numeric, so exact: trading (buy and sell) apart from
 * money movements (balance, credit), as the side panel shows them (docs/trades-blotter.md#totals).
 * One pass over the same rows as the pages (the same conditions and indexes); its own request, so
 * the first page never waits for it (docs/benchmarks.md).
 */
export async function dealTotals(db: Db, organizationId: string, q: BlotterDealFilters): Promise<BlotterDealTotals> {
  const platformIds = await blotterPlatformIds(db, organizationId, q.platformIds);
  const zero = { deals: 0, movements: 0, volume: "0", profit: "0.00", commission: "0.00", swap: "0.00", deposits: "0.00", withdrawals: "0.00", credit: "0.00" };
  if (platformIds.length === 0) return zero;
  const trade = sql`d.action in ('buy', 'sell')`;
  const money = (expr: SQL) => sql`coalesce(${expr}, 0)::numeric(24,2)::text`;
  const result = await db.execute(sql`
    select count(*) filter (where ${trade})::int as deals,
      count(*) filter (where not ${trade})::int as movements,
      coalesce(sum(d.volume) filter (where ${trade}), 0)::numeric(24,4)::text as volume,
      ${money(sql`sum(d.profit) filter (where ${trade})`)} as profit,
      ${money(sql`sum(d.commission) filter (where ${trade})`)} as commission,
      ${money(sql`sum(d.swap) filter (where ${trade})`)} as swap,
      ${money(sql`sum(d.profit) filter (where d.action = 'balance' and d.profit > 0)`)} as deposits,
      ${money(sql`-sum(d.profit) filter (where d.action = 'balance' and d.profit < 0)`)} as withdrawals,
      ${money(sql`sum(d.profit) filter (where d.action = 'credit')`)} as credit
    from trade_deals d where ${where(organizationId, platformIds, q)}`);
  const row = rowsOf<typeof zero>(result)[0];
  if (!row) return zero;
  return { ...row, deals: Number(row.deals), movements: Number(row.movements), volume: lotsText(row.volume) };
}
