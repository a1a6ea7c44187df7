/** Trade platforms over time: the live event stream, restarts on the same database, the demo servers. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { moduleClaimType } from "../../core/access.ts";
import { SimulatedServer } from "../../server/connectors/simulated/server.ts";
import { organizations, tradePlatforms } from "../../server/db/schema.ts";
import { DEMO_ORGANIZATION, seedDemo } from "../../server/seed.ts";
import { describeDb, openTestDatabase, testDbKind, theOnly } from "../helpers/db.ts";
import { apiHeaders, newPerson, tokenFactory } from "../helpers/tokens.ts";
import { addMember, signUp } from "./support/fixtures.ts";
import { FAST_RUNTIME, startPlatformsApp, waitFor, type PlatformsApp, type TestDatabase } from "./platformsHarness.ts";

interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

/** Reads server-sent events from a fetch response body as they come. */
function sseReader(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const events: SseEvent[] = [];
  let buffer = "";
  let raw = "";
  async function until(match: (e: SseEvent) => boolean, timeoutMs = 8_000): Promise<SseEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = events.find(match);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching event; got ${JSON.stringify(events.slice(-5))}`);
      const chunk = await Promise.race([reader.read(), new Promise<null>((r) => setTimeout(() => r(null), left))]);
      if (chunk === null) continue;
      if (chunk.done) throw new Error("stream ended");
      const text = decoder.decode(chunk.value, { stream: true });
      raw += text;
      buffer += text;
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
  return { events, until, raw: () => raw, cancel: () => reader.cancel().catch(() => undefined) };
}

describeDb("live platform states (server-sent events)", () => {
  let t: PlatformsApp;
  let base: string;
  beforeAll(async () => {
    t = await startPlatformsApp();
    base = await t.app.listen({ port: 0, host: "127.0.0.1" });
  });
  afterAll(async () => {
    await t?.close();
    await t?.drop();
  });

  it("sends each platform's state at once, every change, the server clock each second, and cleans up when the client goes", async () => {
    const tokens = await tokenFactory(t.ctx);
    const ada = newPerson("Ada");
    const eve = newPerson("Eve");
    const org = await signUp(t, tokens, ada);
    const eveOrg = await signUp(t, tokens, eve);
    const headers = apiHeaders(await tokens.mint(ada), org);
    const post = (body: unknown, h = headers) =>
      fetch(`${base}/api/tradePlatforms`, { method: "POST", headers: { ...h, "content-type": "application/json" }, body: JSON.stringify(body) });
    const first = await (await post({ type: "MT5", name: "Live one", timeZone: "UTC", connection: { kind: "simulated", accounts: 10, tradeRate: 0 } })).json();

    // The bus's subscriptions, to see the stream's go.
    const subscriptions = () => t.app.bus.health().subscriptions;
    const subscriptionsBefore = subscriptions()!;
    const controller = new AbortController();
    const res = await fetch(`${base}/api/tradePlatforms/live`, {
      headers: { ...headers, "accept-encoding": "gzip, br" },
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-accel-buffering")).toBe("no");
    expect(res.headers.get("content-encoding")).toBeNull();
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const sse = sseReader(res.body!);

    // At once: the platform's current state; then the clock while it is connected.
    await sse.until((e) => e.event === "state" && e.data.platformId === first.id);
    const ticking = await sse.until((e) => e.data.platformId === first.id && e.data.state === "connected" && typeof e.data.serverTime === "string");
    expect(ticking.data).toMatchObject({ lastError: null });
    const ticks = () => sse.events.filter((e) => e.data.platformId === first.id && e.data.serverTime).length;
    const seen = ticks();
    await sse.until(() => ticks() >= seen + 2, 4_000);

    // A platform created meanwhile shows up, from connecting to connected.
    const second = await (await post({ type: "MT4", name: "Live two", timeZone: "UTC", connection: { kind: "simulated", accounts: 10, tradeRate: 0 } })).json();
    await sse.until((e) => e.data.platformId === second.id && e.data.state === "connected");

    // Another organization's platform never does.
    const eveHeaders = apiHeaders(await tokens.mint(eve), eveOrg);
    const foreign = await (
      await post({ type: "MT4", name: "Eve's live", timeZone: "UTC", connection: { kind: "simulated", accounts: 5, tradeRate: 0 } }, eveHeaders)
    ).json();
    await waitFor(async () => t.app.platforms.state(foreign.id).state === "connected", "foreign platform connected");

    // Disabled, then deleted.
    await fetch(`${base}/api/tradePlatforms/${second.id}`, {
      method: "PATCH",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ enable: false }),
    });
    await sse.until((e) => e.data.platformId === second.id && e.data.state === "disconnected");
    const del = await fetch(`${base}/api/tradePlatforms/${second.id}`, {
      method: "DELETE",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ confirmName: "Live two" }),
    });
    expect(del.status).toBe(204);
    await sse.until((e) => e.event === "removed" && e.data.platformId === second.id);
    await new Promise((r) => setTimeout(r, 1_200));
    expect(sse.events.some((e) => e.data.platformId === foreign.id)).toBe(false);
    expect(sse.raw()).toContain("retry: 3000");

    expect(subscriptions()).toBe(subscriptionsBefore + 1);
    controller.abort();
    await sse.cancel();
    await waitFor(async () => subscriptions() === subscriptionsBefore, "the stream's subscription to go");
  });

  it("refuses without a token, without the organization, and without tradePlatforms:read", async () => {
    const live = (headers: Record<string, string> = {}) => fetch(`${base}/api/tradePlatforms/live`, { headers });
    const refused = async (res: Response, status: number, message: RegExp) => {
      expect(res.status).toBe(status);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      expect((await res.json()).message).toMatch(message);
    };
    await refused(await live(), 401, /^Sign-in required/);

    const tokens = await tokenFactory(t.ctx);
    const bob = newPerson("Bob");
    const bobOrg = await signUp(t, tokens, bob);
    const bobToken = await tokens.mint(bob);
    await refused(await live(apiHeaders(bobToken)), 400, /OrganizationId header/);
    // An organization Bob is not in.
    const otherOrg = await signUp(t, tokens, newPerson("Olga"));
    await refused(await live(apiHeaders(bobToken, otherOrg)), 404, /^You are not a member of this organization$/);

    // Members of Bob's organization: one with no claim, one with tradePlatforms:write but not read, one with read.
    const nothing = newPerson("Nadia");
    const writeOnly = newPerson("Wanda");
    const reader = newPerson("Rita");
    await addMember(t.ctx, bobOrg, nothing, { [moduleClaimType("members", bobOrg)]: "read" });
    await addMember(t.ctx, bobOrg, writeOnly, { [moduleClaimType("tradePlatforms", bobOrg)]: "write" });
    await addMember(t.ctx, bobOrg, reader, { [moduleClaimType("tradePlatforms", bobOrg)]: "read" });
    const needsRead = /^You need the "read" permission on the "tradePlatforms" module in this organization/;
    await refused(await live(apiHeaders(await tokens.mint(nothing), bobOrg)), 403, needsRead);
    await refused(await live(apiHeaders(await tokens.mint(writeOnly), bobOrg)), 403, needsRead);

    // The reader is let in: the refusals above were about the permission, not the member.
    const controller = new AbortController();
    const res = await fetch(`${base}/api/tradePlatforms/live`, { headers: apiHeaders(await tokens.mint(reader), bobOrg), signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    controller.abort();
    await res.body?.cancel().catch(() => undefined);
  });

  it("ends open streams when the app closes, so closing never hangs", async () => {
    const other = await startPlatformsApp();
    try {
      const otherBase = await other.app.listen({ port: 0, host: "127.0.0.1" });
      const tokens = await tokenFactory(other.ctx);
      const cy = newPerson("Cy");
      const org = await signUp(other, tokens, cy);
      const res = await fetch(`${otherBase}/api/tradePlatforms/live`, { headers: apiHeaders(await tokens.mint(cy), org) });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      await reader.read();
      const started = Date.now();
      await other.close();
      expect(Date.now() - started).toBeLessThan(3_000);
      // The stream ends instead of hanging.
      for (;;) if ((await reader.read()).done) break;
    } finally {
      await other.close().catch(() => undefined);
      await other.drop();
    }
  });
});

describeDb("platforms across restarts", () => {
  let database: TestDatabase;
  let dataDir: string;
  beforeAll(async () => {
    database = await openTestDatabase();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "toolbox-platforms-"));
  });
  afterAll(async () => {
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("persists platforms and reconnects them when the app starts again on the same database", async () => {
    // No SECRETS_KEY: the key is generated into DATA_DIR once and found again.
    const env = { SECRETS_KEY: "", DATA_DIR: dataDir };
    const first = await startPlatformsApp({ database, env });
    const tokens = await tokenFactory(first.ctx);
    const ada = newPerson("Ada");
    const org = await signUp(first, tokens, ada);
    const headers = apiHeaders(await tokens.mint(ada), org);
    const create = async (body: Record<string, unknown>) => {
      const res = await first.call({ method: "POST", url: "/api/tradePlatforms", headers, payload: body });
      expect(res.statusCode, res.body).toBe(201);
      return res.json();
    };
    const plain = await create({ type: "MT5", name: "Kept", timeZone: "UTC", connection: { kind: "simulated", accounts: 12, tradeRate: 0 } });
    const secret = await create({
      type: "MT4",
      name: "Kept with manager",
      timeZone: "UTC",
      connection: { kind: "simulated", accounts: 12, tradeRate: 0, login: "1000", password: "Manager1" },
    });
    const off = await create({ type: "MatchTrader", name: "Kept off", timeZone: "UTC", connection: { kind: "simulated", accounts: 12, tradeRate: 0 } });
    await first.call({ method: "PATCH", url: `/api/tradePlatforms/${off.id}`, headers, payload: { enable: false } });
    for (const p of [plain, secret]) await waitFor(async () => first.app.platforms.state(p.id).state === "connected", "first start connected");

    const keyFile = path.join(dataDir, "secrets.key");
    expect(fs.existsSync(keyFile)).toBe(true);
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    if (testDbKind() === "postgres") expect(first.logs.join("\n")).toMatch(/multi-node deployment must set SECRETS_KEY/);
    await first.close();

    const second = await startPlatformsApp({ database, env });
    try {
      for (const p of [plain, secret]) {
        await waitFor(async () => second.app.platforms.state(p.id).state === "connected", `${p.name} reconnected after restart`);
      }
      expect(second.app.platforms.state(off.id)).toEqual({ state: "disconnected", lastError: null });
      const connector = await second.app.platforms.connectorFor(org, secret.id);
      expect((await connector.listAccounts({ limit: 100 })).items).toHaveLength(12);
      for (const line of [...first.logs, ...second.logs, ...first.bodies]) expect(line).not.toContain("Manager1");
    } finally {
      await second.close();
    }

    // Another key cannot read the stored password: that platform says so, the others still connect.
    // (With another key the embedded identity provider refuses to start — its keys are encrypted
    // under SECRETS_KEY too, tests/api/secretsAtRest.test.ts — so this node uses an external one.)
    const external = { OIDC_AUTHORITY: "https://login.example.test/realms/toolbox", OIDC_CLIENT_ID: "toolbox", OIDC_AUDIENCE: "toolbox.api" };
    const third = await startPlatformsApp({ database, env: { SECRETS_KEY: Buffer.alloc(32, 9).toString("base64"), DATA_DIR: dataDir, ...external } });
    try {
      await waitFor(async () => third.app.platforms.state(plain.id).state === "connected", "plain platform connected");
      expect(third.app.platforms.state(secret.id)).toEqual({
        state: "failed",
        lastError: "Its stored password or API key cannot be decrypted with this server's SECRETS_KEY. Enter it again in the connection settings.",
      });
      await expect(third.app.platforms.connectorFor(org, secret.id)).rejects.toMatchObject({ kind: "unavailable" });
    } finally {
      await third.close();
    }
  });

  it("gives the demo organization one simulated server of each type, once, and they connect", async () => {
    const demoDatabase = await openTestDatabase();
    try {
      const app = await startPlatformsApp({ database: demoDatabase });
      await seedDemo(app.ctx, { log: () => {} });
      await seedDemo(app.ctx, { log: () => {} });
      await app.close();

      const started = await startPlatformsApp({ database: demoDatabase });
      try {
        const org = theOnly(await demoDatabase.db.select().from(organizations).where(eq(organizations.name, DEMO_ORGANIZATION)));
        const rows = await demoDatabase.db.select().from(tradePlatforms).where(eq(tradePlatforms.organizationId, org.id));
        expect(rows.map((r) => [r.name, r.type]).sort()).toEqual([
          ["Demo MT4", "MT4"],
          ["Demo MT5", "MT5"],
          ["Demo Match-Trader", "MatchTrader"],
        ]);
        for (const row of rows) {
          expect(row.connection).toMatchObject({ kind: "simulated", accounts: 300, tradeRate: 3 });
          await waitFor(async () => started.app.platforms.state(row.id).state === "connected", `${row.name} connected`);
        }
        const connector = await started.app.platforms.connectorFor(org.id, rows[0]!.id);
        const page = await connector.listAccounts({ limit: 1000 });
        expect(page.items).toHaveLength(300);
      } finally {
        await started.close();
      }
    } finally {
      await demoDatabase.drop();
    }
  });
});

describeDb("platform runtime start", () => {
  it("does not wait for connections: a hung server delays only itself", async () => {
    const database = await openTestDatabase();
    // Each simulated server is created by the runtime when it first connects; the one named here
    // is made to answer nothing for a minute from its very first request.
    // (The hung one is the MT5 platform: the others are MT4 and Match-Trader.)
    let hanging = false;
    // eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be called with the server's `this` (start.call below)
    const start = SimulatedServer.prototype.start;
    const spy = vi.spyOn(SimulatedServer.prototype, "start").mockImplementation(function (this: SimulatedServer) {
      if (hanging && this.platform === "MT5") this.faults.slowAnswers(60_000);
      start.call(this);
    });
    // Connection attempts may take long (longer than this test may run): only not waiting for them keeps the start short.
    const runtime = { ...FAST_RUNTIME, manager: { ...FAST_RUNTIME.manager, connectTimeoutMs: 120_000 } };
    try {
      const first = await startPlatformsApp({ database, runtime });
      const tokens = await tokenFactory(first.ctx);
      const ada = newPerson("Ada");
      const org = await signUp(first, tokens, ada);
      const headers = apiHeaders(await tokens.mint(ada), org);
      const create = async (name: string, type: string) => {
        const res = await first.call({
          method: "POST",
          url: "/api/tradePlatforms",
          headers,
          payload: { type, name, timeZone: "UTC", connection: { kind: "simulated", accounts: 5, tradeRate: 0 } },
        });
        expect(res.statusCode, res.body).toBe(201);
        return res.json<{ id: string }>();
      };
      const hung = await create("Hung", "MT5");
      const fast = await create("Fast", "MT4");
      await waitFor(async () => first.app.platforms.state(fast.id).state === "connected", "fast connected");
      await first.close();

      // At start, the hung server's platform is still connecting when the app is ready, and the other one connects meanwhile.
      hanging = true;
      const second = await startPlatformsApp({ database, runtime });
      try {
        await waitFor(async () => spy.mock.contexts.some((server) => (server as SimulatedServer).platform === "MT5"), "the hung server started");
        expect(second.app.platforms.state(hung.id).state).toBe("connecting");
        await waitFor(async () => second.app.platforms.state(fast.id).state === "connected", "fast connected after the start");
        expect(second.app.platforms.state(hung.id).state).toBe("connecting");

        // A platform created while that one hangs connects at once too.
        const started = Date.now();
        const headersNow = apiHeaders(await tokens.mint(ada), org);
        const later = (
          await second.call({
            method: "POST",
            url: "/api/tradePlatforms",
            headers: headersNow,
            payload: { type: "MatchTrader", name: "Later", timeZone: "UTC", connection: { kind: "simulated", accounts: 5, tradeRate: 0 } },
          })
        ).json();
        await waitFor(async () => second.app.platforms.state(later.id).state === "connected", "later connected");
        expect(Date.now() - started).toBeLessThan(2_000);
        expect(second.app.platforms.state(hung.id).state).toBe("connecting");
      } finally {
        second.app.platforms.simulatedServer(hung.id)?.faults.restore();
        await second.close();
      }
    } finally {
      spy.mockRestore();
      await database.drop();
    }
  });
});
