/**
 * The customers table's SQL (docs/customers.md): the list's filters, order and pages, its count,
 * one customer (with its owner and counted accounts), the writes, and the export's ids and rows.
 * Every query is scoped by organization and skips the rows of a staged import (`visible`).
 */
import { and, arrayContains, asc, desc, eq, inArray, isNull, sql, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { CustomerSortField, ListCustomersQuery } from "../../../core/schemas/customers.ts";
import { onlyRow } from "../../db/rows.ts";
import { customerAccounts, customers, memberships, users } from "../../db/schema.ts";
import { escapeLike } from "../accounts/accountListRepository.ts";
import { rowsOf } from "../../db/rows.ts";
import type { DbOrTx } from "../../db/client.ts";
import { visible } from "./visibilityRepository.ts";

const c = customers;
export type CustomerRow = typeof customers.$inferSelect;
export type NewCustomerFields = Omit<typeof customers.$inferInsert, "id" | "organizationId" | "importId" | "version" | "createdAt" | "updatedAt">;
/** A customer as the list shows it: the row, its owner's name and its linked accounts' number. */
export interface ListedRow {
  customer: CustomerRow;
  ownerName: string | null;
  ownerEmail: string | null;
  accountCount: number;
}
export type Filters = Omit<ListCustomersQuery, "sort" | "dir" | "offset" | "limit">;
type Order = Pick<ListCustomersQuery, "sort" | "dir">;

const SORTS: Record<CustomerSortField, AnyPgColumn | SQL> = {
  name: sql`lower(${c.name})`,
  email: sql`lower(${c.email})`,
  country: c.country,
  status: c.status,
  kyc: c.kyc,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
};

/** The list's filters, as one condition (the organization's visible customers and the view's filters). */
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

/** The view's order; the id breaks ties, so pages never overlap. */
export function ordering(q: Order) {
  const by = q.dir === "desc" ? desc : asc;
  return [by(SORTS[q.sort]), by(c.id)];
}

const accountCount = sql<number>`(select count(*)::int from ${customerAccounts} where ${customerAccounts.customerId} = ${c.id})`;

const listColumns = {
  customer: c,
  ownerName: sql<string | null>`coalesce(${users.name}, ${users.email})`,
  ownerEmail: users.email,
  accountCount,
};

/** How many customers match the filter. */
export async function countWhere(db: DbOrTx, filter: SQL | undefined): Promise<number> {
  const [row] = await db
    .select({ total: sql<number>`count(*)::int` })
    .from(c)
    .where(filter);
  return Number(row?.total ?? 0);
}

const oneOf = (organizationId: string, id: string) => and(eq(c.organizationId, organizationId), eq(c.id, id), visible);

/** The customer's row (locked for the caller's transaction when `lock`), or undefined. */
export async function findCustomer(db: DbOrTx, organizationId: string, id: string, lock = false): Promise<CustomerRow | undefined> {
  const query = db.select().from(c).where(oneOf(organizationId, id));
  const [row] = lock ? await query.for("update") : await query;
  return row;
}

/** The customer as the list shows it, or undefined. */
export async function findListed(db: DbOrTx, organizationId: string, id: string): Promise<ListedRow | undefined> {
  const [row] = await db.select(listColumns).from(c).leftJoin(users, eq(users.sub, c.ownerSub)).where(oneOf(organizationId, id));
  return row;
}

/** Whether the person is a member of the organization (a customer's owner must be). */
export async function isMember(db: DbOrTx, organizationId: string, sub: string): Promise<boolean> {
  const [m] = await db
    .select({ sub: memberships.userSub })
    .from(memberships)
    .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userSub, sub)));
  return m !== undefined;
}

export async function insertCustomer(db: DbOrTx, organizationId: string, fields: NewCustomerFields): Promise<CustomerRow> {
  return onlyRow(
    await db
      .insert(c)
      .values({ ...fields, organizationId })
      .returning(),
    "the new customer",
  );
}

/** Writes the changed fields with the next version. */
export async function updateCustomerRow(db: DbOrTx, id: string, fields: Partial<NewCustomerFields>, version: number): Promise<CustomerRow> {
  return onlyRow(
    await db
      .update(c)
      .set({ ...fields, version, updatedAt: new Date() })
      .where(eq(c.id, id))
      .returning(),
    "the changed customer",
  );
}

/** Deletes the customer and its links (its notes go with it); returns the accounts it had. */
export async function deleteCustomerRow(db: DbOrTx, id: string): Promise<{ platformId: string; login: string }[]> {
  const links = await db
    .delete(customerAccounts)
    .where(eq(customerAccounts.customerId, id))
    .returning({ platformId: customerAccounts.platformId, login: customerAccounts.login });
  await db.delete(c).where(eq(c.id, id));
  return links;
}

/** The view's ids in its order (the list's filters and sort, no paging), as one string read at once. */
export async function exportIds(db: DbOrTx, organizationId: string, q: ListCustomersQuery): Promise<string[]> {
  const order = sql.join(
    ordering(q).map((o) => sql`${o}`),
    sql`, `,
  );
  const result = await db.execute(sql`select string_agg(${c.id}::text, ',' order by ${order}) as ids from ${c} where ${where(organizationId, q)}`);
  const [row] = rowsOf<{ ids: string | null }>(result);
  return row?.ids ? row.ids.split(",") : [];
}

/** These customers of the organization with their owner's e-mail (for the export), in no order. */
export async function exportRowsOf(db: DbOrTx, organizationId: string, ids: string[]): Promise<{ customer: CustomerRow; ownerEmail: string | null }[]> {
  return db
    .select({ customer: c, ownerEmail: users.email })
    .from(c)
    .leftJoin(users, eq(users.sub, c.ownerSub))
    .where(sql`${c.organizationId} = ${organizationId}::uuid and ${c.id} = any(${`{${ids.join(",")}}`}::uuid[])`);
}
