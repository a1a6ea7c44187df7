/**
 * Pending orders in the store (trade_orders): written from the live stream's order events, one
 * row per platform and order kept with its history (decision 0068), and read for the blotter's
 * pending-orders view (GET /api/tradesBlotter/orders), newest placed first, keyset paged on
 * (placed time, platform, order id), with the filters deals and positions share.
 */
import { sql, type SQL } from "drizzle-orm";
import type { BlotterOrder, BlotterOrderPage, BlotterOrderQuery } from "../../../../core/schemas/tradesBlotter.ts";
import type { Db } from "../../../db/client.ts";
import { rowsOf } from "../../../db/rows.ts";
import { decodeCursor, encodeCursor } from "../cursor.ts";
import { lotsText, type OrderColumns } from "../rows.ts";
import { blotterPlatformIds } from "./blotterPlatforms.ts";
import { filterConditions, pageWithTotal, type BlotterFilters } from "./filters.ts";
import type { PlatformKey } from "./writes.ts";

/**
 * Writes orders as the events left them (later entries for the same id win). An order that
 * already ended keeps its end: a replayed `orderPlaced` or `orderModified` never brings it back.
 * The one exception: an end a backfill inferred (`done_time` null: the order was gone when the
 * platform was read again, its end unseen) gives way to the event that says how it ended.
 * With `readBefore` (a backfill's snapshot read after that database time), an order an event wrote
 * since is left as the event left it.
 */
export async function upsertOrders(db: Db, platform: PlatformKey, orders: readonly OrderColumns[], readBefore?: string): Promise<void> {
  if (orders.length === 0) return;
  const byId = new Map<string, OrderColumns>();
  for (const o of orders) byId.set(o.orderId, o);
  const rows = JSON.stringify([...byId.values()].sort((a, b) => (a.orderId < b.orderId ? -1 : a.orderId > b.orderId ? 1 : 0)));
  await db.execute(sql`
    insert into trade_orders (organization_id, platform_id, order_id, login, symbol, type, volume, price, sl, tp, expiration, placed_time,
      state, position_id, done_time, reason, comment, native, updated_at)
    select ${platform.organizationId}::uuid, ${platform.id}::uuid, u."orderId", u.login, u.symbol, u.type, u.volume, u.price, u.sl, u.tp,
      u.expiration, u."placedTime", u.state, u."positionId", u."doneTime", u.reason, u.comment, u.native, clock_timestamp()
    from json_to_recordset(${rows}::json) as u("orderId" text, login text, symbol text, type text, volume numeric, price float8, sl float8,
      tp float8, expiration timestamptz, "placedTime" timestamptz, state text, "positionId" text, "doneTime" timestamptz, reason text,
      comment text, native jsonb)
    on conflict (platform_id, order_id) do update set
      price = excluded.price, sl = excluded.sl, tp = excluded.tp, expiration = excluded.expiration, state = excluded.state,
      position_id = excluded.position_id, done_time = excluded.done_time, comment = excluded.comment, native = excluded.native,
      updated_at = excluded.updated_at
    where (trade_orders.state = 'placed' or (trade_orders.done_time is null and excluded.state <> 'placed'))
      ${readBefore === undefined ? sql`` : sql`and trade_orders.updated_at < ${readBefore}::timestamptz`}`);
}

/** Stored waiting orders read at once when ending those the platform no longer lists. */
const ENDING_PAGE = 1000;

/**
 * After a backfill read the platform's waiting orders (after `readBefore`): a stored waiting order
 * it did not list, and no event wrote since, ended while Toolbox did not follow the platform.
 * Filled if an open position read names it (`fills`: order id → position and its open time; the
 * connectors' position reads do not all carry `orderId`), expired if its expiration has passed,
 * else `ended` (filled or cancelled, unseen); the time of a fill is the position's open time, of an
 * expiry the expiration, of an `ended` unknown (null, so the event that tells it, if one comes, wins).
 */
export async function endOrdersNotListed(
  db: Db,
  platformId: string,
  listed: ReadonlySet<string>,
  fills: ReadonlyMap<string, { positionId: string; time: number }>,
  readBefore: string,
): Promise<number> {
  let ended = 0;
  let after: string | null = null;
  for (;;) {
    const result: unknown = await db.execute(sql`
      select order_id, (extract(epoch from expiration) * 1000)::float8 as expires from trade_orders
      where platform_id = ${platformId}::uuid and state = 'placed' and updated_at < ${readBefore}::timestamptz
        ${after === null ? sql`` : sql`and order_id > ${after}`}
      order by order_id limit ${ENDING_PAGE}`);
    const rows = rowsOf<{ order_id: string; expires: number | string | null }>(result);
    const now = Date.now();
    const gone = rows
      .filter((r) => !listed.has(r.order_id))
      .map((r) => {
        const fill = fills.get(r.order_id);
        const expires = r.expires === null ? null : Number(r.expires);
        if (fill) return { id: r.order_id, state: "filled", positionId: fill.positionId, done: new Date(fill.time).toISOString() };
        if (expires !== null && expires <= now) return { id: r.order_id, state: "expired", positionId: null, done: new Date(expires).toISOString() };
        return { id: r.order_id, state: "ended", positionId: null, done: null };
      });
    if (gone.length > 0) {
      await db.execute(sql`
        update trade_orders o set state = g.state, position_id = g."positionId", done_time = g.done, updated_at = clock_timestamp()
        from json_to_recordset(${JSON.stringify(gone)}::json) as g(id text, state text, "positionId" text, done timestamptz)
        where o.platform_id = ${platformId}::uuid and o.order_id = g.id and o.state = 'placed' and o.updated_at < ${readBefore}::timestamptz`);
      ended += gone.length;
    }
    if (rows.length < ENDING_PAGE) return ended;
    after = rows[rows.length - 1]!.order_id;
  }
}

interface OrderRecord {
  platform_id: string;
  platform_name: string;
  order_id: string;
  t: string | number;
  login: string;
  group: string | null;
  symbol: string;
  type: BlotterOrder["type"];
  volume: string;
  price: number;
  sl: number | null;
  tp: number | null;
  expiration: string | null;
  placed_time: string;
  server_placed_time: string;
  state: BlotterOrder["state"];
  position_id: string | null;
  done_time: string | null;
  reason: string;
  comment: string;
  native: Record<string, unknown>;
  updated_at: string;
}

/** The orders (`o`: the store's, or events' as rows) with their platform and account. */
const fromOrders = (orders: SQL) => sql`from ${orders} o
  join trade_platforms p on p.id = o.platform_id
  left join trading_accounts a on a.platform_id = o.platform_id and a.login = o.login`;
const FROM = fromOrders(sql`trade_orders`);

const utc = (column: string) => sql.raw(`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);

/** What a `BlotterOrder` is read from (`OrderRecord`), over `fromOrders`. */
const SELECT = sql`select o.platform_id, p.name as platform_name, o.order_id, (extract(epoch from o.placed_time) * 1000)::float8 as t, o.login, a."group",
      o.symbol, o.type, o.volume::text as volume, o.price, o.sl, o.tp, ${utc("o.expiration")} as expiration, ${utc("o.placed_time")} as placed_time,
      to_char(o.placed_time at time zone p.time_zone, 'YYYY-MM-DD HH24:MI:SS.MS') as server_placed_time,
      o.state, o.position_id, ${utc("o.done_time")} as done_time, o.reason, o.comment, o.native, ${utc("o.updated_at")} as updated_at`;

type Key = [number, string, string];

export async function ordersPage(db: Db, organizationId: string, q: BlotterOrderQuery): Promise<BlotterOrderPage> {
  const after = q.cursor === undefined ? null : decodeCursor<Key>(q.cursor, ["n", "s", "s"]);
  const platformIds = await blotterPlatformIds(db, organizationId, q.platformIds);
  if (platformIds.length === 0) return { items: [], nextCursor: null, total: after === null ? 0 : null, totalCapped: false };
  const conditions = filterConditions("o", organizationId, platformIds, q, sql`(case when o.type like 'buy%' then 'buy' else 'sell' end)`);
  if (q.state === "placed") conditions.push(sql`o.state = 'placed'`);
  const condition: SQL = sql.join(conditions, sql` and `);
  const keyset =
    after === null ? sql`` : sql`and (o.placed_time, o.platform_id, o.order_id) < (to_timestamp(${after[0]}::float8 / 1000), ${after[1]}::uuid, ${after[2]})`;
  const result = await db.execute(sql`
    ${SELECT}
    ${FROM}
    where ${condition} ${keyset}
    order by o.placed_time desc, o.platform_id desc, o.order_id desc
    limit ${q.limit + 1}`);
  const { page, more, total, totalCapped } = await pageWithTotal(db, rowsOf<OrderRecord>(result), q.limit, after === null, FROM, condition);
  const last = page[page.length - 1];
  return {
    items: page.map(toOrder),
    nextCursor: more && last ? encodeCursor([Math.round(Number(last.t)), last.platform_id, last.order_id]) : null,
    total,
    totalCapped,
  };
}

/**
 * Waiting orders as events left them (`orders`: each with its platform, on the organization's
 * blotter platforms), read as the list reads the store's: the same columns, the same filters
 * (`q`), in one query. Answers those that match, by key; the others do not.
 */
export async function ordersOfEvents(
  db: Db,
  organizationId: string,
  platformIds: readonly string[],
  q: BlotterFilters,
  orders: readonly (OrderColumns & { platformId: string })[],
): Promise<BlotterOrder[]> {
  if (orders.length === 0 || platformIds.length === 0) return [];
  const rows = JSON.stringify(orders);
  const events = sql`(select ${organizationId}::uuid as organization_id, u."platformId" as platform_id, u."orderId" as order_id, u.login, u.symbol,
      u.type, u.volume, u.price, u.sl, u.tp, u.expiration, u."placedTime" as placed_time, u.state, u."positionId" as position_id,
      u."doneTime" as done_time, u.reason, u.comment, u.native, clock_timestamp() as updated_at
    from json_to_recordset(${rows}::json) as u("platformId" uuid, "orderId" text, login text, symbol text, type text, volume numeric, price float8,
      sl float8, tp float8, expiration timestamptz, "placedTime" timestamptz, state text, "positionId" text, "doneTime" timestamptz, reason text,
      comment text, native jsonb))`;
  const conditions = filterConditions("o", organizationId, platformIds, q, sql`(case when o.type like 'buy%' then 'buy' else 'sell' end)`);
  const result = await db.execute(sql`${SELECT} ${fromOrders(events)} where ${sql.join(conditions, sql` and `)}`);
  return rowsOf<OrderRecord>(result).map(toOrder);
}

function toOrder(r: OrderRecord): BlotterOrder {
  return {
    key: `${r.platform_id}:${r.order_id}`,
    platformId: r.platform_id,
    platformName: r.platform_name,
    orderId: r.order_id,
    login: r.login,
    group: r.group ?? "",
    symbol: r.symbol,
    type: r.type,
    volume: lotsText(r.volume),
    price: Number(r.price),
    sl: r.sl === null ? null : Number(r.sl),
    tp: r.tp === null ? null : Number(r.tp),
    expiration: r.expiration,
    placedTime: r.placed_time,
    serverPlacedTime: r.server_placed_time,
    state: r.state,
    positionId: r.position_id,
    doneTime: r.done_time,
    reason: r.reason,
    comment: r.comment,
    native: r.native,
    updatedAt: r.updated_at,
  };
}
