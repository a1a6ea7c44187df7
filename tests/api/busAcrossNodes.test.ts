/**
 * Two Toolbox nodes sharing one database and one NATS JetStream stream (the real server; a
 * stream of this run's own): what one node's runtime says of its platforms — states, trades,
 * removal — reaches the other node's bus, for that organization only.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { BusMessage } from "../../server/events/types.ts";
import { describeDb, openTestDatabase } from "../helpers/db.ts";
import { natsTestStream, type TestStream } from "../helpers/natsBus.ts";
import { apiHeaders, newPerson, tokenFactory } from "../helpers/tokens.ts";
import { signUp } from "./support/fixtures.ts";
import { startPlatformsApp, waitFor, type PlatformsApp, type TestDatabase } from "./platformsHarness.ts";

describeDb("two nodes on one NATS bus", () => {
  let database: TestDatabase;
  let stream: TestStream;
  let node1: PlatformsApp;
  let node2: PlatformsApp;

  beforeAll(async () => {
    database = await openTestDatabase();
    stream = await natsTestStream();
    node1 = await startPlatformsApp({ database, bus: await stream.bus() });
    node2 = await startPlatformsApp({ database, bus: await stream.bus() });
  });
  afterAll(async () => {
    await node1?.close();
    await node2?.close();
    await stream?.drop();
    await database?.drop();
  });

  it("sees the other node's platform states, trades and removals, and never another organization's", async () => {
    expect(node2.app.bus.kind).toBe("nats");
    const tokens = await tokenFactory(node1.ctx);
    const ada = newPerson("Ada");
    const bob = newPerson("Bob");
    const adaOrg = await signUp(node1, tokens, ada);
    const bobOrg = await signUp(node1, tokens, bob);
    const onNode2: BusMessage[] = [];
    const bobOnNode2: BusMessage[] = [];
    node2.app.bus.subscribe({ types: ["platformState", "trade", "platformRemoved"], organizationId: adaOrg }, (m) => onNode2.push(m));
    node2.app.bus.subscribe({ types: ["platformState", "trade", "tradeGap", "platformRemoved"], organizationId: bobOrg }, (m) => bobOnNode2.push(m));

    const headers = apiHeaders(await tokens.mint(ada), adaOrg);
    const created = await node1.call({
      method: "POST",
      url: "/api/tradePlatforms",
      headers,
      payload: { type: "MT5", name: "Node one's", timeZone: "UTC", connection: { kind: "simulated", accounts: 10, tradeRate: 0 } },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json<{ id: string }>().id;
    await waitFor(
      async () => onNode2.some((m) => m.event.type === "platformState" && m.event.platformId === id && m.event.state === "connected"),
      "connected, on node 2",
    );

    // Node 1 runs the platform; its trades reach node 2.
    await waitFor(async () => node1.app.tradeFeed.status(id)?.phase === "live", "node 1's feed");
    const server = node1.app.platforms.simulatedServer(id)!;
    await waitFor(async () => {
      server.traders.step(5);
      return onNode2.filter((m) => m.event.type === "trade").length >= 5;
    }, "trades on node 2");
    const trades = onNode2.filter((m) => m.event.type === "trade").map((m) => (m.event.type === "trade" ? m.event.event.sequence : 0));
    expect(trades).toEqual(Array.from({ length: trades.length }, (_, i) => trades[0]! + i));

    const deleted = await node1.call({ method: "DELETE", url: `/api/tradePlatforms/${id}`, headers, payload: { confirmName: "Node one's" } });
    expect(deleted.statusCode, deleted.body).toBe(204);
    await waitFor(async () => onNode2.some((m) => m.event.type === "platformRemoved" && m.event.platformId === id), "removed, on node 2");

    expect(onNode2.every((m) => m.event.organizationId === adaOrg)).toBe(true);
    expect(bobOnNode2).toEqual([]);
  });
});
