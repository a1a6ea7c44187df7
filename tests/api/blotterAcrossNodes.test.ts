/**
 * The live blotter on two Toolbox nodes sharing one database and one NATS JetStream stream (the
 * real server). The trade history's writers share the bus's trade events between the nodes (one
 * durable consumer): a snapshot read on one node from the store lacks what the other node's writer
 * holds and has not written yet. Every node sees every event on the bus, so it lays the latest
 * state of the positions changed lately over the store's (server/modules/tradesBlotter/stream.ts).
 *
 * In the first test node 2's store is stopped, so every trade event goes to node 1's writer, whose
 * statements are held: nothing of the trades below reaches the database while node 2 reads its
 * snapshot. The second: two organizations' platforms run on node 1, their streams are read on
 * node 2, and each gets its own trades only.
 */
import crypto from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { BlotterRow } from "../../core/schemas/blotterLive.ts";
import type { TradeHistorySync } from "../../core/schemas/tradesBlotter.ts";
import { lotsToVolume } from "../../core/trading/index.ts";
import { tradeHistoryOf } from "../../server/modules/tradeHistory/plugin.ts";
import { describeDb, openTestDatabase } from "../helpers/db.ts";
import { withExecuteHook } from "../helpers/executeHook.ts";
import { natsTestStream, type TestStream } from "../helpers/natsBus.ts";
import { apiHeaders, newPerson, tokenFactory } from "../helpers/tokens.ts";
import { signUp } from "./support/fixtures.ts";
import { sseReader } from "./support/sse.ts";
import { startPlatformsApp, waitFor, type PlatformsApp, type TestDatabase } from "./platformsHarness.ts";

describeDb("the live blotter across two nodes on one NATS bus", () => {
  let database: TestDatabase;
  let stream: TestStream;
  let node1: PlatformsApp;
  let node2: PlatformsApp;
  let node2Url: string;
  /** While set, every statement node 1 sends with `execute` (its writer's, its backfills') waits for it. */
  let held: Promise<void> | null = null;

  beforeAll(async () => {
    database = await openTestDatabase();
    stream = await natsTestStream();
    const slow = withExecuteHook(database.db, async () => {
      while (held) await held;
    });
    node1 = await startPlatformsApp({ database: { ...database, db: slow }, bus: await stream.bus() });
    node2 = await startPlatformsApp({ database, bus: await stream.bus() });
    node2Url = await node2.app.listen({ port: 0, host: "127.0.0.1" });
  });
  afterAll(async () => {
    held = null;
    await node1?.close();
    await node2?.close();
    await stream?.drop();
    await database?.drop();
  });

  /**
   * An organization signed up on node 1 with one simulated MT5 platform whose feed one node runs, its
   * history backfilled, and the blotter assigned; `buy` places an order through node 1's
   * connector, `streamOnNode2` opens a blotter stream on node 2.
   */
  async function blotterPlatform(name: string, seed: number, accounts = 20) {
    const tokens = await tokenFactory(node1.ctx);
    const person = newPerson(name);
    const organizationId = await signUp(node1, tokens, person);
    const headers = apiHeaders(await tokens.mint(person), organizationId);
    const created = await node1.call({
      method: "POST",
      url: "/api/tradePlatforms",
      headers,
      payload: { type: "MT5", name: `${name}'s`, timeZone: "UTC", connection: { kind: "simulated", accounts, tradeRate: 0, seed } },
    });
    expect(created.statusCode, created.body).toBe(201);
    const platformId = created.json<{ id: string }>().id;
    // A new platform reaches node 2 at once too (platformChanged), so either node may take its feed lease: one of them runs it.
    await waitFor(
      async () => node1.app.tradeFeed.status(platformId)?.phase === "live" || node2.app.tradeFeed.status(platformId)?.phase === "live",
      `${name}'s feed on a node`,
    );
    await waitFor(async () => {
      const res = await node1.call({ url: `/api/tradePlatforms/${platformId}/trade-history`, headers });
      return res.json<TradeHistorySync>().status === "live";
    }, `${name}'s history backfilled`);
    const assigned = await node1.call({
      method: "PUT",
      url: `/api/tradePlatforms/${platformId}/apps`,
      headers,
      payload: [{ app: "tradesBlotter", enabled: true }],
    });
    expect(assigned.statusCode, assigned.body).toBe(200);
    const connector = await node1.app.platforms.connectorFor(organizationId, platformId);
    const login = (await connector.listAccounts({ limit: 1000 })).items.find((a) => a.enabled && !a.readOnly && a.balance > 100_000)!.login;
    const buy = () => connector.placeOrder({ requestId: crypto.randomUUID(), login, symbol: "BTCUSD", side: "buy", volume: lotsToVolume(0.01) });
    const streamOnNode2 = async () => {
      const res = await fetch(`${node2Url}/api/tradesBlotter/stream`, { headers });
      expect(res.status).toBe(200);
      return sseReader(res.body!);
    };
    return { organizationId, platformId, connector, buy, streamOnNode2 };
  }

  it("a snapshot read on one node holds the open positions another node's writer has not written yet", async () => {
    const { organizationId, platformId, connector, buy: order, streamOnNode2 } = await blotterPlatform("Dealer", 21, 30);
    // From here every trade event goes to node 1's writer. A position it writes, then it cannot write.
    await tradeHistoryOf(node2.ctx)!.stop();
    const writer = tradeHistoryOf(node1.ctx)!;
    const buy = async () => (await order()).positionId;
    const early = await buy();
    await waitFor(async () => {
      await writer.settled();
      const found = await node2.ctx.database.db.query.tradePositions.findFirst({
        where: (p, { and, eq }) => and(eq(p.platformId, platformId), eq(p.positionId, early)),
      });
      return found !== undefined;
    }, "the first position stored");
    let letThrough!: () => void;
    held = new Promise((resolve) => (letThrough = resolve));
    try {
      const seenOnNode2: string[] = [];
      const watch = node2.app.bus.subscribe({ types: ["trade"], organizationId }, ({ event }) => {
        if (event.event.type === "positionOpened" || event.event.type === "positionClosed") seenOnNode2.push(event.event.position.id);
      });
      // Three opened, one of them closed, and the stored one closed.
      const opened = [await buy(), await buy(), await buy()];
      await connector.closePosition({ requestId: crypto.randomUUID(), positionId: opened[0]! });
      await connector.closePosition({ requestId: crypto.randomUUID(), positionId: early });
      await waitFor(async () => seenOnNode2.length >= 5, "the trades on node 2's bus");
      watch.close();
      await waitFor(async () => writer.pendingEvents(platformId).length >= 5, "the trades held by node 1's writer");
      const stored = (await node2.ctx.database.db.query.tradePositions.findMany({ where: (p, { eq }) => eq(p.platformId, platformId) })).map(
        (p) => p.positionId,
      );
      expect(stored).toContain(early);
      expect(stored).not.toContain(opened[1]);

      const sse = await streamOnNode2();
      try {
        const snapshot = await sse.until(() => sse.events.find((e) => e.event === "snapshot"), "node 2's snapshot");
        const rows = (snapshot.data as { rows: BlotterRow[] }).rows;
        const open = (await connector.openPositions()).map((p) => `p:${platformId}:${p.id}`);
        // The stored ones but the one closed, and the two still open.
        expect(open).toHaveLength(stored.length - 1 + 2);
        expect(
          rows
            .filter((r) => r.kind === "position")
            .map((r) => r.key)
            .sort(),
        ).toEqual(open.sort());
      } finally {
        await sse.cancel();
      }
    } finally {
      held = null;
      letThrough();
    }
  });
  it("two organizations' streams on node 2 get their own platforms' trades from node 1, never the other's", async () => {
    /** An organization's platform, and its stream on node 2 once the first snapshot came. */
    async function organization(name: string, seed: number) {
      const { platformId, buy: order, streamOnNode2 } = await blotterPlatform(name, seed);
      const sse = await streamOnNode2();
      await sse.until(() => sse.events.some((e) => e.event === "snapshot"), `${name}'s snapshot on node 2`);
      const buy = async () => (await order()).positionId;
      /** Every row the stream sent, snapshots and frames. */
      const rows = () => sse.events.filter((e) => e.event === "frame" || e.event === "snapshot").flatMap((e) => (e.data as { rows: BlotterRow[] }).rows);
      return { platformId, sse, buy, rows };
    }
    const ada = await organization("Ada", 31);
    const bea = await organization("Bea", 32);
    try {
      const adaPositions = [await ada.buy(), await ada.buy(), await ada.buy()];
      const beaPosition = await bea.buy();
      const shows = (o: typeof ada, positionId: string) => o.rows().some((r) => r.key === `p:${o.platformId}:${positionId}`);
      await ada.sse.until(() => adaPositions.every((id) => shows(ada, id)), "Ada's three positions on node 2");
      await bea.sse.until(() => shows(bea, beaPosition), "Bea's position on node 2");
      // Ada's trades came first: anything of hers on Bea's stream would have come by now.
      await bea.sse.drainFor(300);
      await ada.sse.drainFor(300);
      expect(new Set(ada.rows().map((r) => r.platformId))).toEqual(new Set([ada.platformId]));
      expect(new Set(bea.rows().map((r) => r.platformId))).toEqual(new Set([bea.platformId]));
      expect(bea.rows().some((r) => adaPositions.some((id) => r.key.endsWith(`:${id}`)))).toBe(false);
      const platformsOn = (o: typeof ada) => o.sse.events.filter((e) => e.event === "platforms").map((e) => (e.data as { id: string }[]).map((p) => p.id));
      expect(platformsOn(ada).flat()).toEqual(platformsOn(ada).map(() => ada.platformId));
      expect(platformsOn(bea).flat()).toEqual(platformsOn(bea).map(() => bea.platformId));
    } finally {
      await ada.sse.cancel();
      await bea.sse.cancel();
    }
  });
  it("a snapshot after a gap, read on node 2, waits for node 1's store to read what the platform did off the bus", async () => {
    // Every event of the trade history goes to node 1's store (node 2's stopped, as above): so does the gap.
    const node2Store = tradeHistoryOf(node2.ctx)!;
    await node2Store.stop();
    const { organizationId, platformId, buy, streamOnNode2 } = await blotterPlatform("Gap", 41);
    const sse = await streamOnNode2();
    const snapshots = () => sse.events.filter((e) => e.event === "snapshot");
    try {
      await sse.until(() => snapshots().length === 1, "node 2's first snapshot");
      // Node 1's feed stops: what the platform does now is on no bus (as while a link is down).
      await node1.app.tradeFeed.detach(platformId);
      const offBus = [await buy(), await buy()];
      let letThrough!: () => void;
      held = new Promise((resolve) => (letThrough = resolve));
      try {
        // The feed says so as it would, starting again; node 1's store reads the platform again, and its statements wait.
        await node1.app.bus.publish({ type: "tradeGap", organizationId, platformId, resumedAt: Date.now() });
        await sse.drainFor(1_000);
        // No snapshot while node 1's pass cannot end: one now would lack what was done off the bus.
        expect(snapshots()).toHaveLength(1);
      } finally {
        held = null;
        letThrough();
      }
      const snapshot = await sse.until(() => snapshots()[1], "node 2's snapshot after the gap", 12_000);
      const rows = (snapshot.data as { rows: BlotterRow[] }).rows;
      for (const order of offBus) {
        expect(rows.some((r) => r.key === `p:${platformId}:${order.positionId}`)).toBe(true);
        expect(rows.some((r) => r.key === `d:${platformId}:${order.dealId}`)).toBe(true);
      }
    } finally {
      await sse.cancel();
    }
  });
});
