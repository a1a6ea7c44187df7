/**
 * The SQL of `balance_operations` (the protocol is in ./balanceOperations.ts). Every change to a
 * taken row names the lease it was taken with (`lease_token = $taken`) and that the row is still
 * pending: a worker whose lease ran out and was taken over by another changes nothing.
 * Lease times are the database's clock (the one that compares them), never a node's.
 */
import { randomUUID } from "node:crypto";
import { and, desc, eq, getTableColumns, lt, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "../../db/client.ts";
import { balanceOperations } from "../../db/tables/accounts.ts";

const t = balanceOperations;

export type OperationRow = typeof t.$inferSelect;
/** A row with its lease judged by the database's clock. */
export type OperationRowNow = OperationRow & { leaseActive: boolean };
/** A row as its worker took it (inserted or taken over): its `leaseToken` is what every later update must match. */
export type TakenRow = OperationRow;
export type NewOperation = Pick<
  typeof t.$inferInsert,
  "organizationId" | "platformId" | "login" | "idempotencyKey" | "requestHash" | "type" | "amount" | "comment" | "actorSub"
>;

const withLease = { ...getTableColumns(t), leaseActive: sql<boolean>`${t.leaseUntil} > now()` };
const leaseFromNow = (leaseMs: number) => sql`now() + ${`${Math.ceil(leaseMs)} milliseconds`}::interval`;
/** The row is still this worker's, and still waiting for its outcome. */
const heldBy = (row: TakenRow) => and(eq(t.id, row.id), eq(t.leaseToken, row.leaseToken), eq(t.status, "pending"));

export async function findByKey(db: Db, organizationId: string, key: string): Promise<OperationRowNow | undefined> {
  const [row] = await db
    .select(withLease)
    .from(t)
    .where(and(eq(t.organizationId, organizationId), eq(t.idempotencyKey, key)))
    .limit(1);
  return row;
}

export async function findById(db: Db, id: string): Promise<OperationRowNow | undefined> {
  const [row] = await db.select(withLease).from(t).where(eq(t.id, id)).limit(1);
  return row;
}

/** The first request with this key takes it, pending, with a lease; undefined when another request inserted it first. */
export async function insertPending(db: Db, values: NewOperation, leaseMs: number): Promise<TakenRow | undefined> {
  const [inserted] = await db
    .insert(t)
    .values({ ...values, status: "pending", leaseToken: randomUUID(), leaseUntil: leaseFromNow(leaseMs) })
    .onConflictDoNothing({ target: [t.organizationId, t.idempotencyKey] })
    .returning();
  return inserted;
}

/**
 * Takes over a pending row whose lease ran out, with a new token: the worker that held it can no
 * longer change it. Undefined when someone else took it (or it was settled) in between.
 */
export async function takeOver(db: Db, row: OperationRow, leaseMs: number): Promise<TakenRow | undefined> {
  const [taken] = await db
    .update(t)
    .set({ leaseToken: randomUUID(), leaseUntil: leaseFromNow(leaseMs), updatedAt: sql`now()` })
    .where(and(eq(t.id, row.id), eq(t.leaseToken, row.leaseToken), eq(t.status, "pending"), lt(t.leaseUntil, sql`now()`)))
    .returning();
  return taken;
}

/** Gives the lease up (the outcome is unknown): the next retry takes over at once. */
export async function releaseLease(db: Db, row: TakenRow): Promise<boolean> {
  const released = await db
    .update(t)
    .set({ leaseUntil: sql`now()`, updatedAt: sql`now()` })
    .where(heldBy(row))
    .returning({ id: t.id });
  return released.length > 0;
}

/** Records the final outcome; false (and nothing changed) when the lease is no longer this worker's. */
export async function settle(
  db: DbOrTx,
  row: TakenRow,
  outcome: { status: "done" | "rejected" | "unreconciled"; result: unknown; reason?: string | null },
): Promise<boolean> {
  const settled = await db
    .update(t)
    .set({ status: outcome.status, result: outcome.result, reason: outcome.reason ?? null, updatedAt: sql`now()` })
    .where(heldBy(row))
    .returning({ id: t.id });
  return settled.length > 0;
}

/** The account's latest operations made through Toolbox, newest first. */
export async function recentOperations(db: Db, organizationId: string, platformId: string, login: string, limit: number): Promise<OperationRowNow[]> {
  return db
    .select(withLease)
    .from(t)
    .where(and(eq(t.organizationId, organizationId), eq(t.platformId, platformId), eq(t.login, login)))
    .orderBy(desc(t.createdAt), desc(t.id))
    .limit(limit);
}
