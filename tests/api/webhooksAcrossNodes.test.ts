/**
 * Two Toolbox nodes sharing one database and one NATS JetStream stream (the real server; a stream
 * of this run's own). Each node's notification center hears every event, yet a rule's channel
 * gets each event once (docs/notifications.md "Delivery"): whether the rule writes to inboxes or
 * not, and a retry is made by one node only.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { notificationDeliveries } from "../../server/db/schema.ts";
import { describeDb, openTestDatabase } from "../helpers/db.ts";
import { natsTestStream, type TestStream } from "../helpers/natsBus.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { startPlatformsApp, waitFor, type PlatformsApp, type TestDatabase } from "./platformsHarness.ts";
import { signUp } from "./support/fixtures.ts";
import { startReceiver, type Receiver } from "./support/receiver.ts";

describeDb("webhooks with two nodes on one NATS bus", () => {
  let database: TestDatabase;
  let stream: TestStream;
  let node1: PlatformsApp;
  let node2: PlatformsApp;
  let receiver: Receiver;
  let tokens: TokenFactory;
  const ada = newPerson("Ada");
  let org: string;
  let channelId: string;

  const env = { TOOLBOX_ALLOWED_TARGETS: "127.0.0.1", NOTIFICATIONS_RETRY_BASE_MS: "200", NOTIFICATIONS_POLL_MS: "50", NOTIFICATIONS_MAX_ATTEMPTS: "3" };

  beforeAll(async () => {
    database = await openTestDatabase();
    stream = await natsTestStream();
    receiver = await startReceiver();
    node1 = await startPlatformsApp({ database, bus: await stream.bus(), env });
    node2 = await startPlatformsApp({ database, bus: await stream.bus(), env });
    tokens = await tokenFactory(node1.ctx);
    org = await signUp(node1, tokens, ada);
    const channel = await call(node1, "POST", "/api/notifications/channels", {
      kind: "webhook",
      name: "Hook",
      settings: { url: receiver.url },
      secret: "whsec-two-nodes-0123456789",
    });
    expect(channel.statusCode, channel.body).toBe(201);
    channelId = channel.json<{ id: string }>().id;
  });
  afterAll(async () => {
    await node1?.close();
    await node2?.close();
    await stream?.drop();
    await receiver?.close();
    await database?.drop();
  });

  async function call(node: PlatformsApp, method: "POST" | "PUT", url: string, payload: object) {
    return node.call({ method, url, headers: apiHeaders(await tokens.mint(ada, { claims: { amr: ["pwd", "otp"] } }), org), payload });
  }
  const securityChanged = (node: PlatformsApp, requireTwoFactor: boolean) =>
    call(node, "PUT", "/api/organization/security", { requireTwoFactor, sessionLifetimeSeconds: null, allowedIpRanges: [] });
  const rule = (inbox: boolean) =>
    call(node1, "PUT", "/api/notifications/settings", { retentionDays: 90, largeBalanceThreshold: null, rules: { securitySettingsChanged: { inbox } } });
  /** Long enough for both nodes to have handled an event and polled many times. */
  const settle = () => new Promise((r) => setTimeout(r, 1_000));
  const ids = () => receiver.received.map((r) => r.headers["toolbox-delivery"]);

  it("both nodes hear the event; the channel gets it once, with or without inboxes", async () => {
    expect(node2.app.bus.kind).toBe("nats");
    const heard: number[] = [];
    node1.app.bus.subscribe({ types: ["securitySettingsChanged"], organizationId: org }, () => heard.push(1));
    node2.app.bus.subscribe({ types: ["securitySettingsChanged"], organizationId: org }, () => heard.push(2));

    // Channels only: no inbox row for the nodes to meet on.
    expect((await rule(false)).statusCode).toBe(200);
    for (const [i, node] of [node1, node2, node1].entries()) {
      expect((await securityChanged(node, i % 2 === 0)).statusCode).toBe(200);
      await receiver.until(i + 1, `delivery ${i + 1}`);
    }
    // And with the inbox (the default rule).
    expect((await rule(true)).statusCode).toBe(200);
    expect((await securityChanged(node2, false)).statusCode).toBe(200);
    await receiver.until(4, "delivery 4");
    await settle();

    expect(heard.filter((n) => n === 1)).toHaveLength(4);
    expect(heard.filter((n) => n === 2)).toHaveLength(4);
    expect(receiver.received).toHaveLength(4);
    expect(new Set(ids()).size).toBe(4);
    const rows = await database.db.select().from(notificationDeliveries).where(eq(notificationDeliveries.channelId, channelId));
    expect(rows).toHaveLength(4);
    expect(rows.every((r) => r.status === "delivered" && r.attempts === 1)).toBe(true);
  });

  it("a failed delivery is retried by one node: each try reaches the receiver once", async () => {
    const before = receiver.received.length;
    receiver.answers.push(500, 502);
    expect((await securityChanged(node1, true)).statusCode).toBe(200);
    await receiver.until(before + 3, "three tries");
    await waitFor(async () => {
      const rows = await database.db.select().from(notificationDeliveries).where(eq(notificationDeliveries.channelId, channelId));
      return rows.find((r) => r.attempts === 3 && r.status === "delivered");
    }, "the delivery made on its third try");
    await settle();
    const tries = receiver.received.slice(before);
    expect(tries.map((r) => r.headers["toolbox-delivery"])).toEqual(Array(3).fill(tries[0]!.headers["toolbox-delivery"]));
  });
});
