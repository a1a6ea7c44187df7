/**
 * The blotter's filters as SQL, shared by deals and positions. Parameters only; masks follow
 * core/trading/mask.ts (comma-separated, `*` any run of characters, a leading `!` excludes and is
 * checked first, any case), translated to ILIKE patterns with the other LIKE characters escaped.
 */
import { sql, type SQL } from "drizzle-orm";
import { BLOTTER_TOTAL_CAP, type BlotterDealFilters, type BlotterPositionQuery } from "../../../../core/schemas/tradesBlotter.ts";
import type { Db } from "../../../db/client.ts";
import { rowsOf } from "../../../db/rows.ts";
import { escapeLike } from "../../accounts/accountListRepository.ts";

export type BlotterFilters = Omit<BlotterPositionQuery, "cursor" | "limit" | "side"> & { side?: BlotterDealFilters["side"] };

/** A mask as a condition on `column` (undefined: the mask is empty and matches everything). */
export function maskCondition(column: SQL, mask: string | undefined): SQL | undefined {
  const parts = (mask ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length === 0) return undefined;
  const pattern = (p: string) => escapeLike(p).replace(/\*/g, "%");
  const includes = parts.filter((p) => !p.startsWith("!")).map((p) => sql`${column} ilike ${pattern(p)}`);
  const excludes = parts.filter((p) => p.startsWith("!")).map((p) => sql`${column} not ilike ${pattern(p.slice(1))}`);
  const conditions = [sql`${column} is not null`, ...excludes];
  if (includes.length > 0) conditions.push(sql`(${sql.join(includes, sql` or `)})`);
  return sql.join(conditions, sql` and `);
}

/**
 * The conditions every blotter query shares: the rows of `alias` ("d" for deals, "o" for positions) on the allowed
 * platforms of the organization, then each filter present. `side` is the column holding buy/sell.
 */
export function filterConditions(alias: "d" | "o", organizationId: string, platformIds: readonly string[], q: BlotterFilters, side: SQL): SQL[] {
  const c = (name: string) => sql.raw(`${alias}.${name}`);
  const conditions: SQL[] = [sql`${c("organization_id")} = ${organizationId}::uuid`, sql`${c("platform_id")} = any(${sql.param(platformIds)}::uuid[])`];
  if (q.login) {
    const logins = q.login
      .split(",")
      .map((l) => l.trim())
      .filter(Boolean);
    const one = (login: string) => (login.endsWith("*") ? sql`${c("login")} like ${`${escapeLike(login.slice(0, -1))}%`}` : sql`${c("login")} = ${login}`);
    conditions.push(logins.length === 1 ? one(logins[0]!) : sql`(${sql.join(logins.map(one), sql` or `)})`);
  }
  // The group is the account's (the accounts mirror): a semi-join on it, so a query filters the
  // deals or positions alone and joins an account only for the rows it returns (deals.ts).
  const group = maskCondition(sql`ga."group"`, q.groupMask);
  if (group) {
    conditions.push(sql`exists (select 1 from trading_accounts ga where ga.platform_id = ${c("platform_id")} and ga.login = ${c("login")} and ${group})`);
  }
  const symbol = maskCondition(c("symbol"), q.symbolMask);
  if (symbol) conditions.push(symbol);
  if (q.side) conditions.push(sql`${side} = ${q.side}`);
  if (q.volumeMin !== undefined) conditions.push(sql`${c("volume")} >= ${q.volumeMin}::numeric`);
  if (q.volumeMax !== undefined) conditions.push(sql`${c("volume")} <= ${q.volumeMax}::numeric`);
  if (q.text) {
    const like = `%${escapeLike(q.text)}%`;
    conditions.push(sql`(${c("comment")} ilike ${like} or ${c("symbol")} ilike ${like} or ${c("login")} ilike ${like})`);
  }
  return conditions;
}

/**
 * One keyset page of `rows` (read with `limit + 1` to know whether more follow) and, on the first
 * page only, the filter's total counted up to BLOTTER_TOTAL_CAP (`totalCapped`: there are more).
 * `from` and `condition` are the query's own, so the count matches the rows.
 */
export async function pageWithTotal<R>(
  db: Db,
  rows: R[],
  limit: number,
  firstPage: boolean,
  from: SQL,
  condition: SQL,
): Promise<{ page: R[]; more: boolean; total: number | null; totalCapped: boolean }> {
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  if (!firstPage) return { page, more, total: null, totalCapped: false };
  const counted = more
    ? Number(
        rowsOf<{ n: number }>(await db.execute(sql`select count(*)::int as n from (select 1 ${from} where ${condition} limit ${BLOTTER_TOTAL_CAP + 1}) x`))[0]
          ?.n ?? 0,
      )
    : page.length;
  return { page, more, total: Math.min(counted, BLOTTER_TOTAL_CAP), totalCapped: counted > BLOTTER_TOTAL_CAP };
}
