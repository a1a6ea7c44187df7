/**
 * Dealing on a real server (docs/dealing.md "Real servers"), through the app, the scheduler and
 * the MT5 Web API connector against the local protocol server: two nodes tick at the same instant
 * and the profile in force is written once (each changed symbol audited once, with before/after,
 * in the platform's configuration history); the page's view says what the platform type cannot
 * take and how the last write ended; the end of the profile writes every symbol back exactly; a
 * write the server fails is reported (audited once, nothing written) and tried again a minute on.
 */
import { and, eq, like } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { DealingView } from "../../core/dealing/index.ts";
import { DEFAULT_MANAGER, SimulatedServer } from "../../server/connectors/simulated/server.ts";
import { auditEvents } from "../../server/db/schema.ts";
import { selfSignedCertificate, type TestCertificate } from "../../server/protocolServers/certificates.ts";
import { Mt5WebApiServer } from "../../server/protocolServers/mt5WebApi/server.ts";
import { DealingScheduler, dealingSchedulerDepsOf, dealingSchedulerOf } from "../../server/modules/dealing/scheduler.ts";
import { describeDb } from "../helpers/db.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { startPlatformsApp, type PlatformsApp } from "./platformsHarness.ts";
import { signUp } from "./support/fixtures.ts";

const profile = (name: string, extra: object = {}) => ({
  name,
  markups: [],
  maxDeviationPoints: null,
  executionDelayMs: 0,
  maxVolumeLots: null,
  staleQuoteMs: null,
  ...extra,
});
const NEWS = profile("news", {
  markups: [{ kind: "symbol", target: "EURUSD", bidPoints: 10, askPoints: 30 }],
  maxVolumeLots: 20,
  maxDeviationPoints: 10,
});

describeDb("dealing on a real server: the profile written through the MT5 Web API", () => {
  let t: PlatformsApp;
  let tokens: TokenFactory;
  let tls: TestCertificate;
  let simulated: SimulatedServer;
  let server: Mt5WebApiServer;
  let org: string;
  let token: string;
  let platformId: string;
  const dealer = newPerson("Dealer");

  beforeAll(async () => {
    tls = await selfSignedCertificate();
    simulated = new SimulatedServer({ platform: "MT5", seed: 5, accounts: 5, tradeRate: 0 });
    simulated.start();
    server = new Mt5WebApiServer({ simulated, tls });
    const address = `127.0.0.1:${(await server.listen()).port}`;
    t = await startPlatformsApp({ env: { TRADE_SERVER_ALLOWED_TARGETS: "127.0.0.1" } });
    // The app's own scheduler would write the profile of the real "now": the test's nodes tick at instants of their own.
    await dealingSchedulerOf(t.ctx)?.stop();
    tokens = await tokenFactory(t.ctx);
    org = await signUp(t, tokens, dealer);
    token = await tokens.mint(dealer);
    const created = await call("POST", "/api/tradePlatforms", {
      type: "MT5",
      name: "Broker MT5",
      timeZone: "Europe/Athens",
      connection: { kind: "mt5WebApi", address, login: DEFAULT_MANAGER.login, password: DEFAULT_MANAGER.password, caCertificate: tls.ca },
    });
    expect(created.statusCode, created.body).toBe(201);
    platformId = created.json<{ id: string }>().id;
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await t?.drop();
    await server?.close();
    simulated?.stop();
  });

  const call = (method: "GET" | "PUT" | "POST" | "DELETE", url: string, payload?: object) =>
    t.call({ method, url, headers: apiHeaders(token, org), ...(payload ? { payload } : {}) });
  const symbolAudits = (name: string) =>
    t.ctx.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.organizationId, org), eq(auditEvents.targetType, "serverConfig.symbol"), eq(auditEvents.targetId, `${platformId}/${name}`)));
  const dealingAudits = () =>
    t.ctx.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.organizationId, org), like(auditEvents.action, "dealing.serverWrite.%")));
  const symbols = () => simulated.engine.symbols().map((s) => structuredClone(s));
  const view = async () => (await call("GET", `/api/tradePlatforms/${platformId}/dealing`)).json<DealingView>();
  const node = () => new DealingScheduler(dealingSchedulerDepsOf(t.app));

  it("writes the profile in force once across two nodes, audited per symbol; its end restores every symbol exactly", async () => {
    const initial = symbols();
    const put = await call("PUT", `/api/tradePlatforms/${platformId}/dealing`, { profiles: [profile("normal"), NEWS], defaultProfile: "normal" });
    expect(put.statusCode, put.body).toBe(200);
    // Before any write the view already says what an MT5 server cannot take.
    const before = await view();
    expect(before.serverWrites?.appliedBy).toBe("configuration");
    expect(before.serverWrites?.cannotTake.map((c) => c.setting).sort()).toEqual(["executionDelayMs", "maxDeviationPoints", "staleQuoteMs"]);

    const first = Date.now() + 1_000;
    const [a, b] = [node(), node()];
    await Promise.all([a.tick(first), b.tick(first)]);
    // "normal" was in force: nothing to change.
    expect(symbols()).toEqual(initial);
    expect((await view()).serverWrites?.last).toMatchObject({ profile: "normal", status: "applied", objects: [] });

    const override = await call("POST", `/api/tradePlatforms/${platformId}/dealing/override`, {
      profile: "news",
      until: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(override.statusCode, override.body).toBe(200);
    const during = Date.now() + 2_000;
    await Promise.all([a.tick(during), b.tick(during)]);
    await Promise.all([a.tick(during + 1_000), b.tick(during + 1_000)]);

    const eurusd = initial.find((s) => s.name === "EURUSD")!;
    const now = symbols();
    // Independent: EURUSD's spread +40 points, balance +20 (ask up 30, bid down 10); every forex and metal symbol's maximum at 20 lots.
    expect(now.find((s) => s.name === "EURUSD")).toEqual({ ...eurusd, spread: eurusd.spread + 40, spreadBalance: 20, volumeMax: 200_000 });
    const capped = initial.filter((s) => s.volumeMax > 200_000);
    expect(now).toEqual(
      initial.map((s) => (s.name === "EURUSD" ? now.find((x) => x.name === "EURUSD") : s.volumeMax > 200_000 ? { ...s, volumeMax: 200_000 } : s)),
    );

    // Once: one audit record per changed symbol, the diff of its fields.
    const eurusdAudits = await symbolAudits("EURUSD");
    expect(eurusdAudits).toHaveLength(1);
    expect(eurusdAudits[0]).toMatchObject({
      action: "dealing.symbolWritten",
      actorSub: "system:dealing-schedule",
      before: { spread: eurusd.spread, spreadBalance: 0, volumeMax: 1_000_000 },
      after: { spread: eurusd.spread + 40, spreadBalance: 20, volumeMax: 200_000 },
    });
    for (const s of capped.filter((s) => s.name !== "EURUSD"))
      expect((await symbolAudits(s.name)).map((r) => [r.before, r.after])).toEqual([[{ volumeMax: s.volumeMax }, { volumeMax: 200_000 }]]);
    const written = (await view()).serverWrites!.last!;
    expect(written).toMatchObject({ profile: "news", status: "applied" });
    expect(written.objects).toHaveLength(capped.length);
    expect(written.notTaken.map((n) => n.setting)).toEqual(["maxDeviationPoints"]);
    // The platform's configuration history shows it, with its revert.
    const history = await call("GET", `/api/tradePlatforms/${platformId}/config/history?kind=symbol&name=EURUSD`);
    expect(history.json<{ entries: { actorName: string; revert: unknown }[] }>().entries).toEqual([
      expect.objectContaining({ actorName: "Dealing schedule", revert: { spread: eurusd.spread, spreadBalance: 0, volumeMax: 1_000_000 } }),
    ]);

    expect((await call("DELETE", `/api/tradePlatforms/${platformId}/dealing/override`)).statusCode).toBe(200);
    const after = Date.now() + 2_000;
    await Promise.all([a.tick(after), b.tick(after)]);
    expect(symbols()).toEqual(initial);
    expect(await symbolAudits("EURUSD")).toHaveLength(2);
    expect((await view()).serverWrites?.last).toMatchObject({ profile: "normal", status: "applied" });
  });

  it("a write the server fails is reported, audited once, nothing written, and tried again a minute on", async () => {
    const initial = symbols();
    const override = await call("POST", `/api/tradePlatforms/${platformId}/dealing/override`, {
      profile: "news",
      until: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(override.statusCode, override.body).toBe(200);
    // The server refuses the next change it is sent (the first symbol's write).
    simulated.faults.rejectNext(1);
    const at = Date.now() + 2_000;
    const a = node();
    await a.tick(at);
    expect(symbols()).toEqual(initial);
    const last = (await view()).serverWrites!.last!;
    expect(last).toMatchObject({ profile: "news", status: "failed", objects: [] });
    expect(last.message).toMatch(/^EURUSD: The trading server rejected the request\. Try again later\. Nothing was written\.$/);
    expect(await dealingAudits()).toHaveLength(1);
    // Within the minute: not tried again.
    await a.tick(at + 30_000);
    expect(symbols()).toEqual(initial);
    // A minute on: written.
    await a.tick(at + 61_000);
    expect(symbols().find((s) => s.name === "EURUSD")!.spreadBalance).toBe(20);
    expect((await view()).serverWrites?.last).toMatchObject({ profile: "news", status: "applied" });
    expect(await dealingAudits()).toHaveLength(1);
  });
});
