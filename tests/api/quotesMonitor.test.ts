/**
 * The Quotes Monitor through the API (docs/quotes-monitor.md), on both databases: who may read and
 * change it, one organization never seeing another's, the alert rules' validation, and a simulated
 * server's symbols followed live: a stopped EURUSD feed raises a stale-feed alert to the inbox and
 * clears when it resumes, and a weekend on the server's clock shows closed markets, not stale ones.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { moduleClaimType } from "../../core/access.ts";
import { systemClock, type Clock } from "../../server/connectors/clock.ts";
import type { QuoteFrame, QuoteRow } from "../../core/schemas/quotesMonitor.ts";
import { describeDb } from "../helpers/db.ts";
import { apiHeaders, newPerson, tokenFactory, type Person, type TokenFactory } from "../helpers/tokens.ts";
import { addMember, rowCounts, signUp } from "./support/fixtures.ts";
import { startPlatformsApp, waitFor, type PlatformsApp } from "./platformsHarness.ts";

const RULES = "/api/quotesMonitor/alert-rules";
/** The monitor's clock: real time plus what the test moves it on by (never back). */
let movedOnMs = 0;
const monitorClock: Clock = { ...systemClock, now: () => Date.now() + movedOnMs };

const stale = (extra: Record<string, unknown> = {}) => ({ kind: "staleFeed", name: "Stale feed", staleSeconds: 2, cooldownSeconds: 0, ...extra });

describeDb("Quotes Monitor API", () => {
  let t: PlatformsApp;
  let tokens: TokenFactory;
  let ada: Person;
  let adaOrg: string;
  let adaToken: string;
  let eve: Person;
  let eveOrg: string;
  let eveToken: string;

  beforeAll(async () => {
    // Judged five times a second, assignments read again every 300 ms, servers' clocks every second:
    // the test waits for what a dealer would see.
    t = await startPlatformsApp({ quotesMonitor: { evaluateEveryMs: 200, refreshEveryMs: 300, serverTimeEveryMs: 1_000, clock: monitorClock } });
    tokens = await tokenFactory(t.ctx);
  });
  beforeEach(async () => {
    ada = newPerson("Ada");
    eve = newPerson("Eve");
    adaOrg = await signUp(t, tokens, ada);
    eveOrg = await signUp(t, tokens, eve);
    adaToken = await tokens.mint(ada);
    eveToken = await tokens.mint(eve);
  });
  afterAll(async () => {
    await t?.close();
    await t?.drop();
  });

  const as = (token: string, org: string) => ({
    get: (url: string) => t.call({ method: "GET", url, headers: apiHeaders(token, org) }),
    post: (url: string, payload: unknown) => t.call({ method: "POST", url, payload: payload as object, headers: apiHeaders(token, org) }),
    put: (url: string, payload: unknown) => t.call({ method: "PUT", url, payload: payload as object, headers: apiHeaders(token, org) }),
    delete: (url: string) => t.call({ method: "DELETE", url, headers: apiHeaders(token, org) }),
  });
  const adaApi = () => as(adaToken, adaOrg);
  const eveApi = () => as(eveToken, eveOrg);

  async function platform(api: ReturnType<typeof as>, name: string) {
    const res = await api.post("/api/tradePlatforms", {
      type: "MT5",
      name,
      timeZone: "UTC",
      connection: { kind: "simulated", accounts: 5, tradeRate: 0, seed: 3 },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  }

  describe("permissions", () => {
    it("reads with quotesMonitor:read, changes rules only with quotesMonitor:write, nothing without them", async () => {
      const bob = newPerson("Bob");
      const cy = newPerson("Cy");
      const dee = newPerson("Dee");
      await addMember(t.ctx, adaOrg, bob);
      await addMember(t.ctx, adaOrg, cy, { [moduleClaimType("quotesMonitor", adaOrg)]: "read" });
      await addMember(t.ctx, adaOrg, dee, { [moduleClaimType("quotesMonitor", adaOrg)]: "read,write" });
      const bobApi = as(await tokens.mint(bob), adaOrg);
      const cyApi = as(await tokens.mint(cy), adaOrg);
      const deeApi = as(await tokens.mint(dee), adaOrg);

      for (const url of [RULES, "/api/quotesMonitor/platforms", "/api/quotesMonitor/rows"]) {
        expect((await bobApi.get(url)).statusCode, url).toBe(403);
        expect((await cyApi.get(url)).statusCode, url).toBe(200);
      }
      expect((await bobApi.post(RULES, stale())).statusCode).toBe(403);
      expect((await cyApi.post(RULES, stale())).statusCode).toBe(403);
      const created = await deeApi.post(RULES, stale());
      expect(created.statusCode, created.body).toBe(201);
      const id = created.json().id as string;
      expect((await cyApi.put(`${RULES}/${id}`, stale({ staleSeconds: 9 }))).statusCode).toBe(403);
      expect((await cyApi.delete(`${RULES}/${id}`)).statusCode).toBe(403);
      expect((await deeApi.put(`${RULES}/${id}`, stale({ staleSeconds: 9 }))).json()).toMatchObject({ id, staleSeconds: 9 });
      expect((await deeApi.delete(`${RULES}/${id}`)).statusCode).toBe(204);
      expect((await cyApi.get(RULES)).json()).toEqual([]);
    });
  });

  describe("tenant isolation", () => {
    it("never shows or changes another organization's rules, and refuses its platforms in a rule", async () => {
      const created = await adaApi().post(RULES, stale());
      const id = created.json().id as string;
      const evePlatform = await platform(eveApi(), "Eve's MT5");
      expect((await eveApi().get(RULES)).json()).toEqual([]);
      expect((await eveApi().put(`${RULES}/${id}`, stale({ name: "mine now" }))).statusCode).toBe(404);
      expect((await eveApi().delete(`${RULES}/${id}`)).statusCode).toBe(404);
      expect((await adaApi().get(RULES)).json()).toMatchObject([{ id, name: "Stale feed" }]);
      const foreign = await adaApi().post(RULES, stale({ name: "Foreign", platformIds: [evePlatform] }));
      expect(foreign.statusCode).toBe(400);
      expect(foreign.json().message).toMatch(/this organization's/);
      expect((await eveApi().get(`/api/quotesMonitor/history?platformId=${evePlatform}&symbol=EURUSD`)).statusCode).not.toBe(200);
      expect((await adaApi().get(`/api/quotesMonitor/history?platformId=${evePlatform}&symbol=EURUSD`)).statusCode).toBe(404);
    });
  });

  describe("alert rules validation", () => {
    it.each([
      ["no kind", { name: "x", staleSeconds: 5 }, /Kind must be stale feed, spread or cross server/],
      ["an unknown kind", { kind: "loud", name: "x" }, /Kind must be stale feed, spread or cross server/],
      ["no name", { kind: "staleFeed", staleSeconds: 5 }, /Name must be text|Give the rule a name/],
      ["a blank name", stale({ name: "  " }), /Give the rule a name/],
      ["no staleSeconds", { kind: "staleFeed", name: "x" }, /Stale seconds must be a number/],
      ["staleSeconds 0", stale({ staleSeconds: 0 }), /Stale seconds is at least 1/],
      ["fractional staleSeconds", stale({ staleSeconds: 1.5 }), /whole number of seconds/],
      ["a spread rule with no threshold", { kind: "spread", name: "x" }, /Give spread points, spread times average or both/],
      ["a negative spread", { kind: "spread", name: "x", spreadPoints: -3 }, /Spread points must be more than 0/],
      ["an average factor of 1", { kind: "spread", name: "x", spreadTimesAverage: 1 }, /more than 1/],
      ["a cross-server rule without a difference", { kind: "crossServer", name: "x" }, /Difference points must be a number/],
      ["a severity out of the list", stale({ severity: "loud" }), /Severity must be info, warning or error/],
      ["a cool-down over a day", stale({ cooldownSeconds: 86_401 }), /Cooldown seconds is at most 86400/],
      ["a mask with spaces", stale({ symbolMask: "EUR *" }), /without spaces/],
      ["platforms that are not ids", stale({ platformIds: ["nope"] }), /platform ids/],
      ["an unknown field", stale({ extra: 1 }), /extra|Unrecognized/i],
    ])("refuses %s with a readable 400, writing nothing", async (_what, body, message) => {
      const before = await rowCounts(t.ctx);
      const res = await adaApi().post(RULES, body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().message).toMatch(message);
      expect(await rowCounts(t.ctx)).toEqual(before);
    });

    it("refuses a second rule with the same name (409) and a cross-server rule on one platform", async () => {
      expect((await adaApi().post(RULES, stale())).statusCode).toBe(201);
      const again = await adaApi().post(RULES, stale());
      expect(again.statusCode).toBe(409);
      expect(again.json().message).toMatch(/already exists/);
      const id = await platform(adaApi(), "Only one");
      const one = await adaApi().post(RULES, { kind: "crossServer", name: "Cross", differencePoints: 5, platformIds: [id] });
      expect(one.statusCode).toBe(400);
      expect(one.json().message).toMatch(/at least two platforms/);
      expect((await adaApi().post(RULES, { kind: "spread", name: "Wide", spreadPoints: 40, spreadTimesAverage: 3 })).json()).toMatchObject({
        kind: "spread",
        spreadPoints: 40,
        spreadTimesAverage: 3,
        severity: "warning",
        cooldownSeconds: 300,
        symbolMask: "*",
        platformIds: "all",
        enabled: true,
      });
    });
  });

  describe("live", () => {
    const rowOf = async (platformId: string, symbol: string) => {
      const frame = (await adaApi().get("/api/quotesMonitor/rows")).json<QuoteFrame>();
      return frame.rows.find((r: QuoteRow) => r.platformId === platformId && r.symbol === symbol);
    };
    const inbox = async (type: string) => (await adaApi().get(`/api/inbox?type=${type}`)).json().items as { title: string; body: string }[];

    it("follows a simulated server's symbols; a stopped EURUSD feed is stale and reaches the inbox; it clears when the feed resumes; a weekend shows closed", async () => {
      const id = await platform(adaApi(), "Live MT5");
      expect((await adaApi().put(`/api/tradePlatforms/${id}/apps`, [{ app: "quotesMonitor", enabled: true }])).statusCode).toBe(200);
      const ticking = await waitFor(async () => {
        const row = await rowOf(id, "EURUSD");
        return row && row.ticksPerMinute > 2 && row.bid !== null ? row : undefined;
      }, "EURUSD ticking");
      expect(ticking.ask).toBeGreaterThan(ticking.bid!);
      expect(ticking.spread).toBe(Math.round((ticking.ask! - ticking.bid!) * 10 ** ticking.digits));
      expect(ticking.session).toBe("open");
      expect(ticking.alerts).toEqual([]);
      const history = (await adaApi().get(`/api/quotesMonitor/history?platformId=${id}&symbol=EURUSD`)).json();
      expect(history.length).toBeGreaterThan(0);
      expect(history.reduce((n: number, p: { ticks: number }) => n + p.ticks, 0)).toBeGreaterThan(0);

      expect((await adaApi().post(RULES, stale({ name: "EURUSD silent", symbolMask: "EURUSD", severity: "error" }))).statusCode).toBe(201);
      const stop = await adaApi().post(`/api/tradePlatforms/${id}/simulator/quotes`, { symbol: "EURUSD", stopped: true });
      expect(stop.json()).toMatchObject({ symbol: "EURUSD", stopped: true });
      await waitFor(async () => (await rowOf(id, "EURUSD"))?.alerts.includes("staleFeed"), "EURUSD marked stale");
      const raised = await waitFor(async () => (await inbox("quoteAlert")).at(0), "the alert in the inbox");
      expect(raised.title).toMatch(/EURUSD silent: EURUSD on Live MT5/);
      expect(raised.body).toMatch(/No tick for EURUSD/);
      // Other symbols keep ticking and are not stale.
      expect((await rowOf(id, "GBPUSD"))?.alerts).toEqual([]);

      await adaApi().post(`/api/tradePlatforms/${id}/simulator/quotes`, { symbol: "EURUSD", stopped: false });
      await waitFor(async () => (await rowOf(id, "EURUSD"))?.alerts.length === 0, "EURUSD back to normal");
      await waitFor(async () => (await inbox("quoteAlertCleared")).at(0), "the clearing in the inbox");
      expect(await inbox("quoteAlert")).toHaveLength(1);

      // Saturday on the server: the forex market is closed, its silence is no alert.
      await adaApi().post(`/api/tradePlatforms/${id}/simulator/quotes`, { serverClock: "2026-11-28T12:00:00Z" });
      await waitFor(async () => (await rowOf(id, "EURUSD"))?.session === "closed", "EURUSD closed on Saturday");
      expect((await rowOf(id, "BTCUSD"))?.session).toBe("open");
      // A minute passes on the monitor's clock, and it judges at once: an open market's feed silent
      // that long would be stale (the rule says 2 s); the closed one is not. All in one turn of the
      // event loop, so no tick and no timer comes between.
      movedOnMs += 60_000;
      t.app.quotesMonitor.evaluate();
      const judged = t.app.quotesMonitor.rowsOf(adaOrg).find((r) => r.platformId === id && r.symbol === "EURUSD");
      expect(judged).toMatchObject({ session: "closed", alerts: [] });
      expect((await rowOf(id, "EURUSD"))?.alerts).toEqual([]);
      expect(await inbox("quoteAlert")).toHaveLength(1);
      await adaApi().post(`/api/tradePlatforms/${id}/simulator/quotes`, { restore: true });
    });

    it("refuses a symbol the simulated server does not have and a feed change without a symbol", async () => {
      const id = await platform(adaApi(), "Faults MT5");
      // A new platform's simulated server starts on the node that takes its host lease: until then the route says 404.
      let unknown = await adaApi().post(`/api/tradePlatforms/${id}/simulator/quotes`, { symbol: "NOPE", stopped: true });
      await vi.waitFor(
        async () => {
          unknown = await adaApi().post(`/api/tradePlatforms/${id}/simulator/quotes`, { symbol: "NOPE", stopped: true });
          expect(unknown.statusCode).toBe(400);
        },
        { timeout: 15_000, interval: 100 },
      );
      expect(unknown.json().message).toMatch(/no symbol NOPE/);
      const nameless = await adaApi().post(`/api/tradePlatforms/${id}/simulator/quotes`, { stopped: true });
      expect(nameless.statusCode).toBe(400);
      expect(nameless.json().message).toMatch(/Name the symbol/);
      expect((await eveApi().post(`/api/tradePlatforms/${id}/simulator/quotes`, { symbol: "EURUSD", stopped: true })).statusCode).toBe(404);
    });
  });
});
