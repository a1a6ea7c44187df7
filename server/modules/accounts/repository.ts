/**
 * Queries on the accounts mirror. Every one is scoped by organization (the leading column of
 * every index); filters and sorts are built from a whitelist and parameters only.
 */
import { and, asc, count, desc, eq, gte, inArray, lte, sql, type SQL } from "drizzle-orm";
import { compileMask } from "../../../core/trading/index.ts";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { Db } from "../../db/client.ts";
import { tradePlatforms, tradingAccounts } from "../../db/schema.ts";
import { decimalText } from "../../accounts/rows.ts";
import { rowsOf } from "../../accounts/store.ts";
import type { DbOrTx } from "../audit/record.ts";
import type { AccountDetail, AccountRow, AccountSortField, ListAccountsQuery } from "./schemas.ts";

const t = tradingAccounts;
const loginOrder = [sql`length(${t.login})`, t.login] as const;

const rowColumns = {
  platformId: t.platformId,
  platformName: tradePlatforms.name,
  platformType: tradePlatforms.type,
  login: t.login,
  group: t.group,
  name: t.name,
  email: t.email,
  leverage: t.leverage,
  currency: t.currency,
  balance: t.balance,
  credit: t.credit,
  equity: t.equity,
  margin: t.margin,
  freeMargin: t.freeMargin,
  marginLevel: t.marginLevel,
  marginState: t.marginState,
  enabled: t.enabled,
  readOnly: t.readOnly,
  registration: t.registration,
  lastAccess: t.lastAccess,
};

const detailColumns = {
  ...rowColumns,
  phone: t.phone,
  country: t.country,
  city: t.city,
  address: t.address,
  comment: t.comment,
  updatedAt: t.updatedAt,
};

/** What each sort field orders by; nullable columns put the empty ones last either way. */
const SORTS: Record<AccountSortField, { by: (AnyPgColumn | SQL)[]; nullable?: boolean }> = {
  platformId: { by: [t.platformId] },
  platformName: { by: [tradePlatforms.name] },
  platformType: { by: [tradePlatforms.type] },
  login: { by: [...loginOrder] },
  group: { by: [t.group] },
  name: { by: [t.name] },
  email: { by: [t.email] },
  leverage: { by: [t.leverage] },
  currency: { by: [t.currency] },
  balance: { by: [t.balance] },
  credit: { by: [t.credit] },
  equity: { by: [t.equity] },
  margin: { by: [t.margin] },
  freeMargin: { by: [t.freeMargin] },
  marginLevel: { by: [t.marginLevel], nullable: true },
  marginState: { by: [t.marginState] },
  enabled: { by: [t.enabled] },
  readOnly: { by: [t.readOnly] },
  registration: { by: [t.registration] },
  lastAccess: { by: [t.lastAccess], nullable: true },
};

/** LIKE pattern text for a literal: `\`, `%` and `_` lose their meaning. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, "\\$&");
}

/**
 * The organization's distinct group names, by a loose index scan on (organization_id, group):
 * one index probe per group, however many accounts there are.
 */
async function distinctGroups(db: Db, organizationId: string): Promise<string[]> {
  const result = await db.execute<{ group: string }>(sql`
    with recursive g as (
      (select "group" from trading_accounts s where s.organization_id = ${organizationId}::uuid order by "group" limit 1)
      union all
      select (
        select t."group" from trading_accounts t
        where t.organization_id = ${organizationId}::uuid and t."group" > g."group"
        order by t."group" limit 1
      ) from g where g."group" is not null
    )
    select "group" from g where "group" is not null`);
  return rowsOf<{ group: string }>(result).map((r) => r.group);
}

/**
 * A group mask as a condition: the mask is matched with core/trading/mask.ts itself (the
 * platforms' semantics by construction: `*`, `!` exclusions first, any case) against the few
 * distinct group names, and the rows are selected by equality on the indexed column.
 */
async function groupCondition(db: Db, organizationId: string, q: ListAccountsQuery): Promise<SQL | undefined> {
  if (!q.groupMask || q.groupMask.split(",").every((p) => p.trim() === "")) return undefined;
  const matches = compileMask(q.groupMask);
  const groups = (await distinctGroups(db, organizationId)).filter((g) => matches(g));
  return groups.length > 0 ? inArray(t.group, groups) : sql`false`;
}

function filters(organizationId: string, q: ListAccountsQuery, groups: SQL | undefined): SQL | undefined {
  const conditions: (SQL | undefined)[] = [eq(t.organizationId, organizationId), groups];
  if (q.platformId) conditions.push(eq(t.platformId, q.platformId));
  if (q.login) {
    conditions.push(
      q.login.endsWith("*") ? sql`${t.login} like ${`${escapeLike(q.login.slice(0, -1))}%`} escape '\\'` : eq(t.login, q.login),
    );
  }
  if (q.name) conditions.push(sql`${t.name} ilike ${`%${escapeLike(q.name)}%`} escape '\\'`);
  if (q.email) conditions.push(sql`${t.email} ilike ${`%${escapeLike(q.email)}%`} escape '\\'`);
  if (q.balanceMin !== undefined) conditions.push(gte(t.balance, q.balanceMin));
  if (q.balanceMax !== undefined) conditions.push(lte(t.balance, q.balanceMax));
  if (q.equityMin !== undefined) conditions.push(gte(t.equity, q.equityMin));
  if (q.equityMax !== undefined) conditions.push(lte(t.equity, q.equityMax));
  return and(...conditions);
}

function ordering(field: AccountSortField, dir: "asc" | "desc"): SQL[] {
  const { by, nullable } = SORTS[field];
  const primary = by.map((c) =>
    nullable ? sql`${c} ${sql.raw(dir === "asc" ? "asc" : "desc")} nulls last` : dir === "asc" ? asc(c) : desc(c),
  );
  // A total order, so offset paging never repeats or skips a row.
  const tie = field === "login" ? [asc(t.platformId)] : [asc(t.platformId), ...loginOrder.map((c) => asc(c))];
  return [...primary, ...tie];
}

type RawRow = Awaited<ReturnType<typeof selectRows>>[number];

function selectRows(db: Db, where: SQL | undefined) {
  return db.select(rowColumns).from(t).innerJoin(tradePlatforms, eq(tradePlatforms.id, t.platformId)).where(where).$dynamic();
}

export async function listAccounts(db: Db, organizationId: string, q: ListAccountsQuery): Promise<{ items: AccountRow[]; total: number }> {
  const where = filters(organizationId, q, await groupCondition(db, organizationId, q));
  const [rows, [counted]] = await Promise.all([
    selectRows(db, where).orderBy(...ordering(q.sort, q.dir)).limit(q.limit).offset(q.offset),
    db.select({ total: count() }).from(t).where(where),
  ]);
  return { items: rows.map(toAccountRow), total: Number(counted?.total ?? 0) };
}

export function toAccountRow(row: RawRow): AccountRow {
  return {
    ...row,
    balance: decimalText(row.balance)!,
    credit: decimalText(row.credit)!,
    equity: decimalText(row.equity)!,
    margin: decimalText(row.margin)!,
    freeMargin: decimalText(row.freeMargin)!,
    marginLevel: decimalText(row.marginLevel),
    registration: row.registration.toISOString(),
    lastAccess: row.lastAccess?.toISOString() ?? null,
  };
}

/** One account of the organization, or undefined (another organization's is as absent as an unknown one). */
export async function findAccount(
  db: DbOrTx,
  organizationId: string,
  platformId: string,
  login: string,
): Promise<Omit<AccountDetail, "live"> | undefined> {
  const [row] = await db
    .select(detailColumns)
    .from(t)
    .innerJoin(tradePlatforms, eq(tradePlatforms.id, t.platformId))
    .where(and(eq(t.organizationId, organizationId), eq(t.platformId, platformId), eq(t.login, login)))
    .limit(1);
  if (!row) return undefined;
  const { phone, country, city, address, comment, updatedAt, ...rest } = row;
  return { ...toAccountRow(rest), phone, country, city, address, comment, updatedAt: updatedAt.toISOString() };
}

/** Is this platform the organization's? (Mirror rows may not exist yet for a platform just added.) */
export async function platformOf(db: Db, organizationId: string, platformId: string) {
  const [row] = await db
    .select({ id: tradePlatforms.id, organizationId: tradePlatforms.organizationId, type: tradePlatforms.type, name: tradePlatforms.name })
    .from(tradePlatforms)
    .where(and(eq(tradePlatforms.id, platformId), eq(tradePlatforms.organizationId, organizationId)))
    .limit(1);
  return row;
}

/**
 * After a balance operation: the new balance and credit, and equity / free margin moved by what
 * that changed on the row (nothing, if the platform's own account event got here first).
 */
export async function applyBalanceChange(
  tx: DbOrTx,
  platformId: string,
  login: string,
  after: { balance: string; credit: string },
): Promise<void> {
  const delta = sql`((${after.balance}::numeric - ${t.balance}) + (${after.credit}::numeric - ${t.credit}))`;
  await tx
    .update(t)
    .set({
      balance: after.balance,
      credit: after.credit,
      equity: sql`${t.equity} + ${delta}`,
      freeMargin: sql`${t.freeMargin} + ${delta}`,
      marginLevel: sql`case when ${t.margin} > 0 then round((${t.equity} + ${delta}) * 100 / ${t.margin}, 2) else null end`,
      updatedAt: sql`now()`,
    })
    .where(and(eq(t.platformId, platformId), eq(t.login, login)));
}
