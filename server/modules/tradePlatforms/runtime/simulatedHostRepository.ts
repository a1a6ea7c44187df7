/**
 * The SQL of simulated servers kept in the database (decision 0069): who runs each one (a lease
 * on the database's clock, fenced by its epoch) and its state (a snapshot and the commands since).
 * Every write of state checks, in its transaction, that this node still holds the lease at its
 * epoch: a node that lost it can never write over its successor.
 */
import { and, asc, eq, gt, lte, sql } from "drizzle-orm";
import type { SavedSimulation, RecordedCommand } from "../../../connectors/simulated/persistence/recorder.ts";
import type { Db, DbOrTx } from "../../../db/client.ts";
import { simulatedServerCommands, simulatedServers } from "../../../db/schema.ts";

export interface HostLease {
  platformId: string;
  nodeId: string;
  epoch: number;
}

const t = simulatedServers;
const until = (ttlMs: number) => sql`now() + make_interval(secs => ${ttlMs / 1000})`;

/**
 * Takes the right to run the platform's simulated server when nobody holds it (no row, lapsed,
 * released) or this node does: a new epoch. A server saved with another identity (its options
 * changed) is forgotten: the new one starts from its seed. Null while another node holds it.
 */
export async function acquireHost(db: Db, platformId: string, identity: string, nodeId: string, ttlMs: number): Promise<HostLease | null> {
  try {
    return await db.transaction(async (tx) => {
      const [row] = await tx
        .select({ nodeId: t.nodeId, identity: t.identity, held: sql<boolean>`${t.expiresAt} > now()` })
        .from(t)
        .where(eq(t.platformId, platformId))
        .for("update");
      if (!row) {
        const [inserted] = await tx
          .insert(t)
          .values({ platformId, identity, nodeId, epoch: 1, expiresAt: until(ttlMs) })
          .onConflictDoNothing()
          .returning({ epoch: t.epoch });
        return inserted ? { platformId, nodeId, epoch: inserted.epoch } : null;
      }
      if (row.held && row.nodeId !== nodeId) return null;
      const changed = row.identity !== identity;
      if (changed) await tx.delete(simulatedServerCommands).where(eq(simulatedServerCommands.platformId, platformId));
      const [updated] = await tx
        .update(t)
        .set({ nodeId, epoch: sql`${t.epoch} + 1`, expiresAt: until(ttlMs), ...(changed ? { identity, snapshot: null, snapshotSeq: 0 } : {}) })
        .where(eq(t.platformId, platformId))
        .returning({ epoch: t.epoch });
      return updated ? { platformId, nodeId, epoch: updated.epoch } : null;
    });
  } catch (err) {
    // The platform is gone (the row's reference fails) or another node inserted first: not ours.
    if (isConstraintViolation(err)) return null;
    throw err;
  }
}

export async function renewHost(db: Db, lease: HostLease, ttlMs: number): Promise<boolean> {
  const rows = await db
    .update(t)
    .set({ expiresAt: until(ttlMs) })
    .where(and(eq(t.platformId, lease.platformId), eq(t.nodeId, lease.nodeId), eq(t.epoch, lease.epoch), sql`${t.expiresAt} > now()`))
    .returning({ epoch: t.epoch });
  return rows.length === 1;
}

export async function releaseHost(db: Db, lease: HostLease): Promise<void> {
  await db
    .update(t)
    .set({ expiresAt: sql`now()` })
    .where(and(eq(t.platformId, lease.platformId), eq(t.nodeId, lease.nodeId), eq(t.epoch, lease.epoch)));
}

/** The node running the platform's simulated server now, if any. */
export async function hostOf(db: Db, platformId: string): Promise<HostLease | null> {
  const [row] = await db
    .select({ platformId: t.platformId, nodeId: t.nodeId, epoch: t.epoch })
    .from(t)
    .where(and(eq(t.platformId, platformId), sql`${t.expiresAt} > now()`));
  return row ?? null;
}

export async function loadSimulation(db: Db, platformId: string): Promise<SavedSimulation | null> {
  const [row] = await db.select({ snapshot: t.snapshot, seq: t.snapshotSeq }).from(t).where(eq(t.platformId, platformId));
  if (!row?.snapshot) return null;
  const c = simulatedServerCommands;
  const commands = await db
    .select({ seq: c.seq, op: c.op, args: c.args, at: c.at })
    .from(c)
    .where(and(eq(c.platformId, platformId), gt(c.seq, row.seq)))
    .orderBy(asc(c.seq));
  return { snapshot: new Uint8Array(row.snapshot), seq: row.seq, commands };
}

/** Fails (so nothing of the transaction is kept) unless this node holds the lease at its epoch. */
async function stillHolding(tx: DbOrTx, lease: HostLease): Promise<void> {
  const [row] = await tx
    .select({ epoch: t.epoch })
    .from(t)
    .where(and(eq(t.platformId, lease.platformId), eq(t.nodeId, lease.nodeId), eq(t.epoch, lease.epoch), sql`${t.expiresAt} > now()`))
    .for("update");
  if (!row) throw new Error("This node no longer runs the simulated server (its lease lapsed or was taken over).");
}

export async function appendCommands(db: Db, lease: HostLease, commands: readonly RecordedCommand[]): Promise<void> {
  await db.transaction(async (tx) => {
    await stillHolding(tx, lease);
    await tx.insert(simulatedServerCommands).values(commands.map((command) => ({ platformId: lease.platformId, ...command })));
  });
}

export async function saveSnapshot(db: Db, lease: HostLease, snapshot: Uint8Array, seq: number): Promise<void> {
  await db.transaction(async (tx) => {
    await stillHolding(tx, lease);
    await tx.update(t).set({ snapshot, snapshotSeq: seq }).where(eq(t.platformId, lease.platformId));
    const c = simulatedServerCommands;
    await tx.delete(c).where(and(eq(c.platformId, lease.platformId), lte(c.seq, seq)));
  });
}

function isConstraintViolation(err: unknown): boolean {
  const code = (err as { code?: unknown; cause?: { code?: unknown } } | null)?.code ?? (err as { cause?: { code?: unknown } } | null)?.cause?.code;
  return code === "23503" || code === "23505";
}
