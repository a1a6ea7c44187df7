/**
 * The trade feed's lease store (server/events/feedLeases.ts) on the real database (PGlite and
 * PostgreSQL): one holder at a time, renewals only by the holder at its epoch, a lapsed or
 * released lease taken over with a new epoch, never a reset epoch.
 */
// Databases: PGlite and PostgreSQL (leases on the database's clock).
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { organizations, platformFeedLeases, tradePlatforms } from "../../server/db/schema.ts";
import { createFeedLeaseStore, type FeedLeaseStore } from "../../server/events/feedLeases.ts";
import { describeDb, openTestDatabase } from "../helpers/db.ts";

describeDb("trade feed leases", () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  let leases: FeedLeaseStore;
  let platformId: string;

  beforeAll(async () => {
    database = await openTestDatabase();
    leases = createFeedLeaseStore(database.db);
    const [org] = await database.db.insert(organizations).values({ name: "Lease Brokers" }).returning();
    const [platform] = await database.db.insert(tradePlatforms).values({ organizationId: org!.id, type: "MT5", name: "Leased" }).returning();
    platformId = platform!.id;
  });
  afterAll(async () => {
    await database?.drop();
  });

  /** Moves the lease's expiry into the past, as if its holder had stopped renewing a while ago. */
  const lapse = () =>
    database.db
      .update(platformFeedLeases)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(platformFeedLeases.platformId, platformId));

  it("gives the lease to one node, renews it for the holder only, and hands it over with a new epoch when it lapses or is released", async () => {
    const first = await leases.acquire(platformId, "node-a", 60_000);
    expect(first).toEqual({ platformId, nodeId: "node-a", epoch: 1 });
    expect(await leases.acquire(platformId, "node-b", 60_000)).toBeNull();
    expect(await leases.holder(platformId)).toEqual(first);

    expect(await leases.renew(first!, 60_000)).toBe(true);
    expect(await leases.renew({ ...first!, nodeId: "node-b" }, 60_000)).toBe(false);

    // Lapsed: the holder can no longer renew it; another node takes it over, with the next epoch.
    await lapse();
    expect(await leases.holder(platformId)).toBeNull();
    expect(await leases.renew(first!, 60_000)).toBe(false);
    const second = await leases.acquire(platformId, "node-b", 60_000);
    expect(second).toEqual({ platformId, nodeId: "node-b", epoch: 2 });
    // The first node finds another owner.
    expect(await leases.renew(first!, 60_000)).toBe(false);
    expect(await leases.acquire(platformId, "node-a", 60_000)).toBeNull();

    // Released: taken over at once, the epoch still growing (never reset to 1).
    await leases.release(first!); // not the holder: nothing changes
    expect(await leases.holder(platformId)).toEqual(second);
    await leases.release(second!);
    expect(await leases.holder(platformId)).toBeNull();
    expect(await leases.renew(second!, 60_000)).toBe(false);
    const third = await leases.acquire(platformId, "node-a", 60_000);
    expect(third).toEqual({ platformId, nodeId: "node-a", epoch: 3 });

    // The same node asking again (a restart with the same NODE_ID) takes a new epoch; the old one is dead.
    const fourth = await leases.acquire(platformId, "node-a", 60_000);
    expect(fourth?.epoch).toBe(4);
    expect(await leases.renew(third!, 60_000)).toBe(false);
    expect(await leases.renew(fourth!, 60_000)).toBe(true);
  });

  it("lets exactly one of several nodes racing for a free lease take it", async () => {
    await lapse();
    const results = await Promise.all(["n1", "n2", "n3", "n4"].map((node) => leases.acquire(platformId, node, 60_000)));
    const winners = results.filter((r) => r !== null);
    expect(winners).toHaveLength(1);
    expect(await leases.holder(platformId)).toEqual(winners[0]);
  });

  it("ends with the platform", async () => {
    await database.db.delete(tradePlatforms).where(eq(tradePlatforms.id, platformId));
    expect(await leases.holder(platformId)).toBeNull();
    await expect(leases.acquire(platformId, "n1", 60_000)).rejects.toThrow();
  });
});
