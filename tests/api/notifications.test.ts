/**
 * The inbox and notifications through the real app: a simulated platform's outage reaches the
 * inbox, the live unread count and a webhook receiver run by the test (signed, retried after a
 * 500), Telegram through a local stand-in of the Bot API, rules, auto-disable of a failing channel,
 * large balance operations, retention, address checks, secrets at rest, and one organization never
 * reaching another's notifications or channels.
 */
// Databases: PGlite and PostgreSQL (delivery leases).
import crypto from "node:crypto";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { moduleClaimType } from "../../core/access.ts";
import { notificationChannels, notifications } from "../../server/db/schema.ts";
import { ORGANIZATION_WIDE } from "../../server/events/types.ts";
import { accountsMirrorOf } from "../../server/modules/accounts/mirror/plugin.ts";
import { describeDb } from "../helpers/db.ts";
import { apiHeaders, newPerson, tokenFactory, type Person, type TokenFactory } from "../helpers/tokens.ts";
import { addMember, signUp } from "./support/fixtures.ts";
import { startReceiver, type Receiver } from "./support/receiver.ts";
import { startPlatformsApp, waitFor, type PlatformsApp } from "./platformsHarness.ts";

const WEBHOOK_SECRET = "whsec-0123456789-abcdef";
const BOT_TOKEN = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw";

interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

/** Server-sent events from a fetch body, as they come. */
function sseReader(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const events: SseEvent[] = [];
  let buffer = "";
  async function until(match: (e: SseEvent) => boolean, what: string): Promise<SseEvent> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const found = events.findLast(match);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${what}; got ${JSON.stringify(events.slice(-5))}`);
      const chunk = await Promise.race([reader.read(), new Promise<null>((r) => setTimeout(() => r(null), left))]);
      if (chunk === null) continue;
      if (chunk.done) throw new Error("stream ended");
      buffer += decoder.decode(chunk.value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (event && data) events.push({ event, data: JSON.parse(data) });
      }
    }
  }
  return { events, until, cancel: () => reader.cancel().catch(() => undefined) };
}

/** Verifies a delivery as a receiver should (docs/notifications.md). */
function verify(headers: Record<string, unknown>, body: string, secret: string): boolean {
  const raw = headers["toolbox-signature"];
  const header = typeof raw === "string" ? raw : "";
  const parts = Object.fromEntries(header.split(",").map((p) => p.split("=", 2) as [string, string]));
  if (!parts.t || !parts.v1 || parts.t !== headers["toolbox-timestamp"]) return false;
  const expected = crypto.createHmac("sha256", secret).update(`${parts.t}.${body}`).digest("hex");
  return crypto.timingSafeEqual(Buffer.from(expected), Buffer.from(parts.v1.padEnd(expected.length).slice(0, expected.length)));
}

describeDb("notifications: the inbox, rules and channels", () => {
  let t: PlatformsApp;
  let base: string;
  let tokens: TokenFactory;
  let webhook: Receiver;
  let telegram: Receiver;
  let failing: Receiver;
  const ada = newPerson("Ada");
  const eve = newPerson("Eve");
  const bob = newPerson("Bob");
  let org: string;
  let eveOrg: string;

  beforeAll(async () => {
    webhook = await startReceiver();
    telegram = await startReceiver(() => JSON.stringify({ ok: true, result: { message_id: 1 } }));
    failing = await startReceiver();
    failing.fallback = 500;
    t = await startPlatformsApp({
      env: {
        TOOLBOX_ALLOWED_TARGETS: "127.0.0.1",
        TELEGRAM_API_URL: telegram.url,
        NOTIFICATIONS_RETRY_BASE_MS: "50",
        NOTIFICATIONS_MAX_ATTEMPTS: "3",
        NOTIFICATIONS_DISABLE_AFTER: "2",
        NOTIFICATIONS_RECONNECT_SETTLE_MS: "300",
      },
    });
    base = await t.app.listen({ port: 0, host: "127.0.0.1" });
    tokens = await tokenFactory(t.ctx);
    org = await signUp(t, tokens, ada);
    eveOrg = await signUp(t, tokens, eve);
    await addMember(t.ctx, org, bob, { [moduleClaimType("tradePlatforms", org)]: "read" });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await t?.drop();
    await Promise.all([webhook, telegram, failing].map((r) => r?.close()));
  });

  const as = (person: Person, organizationId: string) => {
    const call = async (method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE", url: string, payload?: unknown) =>
      t.call({ method, url, headers: apiHeaders(await tokens.mint(person), organizationId), ...(payload === undefined ? {} : { payload: payload as object }) });
    return {
      get: (url: string) => call("GET", url),
      post: (url: string, payload?: unknown) => call("POST", url, payload ?? {}),
      put: (url: string, payload: unknown) => call("PUT", url, payload),
      patch: (url: string, payload: unknown) => call("PATCH", url, payload),
      delete: (url: string) => call("DELETE", url),
    };
  };
  const adaApi = () => as(ada, org);
  const inbox = async (query = "") => {
    const res = await adaApi().get(`/api/inbox${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{
      items: { id: string; type: string; severity: string; title: string; body: string; link: string | null; readAt: string | null }[];
      unread: number;
      next: string | null;
    }>();
  };
  const addWebhook = async (name: string, url: string) => {
    const res = await adaApi().post("/api/notifications/channels", { kind: "webhook", name, settings: { url }, secret: WEBHOOK_SECRET });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ id: string; hasSecret: boolean; enabled: boolean }>();
  };
  const publish = (event: object) => t.app.bus.publish({ organizationId: org, platformId: ORGANIZATION_WIDE, ...event } as never);
  let hookId: string;

  it("a platform disconnect reaches the live unread count and a webhook (signed, retried after a 500); reconnected follows once it settles", async () => {
    const hook = await addWebhook("Ops hook", `${webhook.url}/hooks/toolbox`);
    hookId = hook.id;
    expect(hook).toMatchObject({ hasSecret: true, enabled: true });
    expect(JSON.stringify(hook)).not.toContain(WEBHOOK_SECRET);

    const created = await adaApi().post("/api/tradePlatforms", {
      type: "MT5",
      name: "Frankfurt",
      timeZone: "UTC",
      connection: { kind: "simulated", accounts: 10, tradeRate: 0 },
    });
    expect(created.statusCode, created.body).toBe(201);
    const platformId: string = created.json().id;
    await waitFor(async () => t.app.platforms.state(platformId).state === "connected", "the platform to connect");

    const controller = new AbortController();
    const live = await fetch(`${base}/api/inbox/live`, { headers: apiHeaders(await tokens.mint(ada), org), signal: controller.signal });
    expect(live.status).toBe(200);
    expect(live.headers.get("content-type")).toContain("text/event-stream");
    const stream = sseReader(live.body!);
    try {
      await stream.until((e) => e.event === "unread" && e.data.unread === 0, "the first count");

      webhook.answers.push(500);
      // The demo tool a person (and the browser test) uses to cut a simulated platform's link.
      const cut = await adaApi().post(`/api/tradePlatforms/${platformId}/simulator/faults`, { action: "disconnect" });
      expect(cut.statusCode, cut.body).toBe(200);
      await stream.until((e) => e.event === "unread" && e.data.unread === 1, "the count after the outage");

      const page = await inbox();
      expect(page.unread).toBe(1);
      expect(page.items).toHaveLength(1);
      expect(page.items[0]).toMatchObject({
        type: "platformDisconnected",
        severity: "error",
        title: "Frankfurt disconnected",
        link: `/tradePlatforms/MT5/${platformId}/settings`,
        readAt: null,
      });

      // The receiver answered 500 first; the retry got through, with the same delivery id and a valid signature.
      const [first, second] = await webhook.until(2, "the retried delivery");
      expect(first!.url).toBe("/hooks/toolbox");
      expect(first!.headers["toolbox-delivery"]).toBe(second!.headers["toolbox-delivery"]);
      expect(second!.headers["toolbox-event"]).toBe("platformDisconnected");
      for (const r of [first!, second!]) expect(verify(r.headers, r.body, WEBHOOK_SECRET)).toBe(true);
      expect(verify(second!.headers, second!.body, "another-secret-entirely")).toBe(false);
      expect(verify(second!.headers, second!.body.replace("Frankfurt", "Frankfort"), WEBHOOK_SECRET)).toBe(false);
      expect(JSON.parse(second!.body)).toMatchObject({
        id: second!.headers["toolbox-delivery"],
        organizationId: org,
        type: "platformDisconnected",
        severity: "error",
        title: "Frankfurt disconnected",
        link: `http://localhost:3000/tradePlatforms/MT5/${platformId}/settings`,
        test: false,
      });
      const log = await waitFor(async () => {
        const res = await adaApi().get(`/api/notifications/channels/${hookId}/deliveries`);
        const rows = res.json<{ status: string; attempts: number; lastStatus: number | null }[]>();
        return rows[0]?.status === "delivered" ? rows : undefined;
      }, "the delivery log to say delivered");
      expect(log).toHaveLength(1);
      expect(log[0]).toMatchObject({ type: "platformDisconnected", status: "delivered", attempts: 2, lastStatus: 200 });

      expect((await adaApi().post(`/api/tradePlatforms/${platformId}/simulator/faults`, { action: "restore" })).statusCode).toBe(200);
      await waitFor(async () => t.app.platforms.state(platformId).state === "connected", "the platform to reconnect");
      await stream.until((e) => e.event === "unread" && e.data.unread === 2, "the count after reconnecting");
      const after = await inbox();
      expect(after.items.map((i) => i.type)).toEqual(["platformReconnected", "platformDisconnected"]);
      expect(after.items[0]).toMatchObject({ severity: "info", title: "Frankfurt reconnected" });
      await webhook.until(3, "the reconnected delivery");
      expect(webhook.received[2]!.headers["toolbox-event"]).toBe("platformReconnected");
    } finally {
      controller.abort();
      await stream.cancel();
    }
  }, 30_000);

  it("another organization's notifications and channels are invisible (404), its members' inboxes their own", async () => {
    const mine = await inbox();
    const id = mine.items[0]!.id;
    const eveApi = as(eve, eveOrg);
    const eveInbox = await eveApi.get("/api/inbox");
    expect(eveInbox.statusCode).toBe(200);
    expect(eveInbox.json()).toMatchObject({ items: [], unread: 0 });
    expect((await eveApi.post(`/api/inbox/${id}/read`)).statusCode).toBe(404);
    expect((await eveApi.patch(`/api/notifications/channels/${hookId}`, { name: "Mine now" })).statusCode).toBe(404);
    expect((await eveApi.delete(`/api/notifications/channels/${hookId}`)).statusCode).toBe(404);
    expect((await eveApi.post(`/api/notifications/channels/${hookId}/test`)).statusCode).toBe(404);
    expect((await eveApi.get(`/api/notifications/channels/${hookId}/deliveries`)).statusCode).toBe(404);
    expect((await eveApi.get("/api/notifications/channels")).json()).toEqual([]);
    const platformId = mine.items[0]!.link!.split("/")[3]!;
    expect((await eveApi.post(`/api/tradePlatforms/${platformId}/simulator/faults`, { action: "disconnect" })).statusCode).toBe(404);
    expect((await adaApi().post(`/api/tradePlatforms/${platformId}/simulator/faults`, { action: "explode" })).statusCode).toBe(400);
    // Naming Ada's organization does not help: not a member.
    expect((await as(eve, org).get("/api/inbox")).statusCode).toBe(404);
    // Bob is a member of Ada's organization without the inbox permission; with it, his inbox is his own.
    expect((await as(bob, org).get("/api/inbox")).statusCode).toBe(403);
    expect((await inbox()).items.find((i) => i.id === id)?.readAt).toBeNull();
  });

  it("marks one read and all read, filters by status, severity and type, and pages", async () => {
    const before = await inbox();
    expect(before.unread).toBe(2);
    const disconnected = before.items.find((i) => i.type === "platformDisconnected")!;
    const read = await adaApi().post(`/api/inbox/${disconnected.id}/read`);
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json().readAt).not.toBeNull();
    expect((await inbox()).unread).toBe(1);
    expect((await inbox("?status=unread")).items.map((i) => i.type)).toEqual(["platformReconnected"]);
    expect((await inbox("?status=read")).items.map((i) => i.type)).toEqual(["platformDisconnected"]);
    expect((await inbox("?severity=error")).items.map((i) => i.type)).toEqual(["platformDisconnected"]);
    expect((await inbox("?type=platformReconnected")).items).toHaveLength(1);
    const first = await inbox("?limit=1");
    expect(first.items).toHaveLength(1);
    expect(first.next).not.toBeNull();
    const second = await inbox(`?limit=1&before=${first.next}`);
    expect(second.items.map((i) => i.id)).not.toContain(first.items[0]!.id);

    const all = await adaApi().post("/api/inbox/read-all");
    expect(all.json()).toEqual({ marked: 1 });
    expect((await inbox()).unread).toBe(0);

    const bad = await adaApi().get("/api/inbox?severity=loud");
    expect(bad.statusCode).toBe(400);
    expect((await adaApi().get("/api/inbox?before=nonsense")).statusCode).toBe(400);
    expect((await adaApi().post("/api/inbox/not-an-id/read")).statusCode).toBe(400);
    expect((await adaApi().post(`/api/inbox/${crypto.randomUUID()}/read`)).statusCode).toBe(404);
  });

  it("keeps channel secrets encrypted at rest, never answered or logged", async () => {
    const [row] = await t.ctx.database.db.select().from(notificationChannels).where(eq(notificationChannels.id, hookId));
    expect(row!.secretCiphertext).toBeTruthy();
    expect(row!.secretCiphertext).not.toContain(WEBHOOK_SECRET);
    expect(JSON.stringify(row!.settings)).not.toContain(WEBHOOK_SECRET);
    const listed = await adaApi().get("/api/notifications/channels");
    expect(listed.body).not.toContain(WEBHOOK_SECRET);
    expect(t.bodies.join("\n")).not.toContain(WEBHOOK_SECRET);
    expect(t.logs.join("\n")).not.toContain(WEBHOOK_SECRET);
  });

  it("refuses private, loopback, link-local and metadata targets unless allowed, with a readable 400", async () => {
    for (const url of [
      "http://169.254.169.254/latest/meta-data",
      "http://10.1.2.3/hook",
      "http://192.168.1.10/hook",
      "http://127.0.0.2:8080/hook",
      "http://localhost:8080/hook",
      "http://[::1]:8080/hook",
      "http://[fd00:ec2::254]/",
      // IPv6 forms carrying an IPv4 address; 127.0.0.1 is allowed here, its IPv4-compatible form is not it.
      "http://[::127.0.0.1]:8080/hook",
      "http://[::ffff:169.254.169.254]/",
      "http://[2002:a9fe:a9fe::1]/",
      "http://[64:ff9b::a9fe:a9fe]/",
    ]) {
      const res = await adaApi().post("/api/notifications/channels", { kind: "webhook", name: "Sneaky", settings: { url }, secret: WEBHOOK_SECRET });
      expect(res.statusCode, `${url}: ${res.body}`).toBe(400);
      expect(res.json().message).toMatch(/TOOLBOX_ALLOWED_TARGETS/);
    }
    const ftp = await adaApi().post("/api/notifications/channels", {
      kind: "webhook",
      name: "Ftp",
      settings: { url: "ftp://example.com/x" },
      secret: WEBHOOK_SECRET,
    });
    expect(ftp.statusCode).toBe(400);
    expect(ftp.json().message).toMatch(/http/);
    const short = await adaApi().post("/api/notifications/channels", {
      kind: "webhook",
      name: "Short",
      settings: { url: "https://example.com/x" },
      secret: "short",
    });
    expect(short.statusCode).toBe(400);
    const moved = await adaApi().patch(`/api/notifications/channels/${hookId}`, { settings: { url: "http://169.254.169.254/" } });
    expect(moved.statusCode).toBe(400);
    expect((await t.ctx.database.db.select().from(notificationChannels).where(eq(notificationChannels.id, hookId)))[0]!.settings).toEqual({
      url: `${webhook.url}/hooks/toolbox`,
    });
  });

  it("sends a test through Telegram's Bot API (a local stand-in) and reports its refusal without the token", async () => {
    const created = await adaApi().post("/api/notifications/channels", {
      kind: "telegram",
      name: "Dealers chat",
      settings: { chatId: "-1001234567890" },
      botToken: BOT_TOKEN,
    });
    expect(created.statusCode, created.body).toBe(201);
    const id: string = created.json().id;
    expect(created.body).not.toContain(BOT_TOKEN);

    const sent = await adaApi().post(`/api/notifications/channels/${id}/test`);
    expect(sent.json()).toEqual({ delivered: true, status: 200, error: null });
    const [call] = telegram.received;
    expect(call!.method).toBe("POST");
    expect(call!.url).toBe(`/bot${BOT_TOKEN}/sendMessage`);
    expect(JSON.parse(call!.body)).toMatchObject({ chat_id: "-1001234567890", text: expect.stringContaining("Test notification from Toolbox") });

    telegram.answers.push(400);
    const refused = await adaApi().post(`/api/notifications/channels/${id}/test`);
    expect(refused.json()).toMatchObject({ delivered: false, status: 400, error: "Telegram answered HTTP 400: Bad Request: chat not found" });
    const log = (await adaApi().get(`/api/notifications/channels/${id}/deliveries`)).json();
    expect(log.map((d: { status: string; type: string }) => [d.type, d.status])).toEqual([
      ["test", "failed"],
      ["test", "delivered"],
    ]);
    expect(t.logs.join("\n")).not.toContain(BOT_TOKEN);
    expect(t.bodies.join("\n")).not.toContain(BOT_TOKEN);

    const badToken = await adaApi().post("/api/notifications/channels", { kind: "telegram", name: "Bad", settings: { chatId: "42" }, botToken: "not a token" });
    expect(badToken.statusCode).toBe(400);
    expect(badToken.json().message).toMatch(/Bot token/);
    await adaApi().delete(`/api/notifications/channels/${id}`);
  });

  it("follows the rules: which channels, whose inbox; refuses a rule naming another organization's channel", async () => {
    const settings = await adaApi().get("/api/notifications/settings");
    expect(settings.json()).toEqual({ retentionDays: 90, largeBalanceThreshold: null, rules: {} });
    const eveChannel = await as(eve, eveOrg).post("/api/notifications/channels", { kind: "email", name: "Eve mail", settings: { to: ["eve@example.com"] } });
    const foreign = await adaApi().put("/api/notifications/settings", {
      retentionDays: 90,
      largeBalanceThreshold: null,
      rules: { memberLeft: { channels: [eveChannel.json().id] } },
    });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().message).toMatch(/not a channel of this organization/);

    const saved = await adaApi().put("/api/notifications/settings", {
      retentionDays: 90,
      largeBalanceThreshold: null,
      rules: { memberLeft: { inbox: false, channels: [hookId] }, memberJoined: { members: "admins", channels: [] } },
    });
    expect(saved.statusCode, saved.body).toBe(200);

    const seen = webhook.received.length;
    await publish({ type: "memberLeft", sub: "someone", name: "Carol" });
    await webhook.until(seen + 1, "the memberLeft delivery");
    expect(webhook.received[seen]!.headers["toolbox-event"]).toBe("memberLeft");
    expect((await inbox("?type=memberLeft")).items).toEqual([]);

    await addMember(t.ctx, org, newPerson("Dan"), { [moduleClaimType("inbox", org)]: "read" });
    await publish({ type: "memberJoined", sub: "dan", name: "Dan" });
    const joined = await waitFor(async () => (await inbox("?type=memberJoined")).items[0], "the memberJoined notice");
    expect(joined.title).toBe("Dan joined the organization");
    // Administrators only: Bob and Dan are members but not administrators.
    const rows = await t.ctx.database.db
      .select()
      .from(notifications)
      .where(and(eq(notifications.organizationId, org), eq(notifications.type, "memberJoined")));
    expect(rows.map((r) => r.userSub)).toEqual([ada.sub]);
    // Not sent to the webhook (channels: []).
    expect(webhook.received.slice(seen + 1).map((r) => r.headers["toolbox-event"])).not.toContain("memberJoined");
  });

  it("switches a channel off after repeated failures, with a notice in the administrators' inbox", async () => {
    const bad = await addWebhook("Broken hook", `${failing.url}/down`);
    await adaApi().put("/api/notifications/settings", {
      retentionDays: 90,
      largeBalanceThreshold: null,
      rules: { securitySettingsChanged: { channels: [bad.id] } },
    });
    await publish({ type: "securitySettingsChanged", actorName: "Ada", summary: "sessions last 8 hours" });
    await publish({ type: "securitySettingsChanged", actorName: "Ada", summary: "sessions last 4 hours" });
    const notice = await waitFor(async () => (await inbox("?type=channelDisabled")).items[0], "the channel-disabled notice");
    expect(notice).toMatchObject({ severity: "error", title: 'Notification channel "Broken hook" switched off', link: "/settings/notifications" });
    expect(notice.body).toMatch(/2 failed deliveries in a row; the last: the receiver answered HTTP 500/);
    const channel = (await adaApi().get("/api/notifications/channels")).json().find((c: { id: string }) => c.id === bad.id);
    expect(channel).toMatchObject({ enabled: false, consecutiveFailures: 2 });
    expect(channel.disabledReason).toMatch(/Switched off/);
    // Two deliveries, three tries each (NOTIFICATIONS_MAX_ATTEMPTS).
    expect(failing.received).toHaveLength(6);
    const log = (await adaApi().get(`/api/notifications/channels/${bad.id}/deliveries`)).json();
    expect(log.map((d: { status: string; attempts: number }) => [d.status, d.attempts])).toEqual([
      ["failed", 3],
      ["failed", 3],
    ]);
    const again = await adaApi().patch(`/api/notifications/channels/${bad.id}`, { enabled: true });
    expect(again.json()).toMatchObject({ enabled: true, consecutiveFailures: 0, disabledReason: null });
  });

  it("stops retrying a delivery once its channel is switched off", async () => {
    const paused = await addWebhook("Paused hook", `${failing.url}/paused`);
    await adaApi().put("/api/notifications/settings", {
      retentionDays: 90,
      largeBalanceThreshold: null,
      rules: { leverageChanged: { channels: [paused.id] } },
    });
    const seen = failing.received.length;
    // The first try is held at the receiver until the channel is off; its 500 then schedules a retry that must not go out.
    let release = () => {};
    failing.hold = new Promise<void>((resolve) => (release = resolve));
    await publish({ type: "leverageChanged", login: "1001", from: 100, to: 50, plugin: "Flexible Leverage" });
    await failing.until(seen + 1, "the first try");
    expect((await adaApi().patch(`/api/notifications/channels/${paused.id}`, { enabled: false })).statusCode).toBe(200);
    failing.hold = null;
    release();
    const log = await waitFor(async () => {
      const rows = (await adaApi().get(`/api/notifications/channels/${paused.id}/deliveries`)).json<{ status: string; lastError: string | null }[]>();
      return rows[0]?.status === "failed" ? rows : undefined;
    }, "the delivery to stop");
    expect(log[0]!.lastError).toBe("The channel was switched off before this delivery got through");
    expect(failing.received.filter((r) => r.url === "/paused")).toHaveLength(1);
  });

  it("notices a balance operation at or above the organization's threshold", async () => {
    await adaApi().put("/api/notifications/settings", { retentionDays: 90, largeBalanceThreshold: "1000", rules: {} });
    const created = await adaApi().post("/api/tradePlatforms", {
      type: "MT4",
      name: "Cashier sim",
      timeZone: "UTC",
      connection: { kind: "simulated", accounts: 5, tradeRate: 0, seed: 3 },
    });
    const platformId: string = created.json().id;
    await accountsMirrorOf(t.ctx)!.whenSynced(platformId, 30_000);
    const connector = await t.app.platforms.connectorFor(org, platformId);
    const [login] = (await connector.listAccounts({ limit: 1 })).items.map((a) => a.login);
    const deposit = async (amount: string) => {
      const res = await t.call({
        method: "POST",
        url: `/api/accounts/${platformId}/${login}/balance-operations`,
        headers: { ...apiHeaders(await tokens.mint(ada), org), "idempotency-key": crypto.randomUUID() },
        payload: { type: "deposit", amount },
      });
      expect(res.statusCode, res.body).toBe(201);
    };
    await deposit("999.99");
    await deposit("2500");
    const notice = await waitFor(async () => {
      const { items } = await inbox("?type=largeBalanceOperation");
      return items.length > 0 ? items : undefined;
    }, "the large operation notice");
    expect(notice).toHaveLength(1);
    // Figures as core/format.ts writes them, in the account's currency (the threshold is in it too).
    const currency = (await connector.getAccount(login!)).currency;
    expect(currency).toMatch(/^[A-Z]{3}$/);
    expect(notice[0]).toMatchObject({ severity: "warning", title: `Large deposit: 2,500.00 ${currency} on ${login}` });
    expect(notice[0]!.body).toContain(`of 2,500.00 ${currency} on account ${login}`);
    expect(notice[0]!.body).toContain(`(threshold 1,000.00 ${currency})`);
    const badThreshold = await adaApi().put("/api/notifications/settings", { retentionDays: 90, largeBalanceThreshold: "lots", rules: {} });
    expect(badThreshold.statusCode).toBe(400);
  }, 60_000);

  it("drops notifications older than the organization's retention", async () => {
    const day = 86_400_000;
    const { db } = t.ctx.database;
    const old = { organizationId: org, userSub: ada.sub, type: "memberJoined", severity: "info", title: "Old", body: "old", link: null };
    await db.insert(notifications).values([
      { ...old, title: "Forty days old", dedupeKey: "old-40", createdAt: new Date(Date.now() - 40 * day) },
      { ...old, title: "Ten days old", dedupeKey: "old-10", createdAt: new Date(Date.now() - 10 * day) },
    ]);
    expect((await inbox("?limit=200")).items.map((i) => i.title)).toContain("Forty days old");
    const res = await adaApi().put("/api/notifications/settings", { retentionDays: 30, largeBalanceThreshold: null, rules: {} });
    expect(res.statusCode).toBe(200);
    const titles = (await inbox("?limit=200")).items.map((i) => i.title);
    expect(titles).not.toContain("Forty days old");
    expect(titles).toContain("Ten days old");
    expect((await adaApi().put("/api/notifications/settings", { retentionDays: 0, largeBalanceThreshold: null, rules: {} })).statusCode).toBe(400);
  });
});
