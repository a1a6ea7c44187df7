/**
 * GET /api/overview against two simulated platforms: its figures are computed again here from the
 * public API (the accounts list, the blotter's deals and positions) and must match; another
 * organization's platforms and deals never count; bad access is refused.
 */
// Databases: PGlite and PostgreSQL (aggregates over the history store).
import crypto from "node:crypto";
import { afterAll, beforeAll, expect, it, onTestFinished } from "vitest";
import { moduleClaimType } from "../../core/access.ts";
import { lotsToVolume } from "../../core/trading/index.ts";
import { accountsMirrorOf } from "../../server/modules/accounts/mirror/plugin.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { addMember, signUp } from "./support/fixtures.ts";
import { waitFor } from "./platformsHarness.ts";

const HOUR = 3_600_000;
const cents = (v: string) => Math.round(Number(v) * 100);
const tenThousandths = (v: string) => Math.round(Number(v) * 10_000);

interface Deal {
  platformId: string;
  time: string;
  action: string;
  volume: string;
  profit: string;
  commission: string;
  swap: string;
}

describeDb("the overview's figures", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  const owner = newPerson("Olive Owner");
  const outsider = newPerson("Oscar Outsider");
  const noPlatforms = newPerson("Nina NoPlatforms");
  let org: string;
  let otherOrg: string;
  const platforms: string[] = [];
  /** A platform without the Trades Blotter app: the store does not record its deals. */
  let unrecorded: string;

  const get = async (url: string, person = owner, organizationId = org) =>
    t.app.inject({ url, headers: apiHeaders(await tokens.mint(person), organizationId) });

  async function connect(person: typeof owner, organizationId: string, name: string, seed: number, blotter = true) {
    const res = await t.app.inject({
      method: "POST",
      url: "/api/tradePlatforms",
      headers: apiHeaders(await tokens.mint(person), organizationId),
      payload: { type: "MT5", name, timeZone: "UTC", connection: { kind: "simulated", accounts: 8, tradeRate: 0, seed } },
    });
    expect(res.statusCode, res.body).toBe(201);
    if (blotter) {
      const assign = await t.app.inject({
        method: "POST",
        url: "/api/tradePlatforms/assign-application",
        headers: apiHeaders(await tokens.mint(person), organizationId),
        payload: { app: "tradesBlotter", platformIds: [res.json().id] },
      });
      expect(assign.statusCode, assign.body).toBe(200);
    }
    await accountsMirrorOf(t.ctx)!.whenSynced(res.json().id, 30_000);
    return res.json().id as string;
  }

  async function allDeals(from: string, to: string): Promise<Deal[]> {
    const deals: Deal[] = [];
    for (let cursor: string | null = null; ;) {
      const res = await get(`/api/tradesBlotter/deals?from=${from}&to=${to}&limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expect(res.statusCode, res.body).toBe(200);
      deals.push(...res.json().items);
      if (!(cursor = res.json().nextCursor)) return deals;
    }
  }

  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
    org = await signUp(t, tokens, owner);
    otherOrg = await signUp(t, tokens, outsider);
    await addMember(t.ctx, org, noPlatforms, { [moduleClaimType("users", org)]: "read" });
    platforms.push(await connect(owner, org, "Alpha MT5", 21), await connect(owner, org, "Beta MT5", 22));
    const other = await connect(outsider, otherOrg, "Other MT5", 23);
    unrecorded = await connect(owner, org, "Gamma MT5", 24, false);

    // Trades today on both platforms (some left open, one closed), a deposit and a withdrawal,
    // and trades on the other organization's platform that must not count.
    for (const [i, platformId] of [...platforms, other].entries()) {
      const organizationId = platformId === other ? otherOrg : org;
      const connector = await t.app.platforms.connectorFor(organizationId, platformId);
      const logins = (await connector.listAccounts({ limit: 3 })).items.map((a) => a.login);
      for (const [j, login] of logins.entries()) {
        await connector.placeOrder({
          requestId: crypto.randomUUID(),
          login,
          symbol: "EURUSD",
          side: j % 2 ? "sell" : "buy",
          volume: lotsToVolume(0.01 * (i + j + 1)),
        });
      }
      const open = await connector.openPositions(logins[0]);
      await connector.closePosition({ requestId: crypto.randomUUID(), positionId: open[0]!.id });
      const person = platformId === other ? outsider : owner;
      for (const [type, amount] of [
        ["deposit", "250.00"],
        ["withdrawal", "40.50"],
        ["creditIn", "75.25"],
        ["creditOut", "20.00"],
      ] as const) {
        const res = await t.app.inject({
          method: "POST",
          url: `/api/accounts/${platformId}/${logins[1]}/balance-operations`,
          headers: { ...apiHeaders(await tokens.mint(person), organizationId), "idempotency-key": crypto.randomUUID() },
          payload: { type, amount },
        });
        expect(res.statusCode, res.body).toBe(201);
      }
    }
    // The store has the new deals (they arrive through the platforms' live streams).
    const dayStart = new Date(Math.floor(Date.now() / (24 * HOUR)) * 24 * HOUR).toISOString();
    await waitFor(
      async () => {
        const deals = await allDeals(dayStart, new Date(Date.now() + HOUR).toISOString());
        return (
          platforms.every(
            (p) =>
              deals.filter((d) => d.platformId === p && d.action === "balance").length >= 2 &&
              deals.filter((d) => d.platformId === p && d.action === "credit").length >= 2,
          ) && deals.length >= 10
        );
      },
      "the deals in the store",
      20_000,
    );
  }, 90_000);
  afterAll(() => t?.close());

  it("matches the accounts, positions and deals it summarises", async () => {
    const res = await get("/api/overview");
    expect(res.statusCode, res.body).toBe(200);
    const overview = res.json();
    const now = Date.parse(overview.asOf);
    const dayStart = overview.dayStart as string;
    expect(Date.parse(dayStart) % (24 * HOUR)).toBe(0);
    expect(now - Date.parse(dayStart)).toBeLessThan(24 * HOUR);
    expect(overview.platforms.map((p: { platformId: string }) => p.platformId).sort()).toEqual([...platforms, unrecorded].sort());
    expect(overview.platforms.find((p: { platformId: string }) => p.platformId === unrecorded)).toMatchObject({
      accounts: 8,
      tradeHistory: false,
      openPositions: null,
      volumeToday: null,
      profitToday: null,
    });

    const weekStart = new Date(Date.parse(dayStart) - 6 * 24 * HOUR).toISOString();
    const deals = await allDeals(weekStart, new Date(now + 1).toISOString());
    const isTrade = (d: Deal) => d.action === "buy" || d.action === "sell";
    for (const platformId of platforms) {
      const figures = overview.platforms.find((p: { platformId: string }) => p.platformId === platformId);
      const accounts = (await get(`/api/accounts?platformId=${platformId}&limit=1`)).json().total;
      const positions = (await get(`/api/tradesBlotter/positions?platformIds=${platformId}&limit=1`)).json().total;
      const today = deals.filter((d) => d.platformId === platformId && d.time >= dayStart);
      const trades = today.filter(isTrade);
      const balances = today.filter((d) => d.action === "balance");
      const credits = today.filter((d) => d.action === "credit");
      expect(figures).toMatchObject({ state: "connected", tradeHistory: true, accounts, openPositions: positions });
      expect(accounts).toBe(8);
      expect(positions).toBeGreaterThan(0);
      expect(tenThousandths(figures.volumeToday)).toBe(trades.reduce((s, d) => s + tenThousandths(d.volume), 0));
      expect(cents(figures.profitToday)).toBe(trades.reduce((s, d) => s + cents(d.profit) + cents(d.commission) + cents(d.swap), 0));
      expect(cents(figures.depositsToday)).toBe(balances.filter((d) => cents(d.profit) > 0).reduce((s, d) => s + cents(d.profit), 0));
      expect(cents(figures.withdrawalsToday)).toBe(-balances.filter((d) => cents(d.profit) < 0).reduce((s, d) => s + cents(d.profit), 0));
      expect(cents(figures.depositsToday)).toBeGreaterThanOrEqual(25_000);
      expect(cents(figures.withdrawalsToday)).toBeGreaterThanOrEqual(4_050);
      // Credit is a money movement of its own: never in the P/L, nor in deposits or withdrawals.
      expect(credits.length).toBeGreaterThanOrEqual(2);
      expect(cents(figures.creditToday)).toBe(credits.reduce((s, d) => s + cents(d.profit), 0));

      // The series: each bucket is the sum of its deals.
      for (const [points, size, since] of [
        [overview.hourly, HOUR, Math.floor(now / HOUR) * HOUR - 23 * HOUR],
        [overview.daily, 24 * HOUR, Date.parse(weekStart)],
      ] as const) {
        const expected = new Map<string, { volume: number; profit: number }>();
        for (const d of deals.filter((d) => d.platformId === platformId && isTrade(d) && Date.parse(d.time) >= since)) {
          const at = new Date(Math.floor(Date.parse(d.time) / size) * size).toISOString();
          const e = expected.get(at) ?? { volume: 0, profit: 0 };
          e.volume += tenThousandths(d.volume);
          e.profit += cents(d.profit) + cents(d.commission) + cents(d.swap);
          expected.set(at, e);
        }
        const got = new Map(
          (points as { platformId: string; at: string; volume: string; profit: string }[])
            .filter((p) => p.platformId === platformId)
            .map((p) => [p.at, { volume: tenThousandths(p.volume), profit: cents(p.profit) }]),
        );
        expect(got).toEqual(expected);
        expect(got.size).toBeGreaterThan(0);
      }
    }
  });

  it("shows only the organization's own platforms, and needs trade platform access", async () => {
    const other = (await get("/api/overview", outsider, otherOrg)).json();
    expect(other.platforms).toHaveLength(1);
    expect(other.hourly.every((p: { platformId: string }) => !platforms.includes(p.platformId))).toBe(true);
    expect((await get("/api/overview", outsider, org)).statusCode).toBe(404);
    expect((await get("/api/overview", noPlatforms, org)).statusCode).toBe(403);
  });

  it("counts its days and hours in the member's zone, else the organization's (decision 0078), as Intl reads them", async () => {
    const headers = async () => ({ ...apiHeaders(await tokens.mint(owner), org), "content-type": "application/json" });
    const send = async (method: "PATCH" | "PUT", url: string, payload: unknown) => {
      const res = await t.app.inject({ method, url, headers: await headers(), payload: payload as object });
      expect(res.statusCode, res.body).toBe(200);
    };
    onTestFinished(async () => {
      await send("PUT", "/api/preferences/display", { value: null });
      await send("PATCH", "/api/organization", { timeZone: "UTC" });
    });
    // India: UTC+05:30, so its days start at 18:30 UTC and its hours at :30.
    const zone = "Asia/Kolkata";
    await send("PATCH", "/api/organization", { timeZone: zone });
    const overview = (await get("/api/overview")).json();
    expect(overview.timeZone).toBe(zone);
    const local = (at: string | number, timeZone = zone) =>
      new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", hourCycle: "h23" })
        .format(new Date(at))
        .replace(",", "");
    const day = (at: string | number) => local(at).slice(0, 10);
    const hour = (at: string | number) => local(at).slice(0, 13);
    const now = Date.parse(overview.asOf);
    expect(local(overview.dayStart)).toBe(`${day(now)} 00:00`);
    expect(day(Date.parse(overview.dayStart) - 1)).not.toBe(day(now));
    for (const p of overview.daily) expect(local(p.at).slice(11)).toBe("00:00");
    for (const p of overview.hourly) expect(local(p.at).slice(13)).toBe(":00");

    const deals = (await allDeals(new Date(now - 8 * 24 * HOUR).toISOString(), new Date(now + 1).toISOString())).filter(
      (d) => d.action === "buy" || d.action === "sell",
    );
    const firstDay = day(now - 6 * 24 * HOUR);
    const firstHour = hour(now - 23 * HOUR);
    for (const platformId of platforms) {
      const mine = deals.filter((d) => d.platformId === platformId);
      const sums = (keyOf: (d: Deal) => string | null) => {
        const m = new Map<string, { volume: number; profit: number }>();
        for (const d of mine) {
          const key = keyOf(d);
          if (key === null) continue;
          const e = m.get(key) ?? { volume: 0, profit: 0 };
          e.volume += tenThousandths(d.volume);
          e.profit += cents(d.profit) + cents(d.commission) + cents(d.swap);
          m.set(key, e);
        }
        return m;
      };
      const got = (points: { platformId: string; at: string; volume: string; profit: string }[], keyOf: (at: string) => string) =>
        new Map(points.filter((p) => p.platformId === platformId).map((p) => [keyOf(p.at), { volume: tenThousandths(p.volume), profit: cents(p.profit) }]));
      expect(got(overview.daily, day)).toEqual(sums((d) => (day(d.time) >= firstDay ? day(d.time) : null)));
      expect(got(overview.hourly, hour)).toEqual(sums((d) => (hour(d.time) >= firstHour ? hour(d.time) : null)));
      const today = sums((d) => (day(d.time) === day(now) ? "today" : null)).get("today") ?? { volume: 0, profit: 0 };
      const figures = overview.platforms.find((p: { platformId: string }) => p.platformId === platformId);
      expect({ volume: tenThousandths(figures.volumeToday), profit: cents(figures.profitToday) }).toEqual(today);
    }

    // The member's own zone comes first.
    await send("PUT", "/api/preferences/display", { value: { timeZone: "America/New_York" } });
    const own = (await get("/api/overview")).json();
    expect(own.timeZone).toBe("America/New_York");
    expect(local(own.dayStart, "America/New_York")).toBe(`${local(own.asOf, "America/New_York").slice(0, 10)} 00:00`);
  });
});
