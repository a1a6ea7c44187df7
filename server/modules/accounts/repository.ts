/**
 * Queries on the accounts mirror for one account (the list is ./accountList.ts). Every one is
 * scoped by organization.
 */
import { and, eq, sql, type SQL } from "drizzle-orm";
import type { Db, DbOrTx } from "../../db/client.ts";
import { tradePlatforms, tradingAccounts } from "../../db/schema.ts";
import { decimalText } from "./mirror/rows.ts";
import type { AccountDetail, AccountRow } from "./schemas.ts";

const t = tradingAccounts;

/** An account row's columns, with its platform's name and type (the platform joined). */
export const rowColumns = {
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

type RawRow = Awaited<ReturnType<typeof _selectRows>>[number];

/** Only its type is used: the shape of a row as the list query selects it. */
function _selectRows(db: Db, where: SQL | undefined) {
  return db.select(rowColumns).from(t).innerJoin(tradePlatforms, eq(tradePlatforms.id, t.platformId)).where(where).$dynamic();
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
export async function findAccount(db: DbOrTx, organizationId: string, platformId: string, login: string): Promise<Omit<AccountDetail, "live"> | undefined> {
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
export async function applyBalanceChange(tx: DbOrTx, platformId: string, login: string, after: { balance: string; credit: string }): Promise<void> {
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
