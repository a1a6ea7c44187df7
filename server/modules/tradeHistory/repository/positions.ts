/**
 * The blotter's open positions (GET /api/tradesBlotter/positions), as the store holds them now:
 * the same filters as deals without a date range, newest opened first, keyset paged on
 * (open time, platform, position id).
 */
import { sql, type SQL } from "drizzle-orm";
import type { BlotterPosition, BlotterPositionPage, BlotterPositionQuery } from "../../../../core/schemas/tradesBlotter.ts";
import type { Db } from "../../../db/client.ts";
import { rowsOf } from "../../../db/rows.ts";
import { blotterPlatformIds } from "./blotterPlatforms.ts";
import { decodeCursor, encodeCursor } from "../cursor.ts";
import { filterConditions, pageWithTotal } from "./filters.ts";
import { lotsText, positionTicket } from "../rows.ts";

interface PositionRecord {
  platform_id: string;
  platform_name: string;
  position_id: string;
  t: string | number;
  login: string;
  group: string | null;
  open_time: string;
  server_open_time: string;
  symbol: string;
  side: BlotterPosition["side"];
  volume: string;
  open_price: number;
  current_price: number;
  sl: number | null;
  tp: number | null;
  profit: string;
  swap: string;
  reason: string;
  comment: string;
  native: Record<string, unknown>;
  updated_at: string;
}

const FROM = sql`from trade_positions o
  join trade_platforms p on p.id = o.platform_id
  left join trading_accounts a on a.platform_id = o.platform_id and a.login = o.login`;

type Key = [number, string, string];

export async function positionsPage(db: Db, organizationId: string, q: BlotterPositionQuery): Promise<BlotterPositionPage> {
  const after = q.cursor === undefined ? null : decodeCursor<Key>(q.cursor, ["n", "s", "s"]);
  const platformIds = await blotterPlatformIds(db, organizationId, q.platformIds);
  if (platformIds.length === 0) return { items: [], nextCursor: null, total: after === null ? 0 : null, totalCapped: false };
  const condition: SQL = sql.join(filterConditions("o", organizationId, platformIds, q, sql`o.side`), sql` and `);
  const keyset =
    after === null ? sql`` : sql`and (o.open_time, o.platform_id, o.position_id) < (to_timestamp(${after[0]}::float8 / 1000), ${after[1]}::uuid, ${after[2]})`;
  const result = await db.execute(sql`
    select o.platform_id, p.name as platform_name, o.position_id, (extract(epoch from o.open_time) * 1000)::float8 as t, o.login, a."group",
      to_char(o.open_time at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as open_time,
      to_char(o.open_time at time zone p.time_zone, 'YYYY-MM-DD HH24:MI:SS.MS') as server_open_time,
      o.symbol, o.side, o.volume::text as volume, o.open_price, o.current_price, o.sl, o.tp, o.profit::text as profit, o.swap::text as swap,
      o.reason, o.comment, o.native, to_char(o.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at
    ${FROM}
    where ${condition} ${keyset}
    order by o.open_time desc nulls last, o.platform_id desc nulls last, o.position_id desc nulls last
    limit ${q.limit + 1}`);
  const { page, more, total, totalCapped } = await pageWithTotal(db, rowsOf<PositionRecord>(result), q.limit, after === null, FROM, condition);
  const last = page[page.length - 1];
  return {
    items: page.map(toPosition),
    nextCursor: more && last ? encodeCursor([Math.round(Number(last.t)), last.platform_id, last.position_id]) : null,
    total,
    totalCapped,
  };
}

function toPosition(r: PositionRecord): BlotterPosition {
  return {
    key: `${r.platform_id}:${r.position_id}`,
    platformId: r.platform_id,
    platformName: r.platform_name,
    positionId: r.position_id,
    ticket: positionTicket(r.native, r.position_id),
    login: r.login,
    group: r.group ?? "",
    symbol: r.symbol,
    side: r.side,
    volume: lotsText(r.volume),
    openTime: r.open_time,
    serverOpenTime: r.server_open_time,
    openPrice: Number(r.open_price),
    currentPrice: Number(r.current_price),
    sl: r.sl === null ? null : Number(r.sl),
    tp: r.tp === null ? null : Number(r.tp),
    profit: r.profit,
    swap: r.swap,
    reason: r.reason,
    comment: r.comment,
    native: r.native,
    updatedAt: r.updated_at,
  };
}
