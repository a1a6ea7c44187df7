/**
 * The blotter's snapshot source (server/modules/tradeHistory/repository/snapshotSource.ts) after a gap the
 * stream saw: it waits until the platform's sync row (written by whichever node's store ran the
 * pass) shows a pass begun at or after the gap and ended, not for a first backfill of the whole
 * window, and no longer than its bound. A real store (not started: it follows no platform, as on a
 * node whose store the gap did not reach) on both databases; the passes are the sync row's own
 * writes (syncState.ts), as another node's store makes them.
 */
import { randomUUID } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import { expect, it } from "vitest";
import { organizations, tradePlatforms } from "../../../server/db/schema.ts";
import { createInProcessBus } from "../../../server/events/inProcess.ts";
import { storeSnapshotSource } from "../../../server/modules/tradeHistory/repository/snapshotSource.ts";
import { TradeHistoryStore } from "../../../server/modules/tradeHistory/store.ts";
import { finishBackfill, startBackfill } from "../../../server/modules/tradeHistory/repository/syncState.ts";
import { describeEachDb, openDatabaseOf } from "../../helpers/eachDb.ts";

const DAY = 86_400_000;
const quiet = { info() {}, warn() {}, error() {}, debug() {} };

describeEachDb("blotter snapshots after a gap another node's store catches up", (kind) => {
  async function setUp(gapWaitMs: number) {
    const database = await openDatabaseOf(kind);
    const [org] = await database.db.insert(organizations).values({ name: "Gap Brokers" }).returning();
    const platform = { id: randomUUID(), organizationId: org!.id };
    await database.db.insert(tradePlatforms).values({ ...platform, type: "MT5", name: "Gapped" });
    const store = new TradeHistoryStore({
      db: database.db,
      bus: createInProcessBus(),
      log: quiet,
      backfillDays: 30,
      retentionDays: 0,
      retentionEveryMs: 0,
      concurrency: 1,
    });
    const source = storeSnapshotSource(database.db, () => store, { gapWaitMs, backfillDays: 30 });
    /** A pass as another node's store runs it: the sync row says it began, then that it ended. */
    const pass = async (window: { from: number; to: number }) => {
      await startBackfill(database.db, platform, { from: new Date(window.from), to: new Date(window.to) });
      return () => finishBackfill(database.db, platform.id, { error: null });
    };
    /** Resolves with the time the read took, once the source answered. */
    const read = () => {
      const started = Date.now();
      return source.recentDeals(platform.organizationId, platform.id, 10).then(() => Date.now() - started);
    };
    return { database, platform, source, pass, read, stop: () => store.stop() };
  }

  it("waits for a pass begun after the gap to end; one begun before it does not do", async () => {
    const t = await setUp(30_000);
    try {
      const now = Date.now();
      // An earlier pass, ended before the gap.
      await (
        await t.pass({ from: now - DAY, to: now })
      )();
      await delay(5);
      t.source.gap!(t.platform.id, Date.now());
      let answered = false;
      const reading = t.read().then((ms) => ((answered = true), ms));
      await delay(300);
      expect(answered).toBe(false);
      // The pass the gap asked for, on another node: it begins, and still nothing is read …
      const end = await t.pass({ from: now - 60_000, to: Date.now() });
      await delay(200);
      expect(answered).toBe(false);
      // … until it ends.
      await end();
      expect(await reading).toBeLessThan(5_000);
      // Caught up: the next snapshot does not wait.
      expect(await t.read()).toBeLessThan(1_000);
    } finally {
      await t.stop();
      await t.database.drop();
    }
  });

  it("does not wait for a first backfill of the whole window, nor past its bound", async () => {
    const first = await setUp(60_000);
    try {
      const now = Date.now();
      await first.pass({ from: now - 30 * DAY, to: now });
      first.source.gap!(first.platform.id, Date.now());
      // Read while the first backfill runs (far within the minute's bound).
      const answered = await Promise.race([first.read().then(() => true), delay(3_000).then(() => false)]);
      expect(answered).toBe(true);
    } finally {
      await first.stop();
      await first.database.drop();
    }

    const t = await setUp(400);
    try {
      const now = Date.now();
      // An incremental pass that never ends (its node went away): the read goes on after the bound.
      await (
        await t.pass({ from: now - DAY, to: now })
      )();
      await t.pass({ from: now - 60_000, to: now });
      t.source.gap!(t.platform.id, Date.now() + 60_000);
      expect(await t.read()).toBeGreaterThanOrEqual(390);
    } finally {
      await t.stop();
      await t.database.drop();
    }
  });
});
