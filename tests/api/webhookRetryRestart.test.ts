/**
 * A webhook delivery waiting for its retry is kept in the database (docs/notifications.md
 * "Delivery"): the node stops before the retry, a new one starts on the same database and makes
 * it — the same delivery id, a fresh valid signature. A delivery a dead node was trying (its lease
 * ran out) is tried again; one another node holds is left alone.
 */
import crypto from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { notificationDeliveries } from "../../server/db/schema.ts";
import { describeDb, openTestDatabase } from "../helpers/db.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { startPlatformsApp, waitFor, type PlatformsApp, type TestDatabase } from "./platformsHarness.ts";
import { signUp } from "./support/fixtures.ts";
import { startReceiver, type Receiver } from "./support/receiver.ts";

const SECRET = "whsec-restart-0123456789";

function signatureValid(headers: Record<string, unknown>, body: string): boolean {
  const raw = headers["toolbox-signature"];
  const parts = Object.fromEntries((typeof raw === "string" ? raw : "").split(",").map((p) => p.split("=", 2) as [string, string]));
  const expected = crypto.createHmac("sha256", SECRET).update(`${parts.t}.${body}`).digest("hex");
  return parts.t === headers["toolbox-timestamp"] && parts.v1 === expected;
}

describeDb("webhook deliveries across a restart", () => {
  let database: TestDatabase;
  let receiver: Receiver;
  let node: PlatformsApp | undefined;
  let tokens: TokenFactory;
  const ada = newPerson("Ada");
  let org: string;
  let channelId: string;

  const start = () =>
    startPlatformsApp({
      database,
      env: {
        TOOLBOX_ALLOWED_TARGETS: "127.0.0.1",
        // Long enough for the node to stop before the retry is due.
        NOTIFICATIONS_RETRY_BASE_MS: "1500",
        NOTIFICATIONS_POLL_MS: "100",
        NOTIFICATIONS_MAX_ATTEMPTS: "3",
      },
    });
  const call = async (method: "GET" | "POST" | "PUT", url: string, payload?: object) =>
    node!.call({ method, url, headers: apiHeaders(await tokens.mint(ada, { claims: { amr: ["pwd", "otp"] } }), org), ...(payload ? { payload } : {}) });
  const deliveries = () => database.db.select().from(notificationDeliveries).where(eq(notificationDeliveries.channelId, channelId));
  /** An event the default rule sends to every channel. */
  const securityChanged = (requireTwoFactor: boolean) =>
    call("PUT", "/api/organization/security", { requireTwoFactor, sessionLifetimeSeconds: null, allowedIpRanges: [] });

  beforeAll(async () => {
    database = await openTestDatabase();
    receiver = await startReceiver();
    node = await start();
    tokens = await tokenFactory(node.ctx);
    org = await signUp(node, tokens, ada);
    const channel = await call("POST", "/api/notifications/channels", { kind: "webhook", name: "Hook", settings: { url: receiver.url }, secret: SECRET });
    expect(channel.statusCode, channel.body).toBe(201);
    channelId = channel.json<{ id: string }>().id;
  });
  afterAll(async () => {
    await node?.close();
    await receiver?.close();
    await database?.drop();
  });

  it("makes the retry a stopped node left, after the restart, with the same delivery id", async () => {
    receiver.answers.push(500);
    expect((await securityChanged(true)).statusCode).toBe(200);
    const [first] = await receiver.until(1, "the first try");
    await waitFor(async () => (await deliveries())[0]?.attempts === 1, "the failed try recorded");
    await node!.close();
    node = undefined;

    const [waiting] = await deliveries();
    expect(waiting).toMatchObject({ status: "pending", attempts: 1, lastStatus: 500, leaseOwner: null });
    expect(waiting!.nextAttemptAt!.getTime()).toBeGreaterThan(Date.now() - 1000);

    node = await start();
    const [, retry] = await receiver.until(2, "the retry after the restart");
    expect(retry!.headers["toolbox-delivery"]).toBe(first!.headers["toolbox-delivery"]);
    expect(retry!.body).toBe(first!.body);
    expect(signatureValid(retry!.headers, retry!.body)).toBe(true);
    await waitFor(async () => (await deliveries())[0]?.status === "delivered", "the delivery recorded as delivered");
    expect(await deliveries()).toMatchObject([{ status: "delivered", attempts: 2, nextAttemptAt: null, leaseOwner: null }]);
    expect(receiver.received).toHaveLength(2);
  });

  it("tries again a delivery whose node died mid-try once its lease runs out, never one another node holds", async () => {
    const before = receiver.received.length;
    // Two deliveries as a node left them: one it was trying when it died (lease ran out), one a live node holds.
    const [dead, held] = await database.db
      .insert(notificationDeliveries)
      .values(
        ["dead", "held"].map((which) => ({
          organizationId: org,
          channelId,
          type: "securitySettingsChanged",
          status: "pending",
          attempts: 1,
          dedupeKey: `test:${which}`,
          message: { severity: "info", title: `Left by a ${which} node`, body: "…", link: null },
          nextAttemptAt: sql`now() - interval '1 minute'`,
          leaseOwner: `node-${which}`,
          leaseExpiresAt: which === "dead" ? sql`now() - interval '1 second'` : sql`now() + interval '1 hour'`,
        })),
      )
      .returning();
    const [retry] = (await receiver.until(before + 1, "the dead node's delivery")).slice(before);
    expect(JSON.parse(retry!.body)).toMatchObject({ id: dead!.id, title: "Left by a dead node" });
    await waitFor(
      async () => (await database.db.select().from(notificationDeliveries).where(eq(notificationDeliveries.id, dead!.id)))[0]?.status === "delivered",
      "delivered",
    );
    await new Promise((r) => setTimeout(r, 500)); // several polls
    expect(receiver.received).toHaveLength(before + 1);
    const [still] = await database.db
      .select()
      .from(notificationDeliveries)
      .where(and(eq(notificationDeliveries.id, held!.id), eq(notificationDeliveries.leaseOwner, "node-held")));
    expect(still).toMatchObject({ status: "pending", attempts: 1 });
  });
});
