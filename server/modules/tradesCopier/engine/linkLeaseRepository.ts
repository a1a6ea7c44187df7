/**
 * Link leases (table `copy_link_leases`): which node works each copy link, so that exactly one
 * node copies a link's source at a time. The rules of the feed leases (server/events/feedLeases.ts,
 * decision 0037), for links: the database's clock decides expiry; a node takes a lease nobody
 * holds (no row, lapsed, released) or that it held itself (a restart with the same NODE_ID); the
 * epoch grows at every takeover, so a renewal by a node whose lease lapsed into another's hands fails.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { copyLinkLeases } from "../../../db/schema.ts";

export interface LinkLease {
  linkId: string;
  nodeId: string;
  epoch: number;
}

const t = copyLinkLeases;
const until = (ttlMs: number) => sql`now() + make_interval(secs => ${ttlMs / 1000})`;

export async function acquireLinkLease(db: Db, linkId: string, nodeId: string, ttlMs: number): Promise<LinkLease | null> {
  const rows = await db
    .insert(t)
    .values({ linkId, nodeId, epoch: 1, expiresAt: until(ttlMs), acquiredAt: sql`now()` })
    .onConflictDoUpdate({
      target: t.linkId,
      set: { nodeId, epoch: sql`${t.epoch} + 1`, expiresAt: until(ttlMs), acquiredAt: sql`now()` },
      setWhere: sql`${t.expiresAt} <= now() or ${t.nodeId} = ${nodeId}`,
    })
    .returning({ linkId: t.linkId, nodeId: t.nodeId, epoch: t.epoch });
  return rows[0] ?? null;
}

/** Extends the lease this node holds at this epoch; false when it lapsed into another's hands or is gone. */
export async function renewLinkLease(db: Db, lease: LinkLease, ttlMs: number): Promise<boolean> {
  const rows = await db
    .update(t)
    .set({ expiresAt: until(ttlMs) })
    .where(and(eq(t.linkId, lease.linkId), eq(t.nodeId, lease.nodeId), eq(t.epoch, lease.epoch), sql`${t.expiresAt} > now()`))
    .returning({ epoch: t.epoch });
  return rows.length === 1;
}

/** Gives the lease up at once (a clean shutdown): another node takes the link at its next look. */
export async function releaseLinkLease(db: Db, lease: LinkLease): Promise<void> {
  await db
    .update(t)
    .set({ expiresAt: sql`now()` })
    .where(and(eq(t.linkId, lease.linkId), eq(t.nodeId, lease.nodeId), eq(t.epoch, lease.epoch)));
}

/** Who works the link now (null: nobody). */
export async function linkLeaseHolder(db: Db, linkId: string): Promise<LinkLease | null> {
  const [row] = await db
    .select({ linkId: t.linkId, nodeId: t.nodeId, epoch: t.epoch })
    .from(t)
    .where(and(eq(t.linkId, linkId), sql`${t.expiresAt} > now()`));
  return row ?? null;
}
