/**
 * Customers (docs/customers.md): the list at scale, the customer with its linked accounts, edits
 * with optimistic concurrency, account links (one customer per account, enforced by the links'
 * key), notes, CSV export and import. Every query is scoped by organization: another
 * organization's customer is "not found". Every change is audited in its own transaction.
 */
import { and, arrayContains, asc, desc, eq, inArray, isNull, sql, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { z } from "zod";
import {
  CustomerFieldsSchema,
  type Customer,
  type CustomerDeal,
  type CustomerDetail,
  type CustomerNote,
  type CustomerSortField,
  type LinkedAccount,
  type ListCustomersQuery,
} from "../../../core/schemas/customers.ts";
import type { Db } from "../../db/client.ts";
import { onlyRow } from "../../db/rows.ts";
import { customerAccounts, customerNotes, customers, memberships, tradeDeals, tradePlatforms, tradingAccounts, users } from "../../db/schema.ts";
import { rowsOf } from "../accounts/mirror/writes.ts";
import { ConflictError, InvalidRequestError, NotFoundError } from "../../errors.ts";
import { escapeLike } from "../accounts/accountList.ts";
import { recordAudit, type Actor, type DbOrTx } from "../audit/record.ts";
import { lockForQuota, requireCustomersQuota, type Quotas } from "../../quotas.ts";
import { customerCount } from "./importRepository.ts";
import { visible } from "./visibility.ts";

const c = customers;
type CustomerRow = typeof customers.$inferSelect;
type Fields = z.output<typeof CustomerFieldsSchema>;
type Patch = Partial<Fields> & { version: number };

const NOT_FOUND = "This customer does not exist in this organization.";

const SORTS: Record<CustomerSortField, AnyPgColumn | SQL> = {
  name: sql`lower(${c.name})`,
  email: sql`lower(${c.email})`,
  country: c.country,
  status: c.status,
  kyc: c.kyc,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
};

type Filters = Omit<ListCustomersQuery, "sort" | "dir" | "offset" | "limit">;

export function where(organizationId: string, q: Filters): SQL | undefined {
  const conditions: (SQL | undefined)[] = [eq(c.organizationId, organizationId), visible];
  if (q.q) {
    const pattern = `%${escapeLike(q.q)}%`;
    conditions.push(sql`(${c.name} ilike ${pattern} or ${c.email} ilike ${pattern})`);
  }
  if (q.status?.length) conditions.push(inArray(c.status, q.status));
  if (q.kyc?.length) conditions.push(inArray(c.kyc, q.kyc));
  if (q.tag) conditions.push(arrayContains(c.tags, [q.tag]));
  if (q.country) conditions.push(eq(c.country, q.country));
  if (q.owner) conditions.push(q.owner === "none" ? isNull(c.ownerSub) : eq(c.ownerSub, q.owner));
  return and(...conditions);
}

const accountCount = sql<number>`(select count(*)::int from ${customerAccounts} where ${customerAccounts.customerId} = ${c.id})`;

const listColumns = {
  customer: c,
  ownerName: sql<string | null>`coalesce(${users.name}, ${users.email})`,
  ownerEmail: users.email,
  accountCount,
};

function selectCustomers(db: DbOrTx) {
  return db.select(listColumns).from(c).leftJoin(users, eq(users.sub, c.ownerSub)).$dynamic();
}

/**
 * One page of the list in the view's order. The page's ids are found first, on the sort's index,
 * and only those rows are joined to their owner and counted accounts: with the joins in the same
 * query, PostgreSQL computes them for every row it skips, so the middle of 100,000 customers took
 * 600 ms instead of a few.
 */
function pageOf(db: DbOrTx, filter: SQL | undefined, q: Pick<ListCustomersQuery, "sort" | "dir">, limit: number, offset: number) {
  const page = db
    .select({ id: c.id })
    .from(c)
    .where(filter)
    .orderBy(...ordering(q))
    .limit(limit)
    .offset(offset)
    .as("page");
  return db
    .select(listColumns)
    .from(c)
    .innerJoin(page, eq(page.id, c.id))
    .leftJoin(users, eq(users.sub, c.ownerSub))
    .orderBy(...ordering(q));
}

function view(row: { customer: CustomerRow; ownerName: string | null; accountCount: number }): Customer {
  const r = row.customer;
  return {
    id: r.id,
    kind: r.kind,
    name: r.name,
    email: r.email,
    phone: r.phone,
    country: r.country,
    status: r.status,
    kyc: r.kyc,
    tags: r.tags,
    ownerSub: r.ownerSub,
    ownerName: r.ownerSub ? (row.ownerName ?? r.ownerSub) : null,
    accountCount: Number(row.accountCount),
    version: r.version,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

export function ordering(q: Pick<ListCustomersQuery, "sort" | "dir">) {
  const by = q.dir === "desc" ? desc : asc;
  return [by(SORTS[q.sort]), by(c.id)];
}

/** How long a count answers the same organization and filters: one count at a time, however many ask. */
const COUNT_FRESH_MS = 3000;
const counts = new WeakMap<Db, Map<string, { at: number; value: Promise<number> }>>();

function countOf(db: Db, organizationId: string, q: Filters, filter: SQL | undefined): Promise<number> {
  let cache = counts.get(db);
  if (!cache) counts.set(db, (cache = new Map<string, { at: number; value: Promise<number> }>()));
  const key = JSON.stringify([organizationId, q.q, q.status, q.kyc, q.tag, q.country, q.owner]);
  const now = Date.now();
  const hit = cache.get(key);
  if (hit && now - hit.at < COUNT_FRESH_MS) return hit.value;
  if (cache.size > 5000) for (const [k, v] of cache) if (now - v.at >= COUNT_FRESH_MS) cache.delete(k);
  const value = db
    .select({ total: sql<number>`count(*)::int` })
    .from(c)
    .where(filter)
    .then(([row]) => Number(row?.total ?? 0));
  cache.set(key, { at: now, value });
  value.catch(() => cache.delete(key));
  return value;
}

export async function listCustomers(db: Db, organizationId: string, q: ListCustomersQuery): Promise<{ items: Customer[]; total: number }> {
  const filter = where(organizationId, q);
  const rows = await pageOf(db, filter, q, q.limit, q.offset);
  const seen = q.offset + rows.length;
  // A short page ends the list: the total is exact without counting.
  if (rows.length < q.limit && (rows.length > 0 || q.offset === 0)) return { items: rows.map(view), total: seen };
  // Otherwise the count (maybe a few seconds old) is never less than what this page shows.
  return { items: rows.map(view), total: Math.max(await countOf(db, organizationId, q, filter), seen) };
}

async function loadCustomer(db: DbOrTx, organizationId: string, id: string, lock = false): Promise<CustomerRow> {
  const query = db
    .select()
    .from(c)
    .where(and(eq(c.organizationId, organizationId), eq(c.id, id), visible));
  const [row] = lock ? await query.for("update") : await query;
  if (!row) throw new NotFoundError(NOT_FOUND);
  return row;
}

async function customerView(db: DbOrTx, organizationId: string, id: string): Promise<Customer> {
  const [row] = await selectCustomers(db).where(and(eq(c.organizationId, organizationId), eq(c.id, id), visible));
  if (!row) throw new NotFoundError(NOT_FOUND);
  return view(row);
}

export async function linkedAccounts(db: DbOrTx, organizationId: string, customerId: string): Promise<LinkedAccount[]> {
  const a = tradingAccounts;
  const rows = await db
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
    })
    .from(customerAccounts)
    .innerJoin(tradePlatforms, eq(tradePlatforms.id, customerAccounts.platformId))
    .leftJoin(a, and(eq(a.platformId, customerAccounts.platformId), eq(a.login, customerAccounts.login)))
    .where(and(eq(customerAccounts.organizationId, organizationId), eq(customerAccounts.customerId, customerId)))
    .orderBy(asc(tradePlatforms.name), asc(sql`length(${customerAccounts.login})`), asc(customerAccounts.login));
  return rows.map((r) => ({ ...r, linkedAt: r.linkedAt.toISOString() }));
}

const RECENT_DEALS = 20;

/**
 * The linked accounts' latest deals from the trade history store (filled for the platforms the
 * Trades Blotter follows): each account's newest few by its (organization, login, time) index,
 * then the newest of those.
 */
async function recentDeals(db: Db, organizationId: string, customerId: string): Promise<CustomerDeal[]> {
  const result = await db.execute<{
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
  }>(sql`
    select d.platform_id, d.login, d.deal_id,
      to_char(d.time at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as time,
      d.action, d.entry, d.symbol, d.volume::text as volume, d.price, d.profit::text as profit
    from ${customerAccounts} ca
    cross join lateral (
      select * from ${tradeDeals} t
      where t.organization_id = ${organizationId}::uuid and t.login = ca.login and t.platform_id = ca.platform_id
      order by t.time desc, t.seq desc
      limit ${RECENT_DEALS}
    ) d
    where ca.organization_id = ${organizationId}::uuid and ca.customer_id = ${customerId}::uuid
    order by d.time desc, d.seq desc
    limit ${RECENT_DEALS}`);
  return rowsOf<{
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
  }>(result).map((r) => ({
    platformId: r.platform_id,
    login: r.login,
    dealId: r.deal_id,
    time: r.time,
    action: r.action,
    entry: r.entry,
    symbol: r.symbol,
    volume: r.volume,
    price: Number(r.price),
    profit: r.profit,
  }));
}

export async function getCustomer(db: Db, organizationId: string, id: string): Promise<CustomerDetail> {
  const customer = await customerView(db, organizationId, id);
  const [accounts, deals] = await Promise.all([linkedAccounts(db, organizationId, id), recentDeals(db, organizationId, id)]);
  return { ...customer, accounts, recentDeals: deals };
}

/** What the audit keeps of a customer: its fields, no bookkeeping. */
function auditView(r: CustomerRow) {
  const { organizationId: _o, createdAt: _c, updatedAt: _u, ...rest } = r;
  return rest;
}

async function checkOwner(db: DbOrTx, organizationId: string, ownerSub: string | null | undefined) {
  if (!ownerSub) return;
  const [m] = await db
    .select({ sub: memberships.userSub })
    .from(memberships)
    .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userSub, ownerSub)));
  if (!m) throw new InvalidRequestError("owner must be a member of this organization.");
}

export async function createCustomer(db: Db, actor: Actor, fields: Fields, quotas: Quotas): Promise<Customer> {
  return db.transaction(async (tx) => {
    await checkOwner(tx, actor.organizationId, fields.ownerSub);
    await lockForQuota(tx, { organizationId: actor.organizationId });
    requireCustomersQuota(quotas, await customerCount(tx, actor.organizationId), 1);
    const row = onlyRow(
      await tx
        .insert(c)
        .values({ ...fields, organizationId: actor.organizationId })
        .returning(),
      "the new customer",
    );
    await recordAudit(tx, actor, { action: "customer.created", targetType: "customer", targetId: row.id, after: auditView(row) });
    return customerView(tx, actor.organizationId, row.id);
  });
}

export async function updateCustomer(db: Db, actor: Actor, id: string, patch: Patch): Promise<Customer> {
  return db.transaction(async (tx) => {
    const before = await loadCustomer(tx, actor.organizationId, id, true);
    if (before.version !== patch.version)
      throw new ConflictError(
        `Someone else changed this customer since you opened it (version ${before.version}, yours ${patch.version}). Reload it and make your change again.`,
      );
    const { version: _v, ...fields } = patch;
    if (fields.ownerSub !== undefined && fields.ownerSub !== before.ownerSub) await checkOwner(tx, actor.organizationId, fields.ownerSub);
    const after = onlyRow(
      await tx
        .update(c)
        .set({ ...fields, version: before.version + 1, updatedAt: new Date() })
        .where(eq(c.id, id))
        .returning(),
      "the changed customer",
    );
    await recordAudit(tx, actor, { action: "customer.updated", targetType: "customer", targetId: id, before: auditView(before), after: auditView(after) });
    return customerView(tx, actor.organizationId, id);
  });
}

/** Deletes the customer, its notes and its links; the accounts stay, unlinked. */
export async function deleteCustomer(db: Db, actor: Actor, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    const before = await loadCustomer(tx, actor.organizationId, id, true);
    const links = await tx
      .delete(customerAccounts)
      .where(eq(customerAccounts.customerId, id))
      .returning({ platformId: customerAccounts.platformId, login: customerAccounts.login });
    await tx.delete(c).where(eq(c.id, id));
    await recordAudit(tx, actor, {
      action: "customer.deleted",
      targetType: "customer",
      targetId: id,
      before: { ...auditView(before), accounts: links },
    });
  });
}

export async function linkAccount(db: Db, actor: Actor, customerId: string, account: { platformId: string; login: string }): Promise<LinkedAccount[]> {
  return db.transaction(async (tx) => {
    const customer = await loadCustomer(tx, actor.organizationId, customerId, true);
    const [known] = await tx
      .select({ login: tradingAccounts.login })
      .from(tradingAccounts)
      .where(
        and(
          eq(tradingAccounts.organizationId, actor.organizationId),
          eq(tradingAccounts.platformId, account.platformId),
          eq(tradingAccounts.login, account.login),
        ),
      );
    if (!known) throw new NotFoundError(`Account ${account.login} does not exist on that platform of this organization.`);
    const before = (await linkedAccounts(tx, actor.organizationId, customerId)).map(ref);
    const inserted = await tx
      .insert(customerAccounts)
      .values({ organizationId: actor.organizationId, customerId, ...account })
      .onConflictDoNothing()
      .returning({ login: customerAccounts.login });
    if (inserted.length === 0) {
      const [holder] = await tx
        .select({ id: c.id, name: c.name })
        .from(customerAccounts)
        .innerJoin(c, eq(c.id, customerAccounts.customerId))
        .where(and(eq(customerAccounts.platformId, account.platformId), eq(customerAccounts.login, account.login)));
      if (holder?.id === customerId) throw new ConflictError(`Account ${account.login} is already linked to this customer.`);
      throw new ConflictError(`Account ${account.login} is already linked to ${holder?.name ?? "another customer"}. Unlink it there first.`);
    }
    const after = await linkedAccounts(tx, actor.organizationId, customerId);
    await recordAudit(tx, actor, {
      action: "customer.accountLinked",
      targetType: "customer",
      targetId: customerId,
      before: { customer: customer.name, accounts: before },
      after: { customer: customer.name, accounts: after.map(ref) },
    });
    return after;
  });
}

const ref = (a: { platformId: string; login: string }) => ({ platformId: a.platformId, login: a.login });

export async function unlinkAccount(db: Db, actor: Actor, customerId: string, account: { platformId: string; login: string }): Promise<void> {
  await db.transaction(async (tx) => {
    await loadCustomer(tx, actor.organizationId, customerId, true);
    const before = (await linkedAccounts(tx, actor.organizationId, customerId)).map(ref);
    const removed = await tx
      .delete(customerAccounts)
      .where(and(eq(customerAccounts.customerId, customerId), eq(customerAccounts.platformId, account.platformId), eq(customerAccounts.login, account.login)))
      .returning({ login: customerAccounts.login });
    if (removed.length === 0) throw new NotFoundError(`Account ${account.login} is not linked to this customer.`);
    await recordAudit(tx, actor, {
      action: "customer.accountUnlinked",
      targetType: "customer",
      targetId: customerId,
      before: { accounts: before },
      after: { accounts: before.filter((a) => !(a.platformId === account.platformId && a.login === account.login)) },
    });
  });
}

const noteView = (n: typeof customerNotes.$inferSelect): CustomerNote => ({
  id: n.id,
  authorSub: n.authorSub,
  authorName: n.authorName,
  text: n.text,
  createdAt: n.createdAt.toISOString(),
});

export async function listNotes(db: Db, organizationId: string, customerId: string): Promise<CustomerNote[]> {
  await loadCustomer(db, organizationId, customerId);
  const rows = await db
    .select()
    .from(customerNotes)
    .where(and(eq(customerNotes.organizationId, organizationId), eq(customerNotes.customerId, customerId)))
    .orderBy(desc(customerNotes.createdAt))
    .limit(500);
  return rows.map(noteView);
}

export async function addNote(db: Db, actor: Actor, customerId: string, text: string): Promise<CustomerNote> {
  return db.transaction(async (tx) => {
    await loadCustomer(tx, actor.organizationId, customerId);
    const note = onlyRow(
      await tx
        .insert(customerNotes)
        .values({ organizationId: actor.organizationId, customerId, authorSub: actor.sub, authorName: actor.name, text })
        .returning(),
      "the new note",
    );
    await recordAudit(tx, actor, { action: "customer.noteAdded", targetType: "customer", targetId: customerId, after: { noteId: note.id, text } });
    return noteView(note);
  });
}
