/**
 * The Quotes Monitor's comparison, symbol map and holidays through the API
 * (docs/quotes-monitor.md#comparison, #holidays), on both databases: who may read and change them,
 * one organization never seeing another's, validation, the difference in points checked against
 * the test's own arithmetic from the quotes, explicit pairs regrouping symbols, a cross-server
 * rule's threshold, and a stored holiday shown as holiday (not stale) on a moved server clock.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { moduleClaimType } from "../../core/access.ts";
import type { ComparisonFrame, ComparisonRow } from "../../core/schemas/quoteComparison.ts";
import type { QuoteFrame } from "../../core/schemas/quotesMonitor.ts";
import { systemClock, type Clock } from "../../server/connectors/clock.ts";
import { describeDb } from "../helpers/db.ts";
import { apiHeaders, newPerson, tokenFactory, type Person, type TokenFactory } from "../helpers/tokens.ts";
import { addMember, rowCounts, signUp } from "./support/fixtures.ts";
import { startPlatformsApp, waitFor, type PlatformsApp } from "./platformsHarness.ts";

const MAP = "/api/quotesMonitor/symbol-map";
const HOLIDAYS = "/api/quotesMonitor/holidays";
const COMPARISON = "/api/quotesMonitor/comparison";

let movedOnMs = 0;
const monitorClock: Clock = { ...systemClock, now: () => Date.now() + movedOnMs };

/** The test's own arithmetic: highest mid minus lowest mid of the open quotes, one per platform, in points of the fewest digits. */
function expectedPoints(row: ComparisonRow): number | null {
  const open = row.quotes.filter((q) => q.session === "open" && q.bid !== null && q.ask !== null && q.symbol.toUpperCase() === row.instrument);
  if (open.length < 2) return null;
  const mids = open.map((q) => (q.bid! + q.ask!) / 2);
  const digits = Math.min(...open.map((q) => q.digits));
  return Math.round((Math.max(...mids) - Math.min(...mids)) * 10 ** digits);
}

describeDb("Quotes Monitor comparison, symbol map and holidays API", () => {
  let t: PlatformsApp;
  let tokens: TokenFactory;
  let ada: Person;
  let adaOrg: string;
  let adaToken: string;
  let eveOrg: string;
  let eveToken: string;

  beforeAll(async () => {
    t = await startPlatformsApp({ quotesMonitor: { evaluateEveryMs: 200, refreshEveryMs: 300, serverTimeEveryMs: 1_000, clock: monitorClock } });
    tokens = await tokenFactory(t.ctx);
  });
  beforeEach(async () => {
    ada = newPerson("Ada");
    const eve = newPerson("Eve");
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
  });
  const adaApi = () => as(adaToken, adaOrg);
  const eveApi = () => as(eveToken, eveOrg);

  async function monitoredPlatform(api: ReturnType<typeof as>, name: string, seed: number) {
    const res = await api.post("/api/tradePlatforms", {
      type: "MT5",
      name,
      timeZone: "UTC",
      connection: { kind: "simulated", accounts: 3, tradeRate: 0, seed },
    });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().id as string;
    expect((await api.put(`/api/tradePlatforms/${id}/apps`, [{ app: "quotesMonitor", enabled: true }])).statusCode).toBe(200);
    return id;
  }
  const comparison = async (api = adaApi()) => (await api.get(COMPARISON)).json<ComparisonFrame>();
  const instrument = async (name: string, api = adaApi()) => (await comparison(api)).rows.find((r) => r.instrument === name);

  describe("permissions", () => {
    it("reads with quotesMonitor:read, changes the map and holidays only with quotesMonitor:write, nothing without them", async () => {
      const bob = newPerson("Bob");
      const cy = newPerson("Cy");
      const dee = newPerson("Dee");
      await addMember(t.ctx, adaOrg, bob);
      await addMember(t.ctx, adaOrg, cy, { [moduleClaimType("quotesMonitor", adaOrg)]: "read" });
      await addMember(t.ctx, adaOrg, dee, { [moduleClaimType("quotesMonitor", adaOrg)]: "read,write" });
      const bobApi = as(await tokens.mint(bob), adaOrg);
      const cyApi = as(await tokens.mint(cy), adaOrg);
      const deeApi = as(await tokens.mint(dee), adaOrg);
      for (const url of [COMPARISON, MAP, HOLIDAYS]) {
        expect((await bobApi.get(url)).statusCode, url).toBe(403);
        expect((await cyApi.get(url)).statusCode, url).toBe(200);
      }
      const map = { suffixes: ["m"] };
      const holidays = { holidays: [{ date: "2026-12-25", name: "Christmas" }] };
      expect((await bobApi.put(MAP, map)).statusCode).toBe(403);
      expect((await cyApi.put(MAP, map)).statusCode).toBe(403);
      expect((await cyApi.put(HOLIDAYS, holidays)).statusCode).toBe(403);
      expect((await cyApi.get(MAP)).json()).toEqual({ prefixes: [], suffixes: [], stripAfterSeparator: true, pairs: [] });
      expect((await deeApi.put(MAP, map)).json()).toEqual({ prefixes: [], suffixes: ["m"], stripAfterSeparator: true, pairs: [] });
      expect((await deeApi.put(HOLIDAYS, holidays)).json()).toEqual({ holidays: [{ date: "2026-12-25", name: "Christmas", symbolMask: "*" }] });
      expect((await cyApi.get(MAP)).json().suffixes).toEqual(["m"]);
      expect((await cyApi.get(HOLIDAYS)).json().holidays).toHaveLength(1);
      const audit = (await adaApi().get("/api/logs/audit?limit=20")).json();
      const actions = JSON.stringify(audit);
      expect(actions).toContain("quoteSymbolMap.updated");
      expect(actions).toContain("quoteHolidays.updated");
    });
  });

  describe("validation", () => {
    it.each([
      [
        "a pair without a platform id",
        MAP,
        { pairs: [{ platformId: "nope", symbol: "EURUSD", instrument: "EURUSD" }] },
        /Platform ID \(item 1\) must be a platform id/,
      ],
      [
        "a pair with an empty instrument",
        MAP,
        { pairs: [{ platformId: "7d0b3f8e-8c51-4a55-9a43-2d0c6f0b8b11", symbol: "EURUSD", instrument: " " }] },
        /Instrument \(item 1\) must not be empty/,
      ],
      [
        "the same symbol paired twice",
        MAP,
        {
          pairs: [
            { platformId: "7d0b3f8e-8c51-4a55-9a43-2d0c6f0b8b11", symbol: "EURUSD", instrument: "A" },
            { platformId: "7d0b3f8e-8c51-4a55-9a43-2d0c6f0b8b11", symbol: "EURUSD", instrument: "B" },
          ],
        },
        /paired once/,
      ],
      ["a suffix that is not text", MAP, { suffixes: [3] }, /prefix or suffix must be text/],
      ["an unknown field in the map", MAP, { prefix: "#" }, /prefix|Unrecognized/i],
      ["no holidays list", HOLIDAYS, {}, /Holidays must be a list/],
      ["a date that is not a date", HOLIDAYS, { holidays: [{ date: "25.12.2026", name: "x" }] }, /Date \(item 1\) must be a date such as 2026-12-25/],
      ["a date not on the calendar", HOLIDAYS, { holidays: [{ date: "2026-02-30", name: "x" }] }, /real calendar date/],
      ["a holiday without a name", HOLIDAYS, { holidays: [{ date: "2026-12-25", name: "" }] }, /Give the holiday a name/],
      ["a mask with spaces", HOLIDAYS, { holidays: [{ date: "2026-12-25", name: "x", symbolMask: "US 30" }] }, /without spaces/],
      [
        "a date twice for one mask",
        HOLIDAYS,
        {
          holidays: [
            { date: "2026-12-25", name: "a" },
            { date: "2026-12-25", name: "b" },
          ],
        },
        /listed once/,
      ],
    ])("refuses %s with a readable 400, writing nothing", async (_what, url, body, message) => {
      const before = await rowCounts(t.ctx);
      const res = await adaApi().put(url, body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().message).toMatch(message);
      expect(await rowCounts(t.ctx)).toEqual(before);
    });
  });

  describe("tenant isolation", () => {
    it("never pairs or compares another organization's platforms, nor shows its map", async () => {
      const evePlatform = await monitoredPlatform(eveApi(), "Eve's MT5", 5);
      // Eve's new platform fills its accounts and trade history in the background: those mirrors
      // are not the refused request's writes, so they are left out of the comparison.
      const requestWrites = async () =>
        Object.fromEntries(
          Object.entries(await rowCounts(t.ctx)).filter(
            ([table]) => !/^(trading_accounts|trade_positions|trade_deals|trade_orders|trade_history_sync)$/.test(table),
          ),
        );
      const before = await requestWrites();
      const foreign = await adaApi().put(MAP, { pairs: [{ platformId: evePlatform, symbol: "EURUSD", instrument: "EURUSD" }] });
      expect(foreign.statusCode).toBe(400);
      expect(foreign.json().message).toMatch(/this organization's/);
      expect(await requestWrites()).toEqual(before);
      expect((await eveApi().put(MAP, { suffixes: [".eve"] })).statusCode).toBe(200);
      expect((await adaApi().get(MAP)).json().suffixes).toEqual([]);
      const adaPlatform = await monitoredPlatform(adaApi(), "Ada's MT5", 6);
      // Eve has one platform and Ada one: neither sees an instrument on two, however long they wait for ticks.
      await waitFor(
        async () =>
          (await t.call({ method: "GET", url: "/api/quotesMonitor/rows", headers: apiHeaders(adaToken, adaOrg) }))
            .json<QuoteFrame>()
            .rows.some((r) => r.bid !== null),
        "Ada's ticks",
      );
      expect((await comparison()).rows).toEqual([]);
      expect((await comparison(eveApi())).rows).toEqual([]);
      expect(JSON.stringify(await comparison(eveApi()))).not.toContain(adaPlatform);
    });
  });

  describe("live", () => {
    it("compares two servers' instruments in points, regroups symbols by explicit pairs, takes a cross-server rule's threshold, and shows a holiday as holiday", async () => {
      const a = await monitoredPlatform(adaApi(), "Server A", 11);
      const b = await monitoredPlatform(adaApi(), "Server B", 12);
      const eurusd = await waitFor(
        async () => {
          const row = await instrument("EURUSD");
          return row && row.differencePoints !== null && row.quotes.length === 2 ? row : undefined;
        },
        "EURUSD on both servers",
        20_000,
      );
      expect(eurusd.quotes.map((q) => q.platformId).sort()).toEqual([a, b].sort());
      expect(eurusd.differencePoints).toBe(expectedPoints(eurusd));
      const high = eurusd.quotes.find((q) => q.platformId === eurusd.highPlatformId)!;
      const low = eurusd.quotes.find((q) => q.platformId === eurusd.lowPlatformId)!;
      expect((high.bid! + high.ask!) / 2).toBeGreaterThanOrEqual((low.bid! + low.ask!) / 2);
      expect(eurusd.threshold).toBeNull();
      // Every instrument's figure, not just one.
      for (const row of (await comparison()).rows) expect(row.differencePoints, row.instrument).toBe(expectedPoints(row));

      // Explicit pairs: both servers' XAUUSD is GOLD; only A's XAGUSD is SILVER (so silver is on one server each way: no row).
      const pairs = [
        { platformId: a, symbol: "XAUUSD", instrument: "GOLD" },
        { platformId: b, symbol: "XAUUSD", instrument: "gold" },
        { platformId: a, symbol: "XAGUSD", instrument: "SILVER" },
      ];
      expect((await adaApi().put(MAP, { pairs })).statusCode).toBe(200);
      const rows = (await comparison()).rows;
      expect(rows.map((r) => r.instrument)).toContain("GOLD");
      expect(rows.map((r) => r.instrument)).not.toContain("XAUUSD");
      expect(rows.map((r) => r.instrument)).not.toContain("XAGUSD");
      expect(rows.map((r) => r.instrument)).not.toContain("SILVER");
      expect(rows.find((r) => r.instrument === "GOLD")!.quotes.map((q) => q.symbol)).toEqual(["XAUUSD", "XAUUSD"]);

      // The cross-server rules' threshold: the lowest of the enabled ones that cover the instrument.
      const rule = (body: object) => adaApi().post("/api/quotesMonitor/alert-rules", { kind: "crossServer", cooldownSeconds: 0, ...body });
      expect((await rule({ name: "Wide", differencePoints: 900_000 })).statusCode).toBe(201);
      expect((await rule({ name: "Forex", differencePoints: 800_000, symbolMask: "EUR*,GBP*" })).statusCode).toBe(201);
      expect((await rule({ name: "Off", differencePoints: 5, enabled: false })).statusCode).toBe(201);
      await waitFor(async () => (await instrument("EURUSD"))?.threshold === 800_000, "EURUSD's threshold from the Forex rule");
      expect((await instrument("US30"))?.threshold).toBe(900_000);

      // Christmas on both servers' clocks, a holiday for EURUSD only: EURUSD says holiday, GBPUSD open.
      expect((await adaApi().put(HOLIDAYS, { holidays: [{ date: "2026-12-25", name: "Christmas", symbolMask: "EURUSD" }] })).statusCode).toBe(200);
      for (const id of [a, b]) {
        const moved = await adaApi().post(`/api/tradePlatforms/${id}/simulator/quotes`, { serverClock: "2026-12-25T12:00:00Z" });
        expect(moved.statusCode, moved.body).toBe(200);
      }
      const rowOf = async (symbol: string) =>
        (await adaApi().get("/api/quotesMonitor/rows")).json<QuoteFrame>().rows.find((r) => r.platformId === a && r.symbol === symbol);
      await waitFor(async () => (await rowOf("EURUSD"))?.session === "holiday", "EURUSD on holiday");
      expect((await rowOf("GBPUSD"))?.session).toBe("open");
      // A holiday's silence is no stale feed: the simulator still ticks EURUSD (it knows nothing of
      // the organization's holidays), so its feed is stopped; a minute passes on the monitor's clock.
      expect(
        (await adaApi().post("/api/quotesMonitor/alert-rules", { kind: "staleFeed", name: "Stale", staleSeconds: 2, cooldownSeconds: 0 })).statusCode,
      ).toBe(201);
      await t.app.quotesMonitor.refresh();
      await adaApi().post(`/api/tradePlatforms/${a}/simulator/quotes`, { symbol: "EURUSD", stopped: true });
      movedOnMs += 60_000;
      t.app.quotesMonitor.evaluate();
      const judged = t.app.quotesMonitor.rowsOf(adaOrg).filter((r) => r.platformId === a && (r.symbol === "EURUSD" || r.symbol === "USDJPY"));
      expect(judged.find((r) => r.symbol === "EURUSD")).toMatchObject({ session: "holiday", alerts: [] });
      // The same minute on USDJPY, open and ticking, shows the judging would have seen a silence (its ticks arrive on the monitor's old clock).
      expect(judged.find((r) => r.symbol === "USDJPY")?.alerts).toContain("staleFeed");
      // A holiday is not compared either: EURUSD has no difference while A is on holiday.
      await waitFor(async () => (await instrument("EURUSD"))?.differencePoints === null, "EURUSD not compared on A's holiday");
      for (const id of [a, b]) await adaApi().post(`/api/tradePlatforms/${id}/simulator/quotes`, { restore: true });
    }, 60_000);
  });
});
