/**
 * The SQL of the delivery queue (./deliveryQueue.ts): the `notification_deliveries` rows, each
 * taken by one node at a time through its lease. Every write after a take is conditional on the
 * node still holding the lease.
 */
import { and, asc, eq, inArray, isNull, lt, lte, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { notificationDeliveries } from "../../db/schema.ts";
import type { DeliveryRow } from "./repository.ts";

/** How long a node's claim on a delivery holds unless renewed: well past one try (10 s timeout for HTTP) and its writes. */
export const LEASE_MS = 60_000;

/** What a delivery sends, kept with it. */
export interface StoredMessage {
  severity: string;
  title: string;
  body: string;
  /** Absolute URL, or null. */
  link: string | null;
}

const d = notificationDeliveries;
const leaseEnd = () => sql`now() + ${LEASE_MS} * interval '1 millisecond'`;

/** A row this node may take now: pending, due, and nobody's lease holds it. */
function takeable(): SQL {
  return and(eq(d.status, "pending"), lte(d.nextAttemptAt, sql`now()`), or(isNull(d.leaseExpiresAt), lt(d.leaseExpiresAt, sql`now()`)))!;
}

/** One pending delivery per channel, due now; a channel that already has one for the key gets nothing. Returns the new ids. */
export async function insertDeliveries(
  db: Db,
  notice: { organizationId: string; type: string; dedupeKey: string },
  message: StoredMessage,
  channelIds: readonly string[],
): Promise<string[]> {
  const added = await db
    .insert(d)
    .values(
      channelIds.map((channelId) => ({
        organizationId: notice.organizationId,
        channelId,
        type: notice.type,
        status: "pending",
        dedupeKey: notice.dedupeKey,
        message,
        nextAttemptAt: sql`now()`,
      })),
    )
    .onConflictDoNothing({ target: [d.channelId, d.dedupeKey] })
    .returning({ id: d.id });
  return added.map((r) => r.id);
}

/** Takes up to `batch` due deliveries no node holds (`SKIP LOCKED`: two nodes polling at once take different rows). */
export async function takeDue(db: Db, node: string, batch: number): Promise<DeliveryRow[]> {
  const due = db.select({ id: d.id }).from(d).where(takeable()).orderBy(asc(d.nextAttemptAt)).limit(batch).for("update", { skipLocked: true });
  return db
    .update(d)
    .set({ leaseOwner: node, leaseExpiresAt: leaseEnd() })
    .where(and(inArray(d.id, due), takeable()))
    .returning();
}

/** Takes one delivery if it is still due and free. */
export async function takeOne(db: Db, node: string, id: string): Promise<DeliveryRow | undefined> {
  const [row] = await db
    .update(d)
    .set({ leaseOwner: node, leaseExpiresAt: leaseEnd() })
    .where(and(eq(d.id, id), takeable()))
    .returning();
  return row;
}

/** Milliseconds (database clock) until a free pending delivery is due; NaN when it is not such a delivery. */
export async function msUntilDue(db: Db, id: string): Promise<number> {
  const [row] = await db
    .select({ left: sql<string>`extract(epoch from (${d.nextAttemptAt} - now())) * 1000` })
    .from(d)
    .where(and(eq(d.id, id), eq(d.status, "pending"), isNull(d.leaseOwner)));
  return Number(row?.left);
}

export type Settlement = Pick<Partial<typeof d.$inferInsert>, "status" | "attempts" | "lastStatus" | "lastError"> & {
  /** Tried again this many milliseconds from now (database clock), or never (null). */
  retryInMs: number | null;
};

/** Writes the outcome of a try and frees the lease, only while `node` still holds it; false when it no longer did. */
export async function settle(db: Db, node: string, id: string, { retryInMs, ...values }: Settlement): Promise<boolean> {
  const rows = await db
    .update(d)
    .set({
      ...values,
      nextAttemptAt: retryInMs === null ? null : sql`now() + ${retryInMs} * interval '1 millisecond'`,
      leaseOwner: null,
      leaseExpiresAt: null,
      updatedAt: new Date(),
    })
    .where(and(eq(d.id, id), eq(d.leaseOwner, node)))
    .returning({ id: d.id });
  return rows.length > 0;
}

/** Frees a delivery `node` holds, untried. */
export async function release(db: Db, node: string, id: string): Promise<void> {
  await db
    .update(d)
    .set({ leaseOwner: null, leaseExpiresAt: null })
    .where(and(eq(d.id, id), eq(d.leaseOwner, node)));
}

/** Extends the lease `node` holds on a delivery by LEASE_MS from now. */
export async function renewLease(db: Db, node: string, id: string): Promise<void> {
  await db
    .update(d)
    .set({ leaseExpiresAt: leaseEnd() })
    .where(and(eq(d.id, id), eq(d.leaseOwner, node)));
}
