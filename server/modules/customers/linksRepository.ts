/**
 * The SQL of a customer's trading accounts (docs/customers.md): its links (the key is the account,
 * so an account belongs to one customer at most) with the mirror's balance and equity, and the
 * linked accounts' latest deals from the trade history store.
 */
import { and, asc, eq, sql } from "drizzle-orm";
import type { CustomerDeal } from "../../../core/schemas/customers.ts";
import { customerAccounts, customers, tradeDeals, tradePlatforms, tradingAccounts } from "../../db/schema.ts";
import { rowsOf } from "../../db/rows.ts";
import type { DbOrTx } from "../../db/client.ts";

export interface AccountRef {
  platformId: string;
  login: string;
}

/** The customer's linked accounts, by platform name then login, with the mirror's figures (`missing`: the mirror no longer has it). */
export async function linkedAccountRows(db: DbOrTx, organizationId: string, customerId: string) {
  const a = tradingAccounts;
  return db
    .select({
      platformId: customerAccounts.platformId,
      platformName: tradePlatforms.name,
      platformType: tradePlatforms.type,
      login: customerAccounts.login,
      name: a.name,
      group: a.group,
      currency: a.currency,
      balance: a.balance,
      equity: a.equity,
      linkedAt: customerAccounts.linkedAt,
      missing: sql<boolean>`${a.login} is null`,
    })
    .from(customerAccounts)
    .innerJoin(tradePlatforms, eq(tradePlatforms.id, customerAccounts.platformId))
    .leftJoin(a, and(eq(a.platformId, customerAccounts.platformId), eq(a.login, customerAccounts.login)))
    .where(and(eq(customerAccounts.organizationId, organizationId), eq(customerAccounts.customerId, customerId)))
    .orderBy(asc(tradePlatforms.name), asc(sql`length(${customerAccounts.login})`), asc(customerAccounts.login));
}

/** Whether the organization has this account on this platform (in the accounts' mirror). */
export async function accountExists(db: DbOrTx, organizationId: string, account: AccountRef): Promise<boolean> {
  const [known] = await db
    .select({ login: tradingAccounts.login })
    .from(tradingAccounts)
    .where(
      and(eq(tradingAccounts.organizationId, organizationId), eq(tradingAccounts.platformId, account.platformId), eq(tradingAccounts.login, account.login)),
    );
  return known !== undefined;
}

/** Links the account to the customer; false when some customer has it already. */
export async function insertLink(db: DbOrTx, organizationId: string, customerId: string, account: AccountRef): Promise<boolean> {
  const inserted = await db
    .insert(customerAccounts)
    .values({ organizationId, customerId, ...account })
    .onConflictDoNothing()
    .returning({ login: customerAccounts.login });
  return inserted.length > 0;
}

/** The customer the account is linked to, if any. */
export async function linkHolder(db: DbOrTx, account: AccountRef): Promise<{ id: string; name: string } | undefined> {
  const [holder] = await db
    .select({ id: customers.id, name: customers.name })
    .from(customerAccounts)
    .innerJoin(customers, eq(customers.id, customerAccounts.customerId))
    .where(and(eq(customerAccounts.platformId, account.platformId), eq(customerAccounts.login, account.login)));
  return holder;
}

/** Unlinks the account from the customer; false when it was not linked to it. */
export async function deleteLink(db: DbOrTx, customerId: string, account: AccountRef): Promise<boolean> {
  const removed = await db
    .delete(customerAccounts)
    .where(and(eq(customerAccounts.customerId, customerId), eq(customerAccounts.platformId, account.platformId), eq(customerAccounts.login, account.login)))
    .returning({ login: customerAccounts.login });
  return removed.length > 0;
}

export type DealRow = {
  platform_id: string;
  login: string;
  deal_id: string;
  time: string;
  action: CustomerDeal["action"];
  entry: CustomerDeal["entry"];
  symbol: string | null;
  volume: string;
  price: number;
  profit: string;
};

/**
 * The linked accounts' latest deals (filled for the platforms the Trades Blotter follows): each
 * account's newest `limit` by its (organization, login, time) index, then the newest of those.
 */
export async function recentDealRows(db: DbOrTx, organizationId: string, customerId: string, limit: number): Promise<DealRow[]> {
  const result = await db.execute<DealRow>(sql`
    select d.platform_id, d.login, d.deal_id,
      to_char(d.time at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as time,
      d.action, d.entry, d.symbol, d.volume::text as volume, d.price, d.profit::text as profit
    from ${customerAccounts} ca
    cross join lateral (
      select * from ${tradeDeals} t
      where t.organization_id = ${organizationId}::uuid and t.login = ca.login and t.platform_id = ca.platform_id
      order by t.time desc, t.seq desc
      limit ${limit}
    ) d
    where ca.organization_id = ${organizationId}::uuid and ca.customer_id = ${customerId}::uuid
    order by d.time desc, d.seq desc
    limit ${limit}`);
  return rowsOf<DealRow>(result);
}

/**
 * Which of these accounts a customer of the organization already has, and which customer: for the
 * "Link" picker, which offers only accounts nobody has (an account belongs to one customer).
 */
export async function ownersOfAccounts(db: DbOrTx, organizationId: string, accounts: readonly AccountRef[]) {
  if (accounts.length === 0) return [];
  const keys = accounts.map((a) => sql`(${a.platformId}::uuid, ${a.login})`);
  return db
    .select({ platformId: customerAccounts.platformId, login: customerAccounts.login, customerId: customers.id, customerName: customers.name })
    .from(customerAccounts)
    .innerJoin(customers, eq(customers.id, customerAccounts.customerId))
    .where(
      and(
        eq(customerAccounts.organizationId, organizationId),
        eq(customers.organizationId, organizationId),
        sql`(${customerAccounts.platformId}, ${customerAccounts.login}) in (${sql.join(keys, sql`, `)})`,
      ),
    );
}
