/**
 * The SQL of `position_operations` (the protocol is in ./positionOperations.ts), with the lease
 * rules of `balance_operations` (./balanceOperationRepository.ts): every change to a taken row
 * names the lease it was taken with and that the row is still pending; lease times are the
 * database's clock.
 */
import { randomUUID } from "node:crypto";
import { and, eq, getTableColumns, lt, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "../../db/client.ts";
import { positionOperations } from "../../db/tables/accounts.ts";

const t = positionOperations;

export type PositionOperationRow = typeof t.$inferSelect;
export type PositionOperationRowNow = PositionOperationRow & { leaseActive: boolean };
export type NewPositionOperation = Pick<
  typeof t.$inferInsert,
  "organizationId" | "platformId" | "login" | "positionId" | "idempotencyKey" | "requestHash" | "kind" | "request" | "before" | "actorSub"
>;

const withLease = { ...getTableColumns(t), leaseActive: sql<boolean>`${t.leaseUntil} > now()` };
const leaseFromNow = (leaseMs: number) => sql`now() + ${`${Math.ceil(leaseMs)} milliseconds`}::interval`;
const heldBy = (row: PositionOperationRow) => and(eq(t.id, row.id), eq(t.leaseToken, row.leaseToken), eq(t.status, "pending"));

export async function findByKey(db: Db, organizationId: string, key: string): Promise<PositionOperationRowNow | undefined> {
  const [row] = await db
    .select(withLease)
    .from(t)
    .where(and(eq(t.organizationId, organizationId), eq(t.idempotencyKey, key)))
    .limit(1);
  return row;
}

export async function findById(db: Db, id: string): Promise<PositionOperationRowNow | undefined> {
  const [row] = await db.select(withLease).from(t).where(eq(t.id, id)).limit(1);
  return row;
}

/** The first request with this key takes it, pending, with a lease; undefined when another inserted it first. */
export async function insertPending(db: Db, values: NewPositionOperation, leaseMs: number): Promise<PositionOperationRow | undefined> {
  const [inserted] = await db
    .insert(t)
    .values({ ...values, status: "pending", leaseToken: randomUUID(), leaseUntil: leaseFromNow(leaseMs) })
    .onConflictDoNothing({ target: [t.organizationId, t.idempotencyKey] })
    .returning();
  return inserted;
}

/** Takes over a pending row whose lease ran out, with a new token; undefined when someone else did first. */
export async function takeOver(db: Db, row: PositionOperationRow, leaseMs: number): Promise<PositionOperationRow | undefined> {
  const [taken] = await db
    .update(t)
    .set({ leaseToken: randomUUID(), leaseUntil: leaseFromNow(leaseMs), updatedAt: sql`now()` })
    .where(and(eq(t.id, row.id), eq(t.leaseToken, row.leaseToken), eq(t.status, "pending"), lt(t.leaseUntil, sql`now()`)))
    .returning();
  return taken;
}

/** Gives the lease up (the outcome is unknown or unrecorded): the next retry takes over at once. */
export async function releaseLease(db: Db, row: PositionOperationRow): Promise<void> {
  await db
    .update(t)
    .set({ leaseUntil: sql`now()`, updatedAt: sql`now()` })
    .where(heldBy(row));
}

/** Records the final outcome; false (nothing changed) when the lease is no longer this worker's. */
export async function settle(db: DbOrTx, row: PositionOperationRow, outcome: { status: "done" | "rejected"; result: unknown }): Promise<boolean> {
  const settled = await db
    .update(t)
    .set({ status: outcome.status, result: outcome.result, updatedAt: sql`now()` })
    .where(heldBy(row))
    .returning({ id: t.id });
  return settled.length > 0;
}
