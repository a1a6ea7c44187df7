/**
 * The source's history for the copier's preview (./preview.ts): one account's trading deals and
 * pending orders over a period, read from the trade history store (trade_deals, trade_orders),
 * oldest first, volumes as whole Volume units (lots × 10,000 in numeric, so exact). An MT4 exit
 * whose comment is "to #<ticket>" (a partial close that re-issued the rest) names that ticket, the
 * position id the MT4 connector gives it (server/connectors/mt4/ids.ts).
 */
import { sql } from "drizzle-orm";
import type { HistoryDeal, HistoryOrder } from "../../../core/copier/index.ts";
import type { DbOrTx } from "../../db/client.ts";
import { rowsOf } from "../../db/rows.ts";

interface DealRow {
  deal_id: string;
  t: string | number;
  action: HistoryDeal["action"];
  entry: HistoryDeal["entry"];
  position_id: string | null;
  symbol: string | null;
  volume: string | number;
  price: number;
  sl: number | null;
  tp: number | null;
  continued_by: string | null;
}

interface OrderRow {
  order_id: string;
  symbol: string;
  type: HistoryOrder["type"];
  volume: string | number;
  price: number;
  sl: number | null;
  tp: number | null;
  expiration: string | number | null;
  placed: string | number;
  state: HistoryOrder["state"];
  position_id: string | null;
  done: string | number | null;
}

const ms = (column: string) => sql.raw(`(extract(epoch from ${column}) * 1000)::float8`);
const num = (v: string | number | null) => (v === null ? null : Math.round(Number(v)));

/** Trading deals of the account within [from, to), oldest first, at most `limit`. */
export async function sourceDeals(
  db: DbOrTx,
  organizationId: string,
  platformId: string,
  login: string,
  from: Date,
  to: Date,
  limit: number,
): Promise<HistoryDeal[]> {
  const result = await db.execute(sql`
    select d.deal_id, ${ms("d.time")} as t, d.action, d.entry, d.position_id, d.symbol, (d.volume * 10000)::bigint::text as volume, d.price, d.sl, d.tp,
      case when d.native->>'platform' = 'MT4' and d.entry = 'out' then substring(d.comment from '^to #([0-9]+)') end as continued_by
    from trade_deals d
    where d.organization_id = ${organizationId}::uuid and d.platform_id = ${platformId}::uuid and d.login = ${login}
      and d.action in ('buy', 'sell') and d.time >= ${from.toISOString()}::timestamptz and d.time < ${to.toISOString()}::timestamptz
    order by d.time, d.seq
    limit ${limit}`);
  return rowsOf<DealRow>(result).map((r) => ({
    id: r.deal_id,
    time: num(r.t)!,
    action: r.action,
    entry: r.entry,
    positionId: r.position_id,
    symbol: r.symbol,
    volume: num(r.volume)!,
    price: Number(r.price),
    sl: r.sl === null ? null : Number(r.sl),
    tp: r.tp === null ? null : Number(r.tp),
    continuedBy: r.continued_by,
  }));
}

/** Pending orders of the account placed or ended within [from, to), oldest placed first, at most `limit`. */
export async function sourceOrders(
  db: DbOrTx,
  organizationId: string,
  platformId: string,
  login: string,
  from: Date,
  to: Date,
  limit: number,
): Promise<HistoryOrder[]> {
  const [f, t] = [from.toISOString(), to.toISOString()];
  const result = await db.execute(sql`
    select o.order_id, o.symbol, o.type, (o.volume * 10000)::bigint::text as volume, o.price, o.sl, o.tp, ${ms("o.expiration")} as expiration,
      ${ms("o.placed_time")} as placed, o.state, o.position_id, ${ms("o.done_time")} as done
    from trade_orders o
    where o.organization_id = ${organizationId}::uuid and o.platform_id = ${platformId}::uuid and o.login = ${login}
      and ((o.placed_time >= ${f}::timestamptz and o.placed_time < ${t}::timestamptz)
        or (o.done_time >= ${f}::timestamptz and o.done_time < ${t}::timestamptz))
    order by o.placed_time, o.order_id
    limit ${limit}`);
  return rowsOf<OrderRow>(result).map((r) => ({
    id: r.order_id,
    symbol: r.symbol,
    type: r.type,
    volume: num(r.volume)!,
    price: Number(r.price),
    sl: r.sl === null ? null : Number(r.sl),
    tp: r.tp === null ? null : Number(r.tp),
    expiration: num(r.expiration),
    placedTime: num(r.placed)!,
    state: r.state,
    positionId: r.position_id,
    doneTime: num(r.done),
  }));
}
