/**
 * Feed leases (table `platform_feed_leases`): which node publishes a platform's trade feed on the
 * bus. One row per platform: the owning node, until when (the database's clock, so nodes' clocks
 * never matter), and an epoch that grows at every takeover. A node publishes a platform's trades
 * only while it holds the lease (./leasedFeeds.ts). docs/events.md, "Several nodes";
 * docs/decisions/0037-feed-leases.md.
 *
 * The epoch is never reset while the platform exists: a released lease keeps its row with an
 * expiry in the past, so the next owner's epoch is still a new one (it is part of the NATS
 * message ids of the feed's events, which must never repeat within the duplicate window).
 */
import { and, eq, ne, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { platformFeedLeases } from "../db/tables/feedLeases.ts";

export interface FeedLease {
  platformId: string;
  nodeId: string;
  epoch: number;
}

export interface FeedLeaseStore {
  /**
   * Takes the platform's lease for `nodeId` when nobody holds it (no row, lapsed, released) or this
   * node already held it (a restart with the same NODE_ID): a new epoch. Null while another node holds it.
   */
  acquire(platformId: string, nodeId: string, ttlMs: number): Promise<FeedLease | null>;
  /** Extends the lease this node holds at this epoch; false when it lapsed into another's hands or is gone. */
  renew(lease: FeedLease, ttlMs: number): Promise<boolean>;
  /** Gives the lease up at once (expiry now): another node may take it at its next attempt. */
  release(lease: FeedLease): Promise<void>;
  /** Who holds the platform's lease now (null when nobody). */
  holder(platformId: string): Promise<FeedLease | null>;
  /** The platforms whose lease another node than `nodeId` holds now (their state is that node's to say). */
  heldElsewhere(nodeId: string): Promise<string[]>;
}

export function createFeedLeaseStore(db: Db): FeedLeaseStore {
  const t = platformFeedLeases;
  const until = (ttlMs: number) => sql`now() + make_interval(secs => ${ttlMs / 1000})`;
  return {
    async acquire(platformId, nodeId, ttlMs) {
      const rows = await db
        .insert(t)
        .values({ platformId, nodeId, epoch: 1, expiresAt: until(ttlMs), acquiredAt: sql`now()` })
        .onConflictDoUpdate({
          target: t.platformId,
          set: { nodeId, epoch: sql`${t.epoch} + 1`, expiresAt: until(ttlMs), acquiredAt: sql`now()` },
          setWhere: sql`${t.expiresAt} <= now() or ${t.nodeId} = ${nodeId}`,
        })
        .returning({ platformId: t.platformId, nodeId: t.nodeId, epoch: t.epoch });
      return rows[0] ?? null;
    },

    async renew(lease, ttlMs) {
      const rows = await db
        .update(t)
        .set({ expiresAt: until(ttlMs) })
        .where(and(eq(t.platformId, lease.platformId), eq(t.nodeId, lease.nodeId), eq(t.epoch, lease.epoch), sql`${t.expiresAt} > now()`))
        .returning({ epoch: t.epoch });
      return rows.length === 1;
    },

    async release(lease) {
      await db
        .update(t)
        .set({ expiresAt: sql`now()` })
        .where(and(eq(t.platformId, lease.platformId), eq(t.nodeId, lease.nodeId), eq(t.epoch, lease.epoch)));
    },

    async holder(platformId) {
      const [row] = await db
        .select({ platformId: t.platformId, nodeId: t.nodeId, epoch: t.epoch })
        .from(t)
        .where(and(eq(t.platformId, platformId), sql`${t.expiresAt} > now()`));
      return row ?? null;
    },

    async heldElsewhere(nodeId) {
      const rows = await db
        .select({ platformId: t.platformId })
        .from(t)
        .where(and(ne(t.nodeId, nodeId), sql`${t.expiresAt} > now()`));
      return rows.map((r) => r.platformId);
    },
  };
}
