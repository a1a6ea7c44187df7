/**
 * The copier's status through the API (docs/trades-copier.md "Status"), on both databases. Ledger
 * rows inserted straight into copy_ledger stand for the engine's work; every figure is computed
 * again here from those rows (today in the organization's zone, nearest-rank percentiles, 5-minute
 * buckets) and must match. Also: each follower's state, the failed and skipped copies paged newest
 * first, divergence read live from simulated servers, another organization's links never
 * appearing, a member without tradesCopier read refused, and the overview's copier tile.
 */
import crypto from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { copyFollowers } from "../../server/db/schema.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { moduleClaimType } from "../../core/access.ts";
import type { CopierDivergence, CopierStatus, CopyEvent, Latency } from "../../core/schemas/copierStatus.ts";
import { rowsOf } from "../../server/db/rows.ts";
import { describeDb } from "../helpers/db.ts";
import { apiHeaders, newPerson, tokenFactory, type Person, type TokenFactory } from "../helpers/tokens.ts";
import { copierEngineOf } from "../../server/modules/tradesCopier/engine/plugin.ts";
import { insertLedger, timesOf, type LedgerRow } from "./support/copierLedger.ts";
import { addMember, signUp } from "./support/fixtures.ts";
import { startPlatformsApp, type PlatformsApp } from "./platformsHarness.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// America/Bogota is UTC−5 all year (no summer time since 1993): its midnight is 05:00 UTC.
const ZONE = "America/Bogota";
const ZONE_OFFSET = -5 * HOUR;

/** Nearest rank: the smallest value with at least p of the values at or below it. */
function nearestRank(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(p * sorted.length) - 1]!;
}

/** Every stage's count, p50 and p99 over rows, computed from the times the helper wrote. */
function expectedLatency(rows: readonly LedgerRow[]): Latency {
  const times = rows.map(timesOf);
  const stage = (values: number[]) => ({ count: values.length, p50: nearestRank(values, 0.5), p99: nearestRank(values, 0.99) });
  return {
    eventToEngine: stage(times.map((t) => t.receivedAt - t.sourceTime)),
    decision: stage(times.map((t) => t.decidedAt - t.receivedAt)),
    sendToAck: stage(times.filter((t) => t.sentAt !== null && t.ackedAt !== null).map((t) => t.ackedAt! - t.sentAt!)),
    total: stage(times.filter((t) => t.ackedAt !== null).map((t) => t.ackedAt! - t.sourceTime)),
  };
}

function expectLatency(got: Latency, want: Latency) {
  for (const name of ["eventToEngine", "decision", "sendToAck", "total"] as const) {
    expect(got[name].count, name).toBe(want[name].count);
    for (const p of ["p50", "p99"] as const) {
      const value = want[name][p];
      if (value === null) expect(got[name][p], `${name} ${p}`).toBeNull();
      else expect(got[name][p], `${name} ${p}`).toBeCloseTo(value, 3);
    }
  }
}

/** A deterministic spread of small latencies. */
function* latencies(seed: number) {
  let x = seed;
  for (;;) {
    x = (x * 1103515245 + 12345) % 2147483648;
    yield 1 + (x % 400);
  }
}

describeDb("Trades Copier status API", () => {
  let t: PlatformsApp;
  let tokens: TokenFactory;
  const ada = newPerson("Ada");
  const eve = newPerson("Eve");
  const blind = newPerson("Blind");
  let adaOrg: string;
  let eveOrg: string;
  let mt5: string;
  let mtr: string;
  let evePlatform: string;
  let linkId: string;
  let eveLinkId: string;
  let sourceLogin: string;
  const followers = { f1: { platformId: "", login: "" }, f2: { platformId: "", login: "" }, f3: { platformId: "", login: "" } };
  const rows: LedgerRow[] = [];
  let f2SuspendedAt: Date;

  const as =
    (person: Person, org: string) =>
    async (url: string, method: "GET" | "POST" | "PUT" | "PATCH" = "GET", payload?: unknown) =>
      t.call({ method, url, payload: payload as object, headers: apiHeaders(await tokens.mint(person), org) });

  async function platform(person: Person, org: string, type: "MT5" | "MatchTrader", name: string, seed: number) {
    const res = await as(person, org)("/api/tradePlatforms", "POST", {
      type,
      name,
      timeZone: "UTC",
      connection: { kind: "simulated", accounts: 12, tradeRate: 0, seed },
    });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().id as string;
    expect((await as(person, org)(`/api/tradePlatforms/${id}/apps`, "PUT", [{ app: "tradesCopier", enabled: true }])).statusCode).toBe(200);
    return id;
  }

  beforeAll(async () => {
    t = await startPlatformsApp();
    // The ledger rows this file inserts stand for the engine's work: the real engine, which would
    // copy the positions the tests open on the source, is stopped.
    await copierEngineOf(t.ctx)?.stop();
    tokens = await tokenFactory(t.ctx);
    adaOrg = await signUp(t, tokens, ada);
    eveOrg = await signUp(t, tokens, eve);
    await addMember(t.ctx, adaOrg, blind, { [moduleClaimType("tradePlatforms", adaOrg)]: "read" });
    const zone = await as(ada, adaOrg)("/api/organization", "PATCH", { timeZone: ZONE });
    expect(zone.statusCode, zone.body).toBe(200);
    mt5 = await platform(ada, adaOrg, "MT5", "Status MT5", 41);
    mtr = await platform(ada, adaOrg, "MatchTrader", "Status MTR", 42);
    evePlatform = await platform(eve, eveOrg, "MT5", "Eve MT5", 43);
    // Accounts that can trade (enabled, with money), so positions can be opened on them below.
    const traders = async (platformId: string) =>
      (await (await t.app.platforms.connectorFor(adaOrg, platformId)).listAccounts({ limit: 100 })).items
        .filter((a) => a.enabled && !a.readOnly && a.balance > 1_000_000)
        .map((a) => a.login);
    const [mt5Logins, mtrLogins] = [await traders(mt5), await traders(mtr)];
    sourceLogin = mt5Logins[0]!;
    Object.assign(followers.f1, { platformId: mtr, login: mtrLogins[0]! });
    Object.assign(followers.f2, { platformId: mtr, login: mtrLogins[1]! });
    Object.assign(followers.f3, { platformId: mt5, login: mt5Logins[1]! });
    const link = await as(ada, adaOrg)("/api/tradesCopier/links", "POST", {
      name: "Signals",
      source: { platformId: mt5, login: sourceLogin },
      followers: [
        { account: followers.f1 },
        { account: followers.f2, equityFloor: { amount: 100, action: "suspend" } },
        { account: followers.f3, closeOnly: true },
      ],
    });
    expect(link.statusCode, link.body).toBe(201);
    linkId = link.json().id;
    const eveLink = await as(eve, eveOrg)("/api/tradesCopier/links", "POST", {
      name: "Eve's",
      source: { platformId: evePlatform, login: "100001" },
      followers: [{ account: { platformId: evePlatform, login: "100002" } }],
    });
    expect(eveLink.statusCode, eveLink.body).toBe(201);
    eveLinkId = eveLink.json().id;

    // Rows spread over the last 30 hours (none within a few minutes of 24 hours ago, where the window's edge is).
    const now = Date.now();
    const lat = latencies(7);
    const next = () => lat.next().value as number;
    const at = (msAgo: number) => new Date(now - msAgo);
    const org = { organizationId: adaOrg, linkId };
    for (let i = 0; i < 60; i++) {
      const ago = (i * 23 * HOUR) / 60 + 60_000;
      rows.push({
        ...org,
        follower: followers.f1,
        state: "done",
        decidedAt: at(ago),
        eventToEngine: next(),
        decision: 1 + (next() % 9),
        toSend: 1,
        sendToAck: next(),
      });
    }
    for (let i = 0; i < 12; i++)
      rows.push({ ...org, follower: followers.f3, state: "done", decidedAt: at(i * 37 * 60_000 + 90_000), sendToAck: next(), eventToEngine: next() });
    // Older than 24 hours: counts toward nothing but the last copy.
    for (let i = 0; i < 5; i++) rows.push({ ...org, follower: followers.f1, state: "done", decidedAt: at(25 * HOUR + i * HOUR), sendToAck: 999 });
    // f1's last action sent was refused: failing, with the platform's words.
    rows.push({ ...org, follower: followers.f1, state: "failed", decidedAt: at(30_000), reason: "Market closed", followerAction: "open" });
    rows.push({ ...org, follower: followers.f1, state: "failed", decidedAt: at(20 * HOUR), reason: "Not enough money", followerAction: "open" });
    rows.push({ ...org, follower: followers.f1, state: "skipped", decidedAt: at(3 * HOUR), reason: "symbolBlocked" });
    rows.push({ ...org, follower: followers.f1, state: "pending", decidedAt: at(5_000) });
    // f2: a copy, then a new position skipped by its equity floor, which suspended it (below).
    rows.push({ ...org, follower: followers.f2, state: "done", decidedAt: at(2 * HOUR) });
    rows.push({ ...org, follower: followers.f2, state: "skipped", decidedAt: at(HOUR), reason: "equityFloor", sourceAction: "open" });
    rows.push({ ...org, follower: followers.f2, state: "done", decidedAt: at(HOUR - 60_000), sourceAction: "close", followerAction: "close" });
    rows.push({ ...org, follower: followers.f2, state: "skipped", decidedAt: at(26 * HOUR), reason: "tooLate" });
    await insertLedger(t.ctx, rows);
    // The engine's suspension of f2 (engine/riskStops.ts), standing for its work like the rows.
    await t.ctx.database.db
      .update(copyFollowers)
      .set({
        suspendedAt: (f2SuspendedAt = at(HOUR)),
        suspendedStop: "equityFloor",
        suspendedAction: "suspend",
        suspendedReason: "Equity 99.00 below the floor of 100.00",
      })
      .where(and(eq(copyFollowers.linkId, linkId), eq(copyFollowers.login, followers.f2.login)));
    await insertLedger(t.ctx, [
      { organizationId: eveOrg, linkId: eveLinkId, follower: { platformId: evePlatform, login: "100002" }, state: "done", decidedAt: at(60_000) },
      {
        organizationId: eveOrg,
        linkId: eveLinkId,
        follower: { platformId: evePlatform, login: "100002" },
        state: "failed",
        decidedAt: at(60_000),
        reason: "Eve's",
      },
    ]);
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await t?.drop();
  });

  it("answers each follower's state, today's counts (in the organization's zone), last copy and latency per stage, matching a computation from the rows", async () => {
    const res = await as(ada, adaOrg)("/api/tradesCopier/status");
    expect(res.statusCode, res.body).toBe(200);
    const status = res.json<CopierStatus>();
    const now = Date.parse(status.asOf);
    const dayStart = Math.floor((now + ZONE_OFFSET) / DAY) * DAY - ZONE_OFFSET;
    expect(status.timeZone).toBe(ZONE);
    expect(Date.parse(status.dayStart)).toBe(dayStart);
    expect(status.links.map((l) => l.id)).toEqual([linkId]);
    const link = status.links[0]!;
    expect(link.source).toEqual({ platformId: mt5, login: sourceLogin, platformName: "Status MT5" });
    const since = now - DAY;
    const mine = (f: { platformId: string; login: string }) => rows.filter((r) => r.follower === f);
    const today = (r: LedgerRow) => r.decidedAt.getTime() >= dayStart;
    const inWindow = (r: LedgerRow) => r.state === "done" && r.decidedAt.getTime() >= since;
    for (const [i, f] of [followers.f1, followers.f2, followers.f3].entries()) {
      const got = link.followers[i]!;
      const own = mine(f);
      expect(got.account).toEqual(f);
      expect(got.copiesToday, `f${i + 1} copies`).toBe(own.filter((r) => r.state === "done" && today(r)).length);
      expect(got.failedToday, `f${i + 1} failed`).toBe(own.filter((r) => r.state === "failed" && today(r)).length);
      expect(got.skippedToday, `f${i + 1} skipped`).toBe(own.filter((r) => r.state === "skipped" && today(r)).length);
      expect(got.pending).toBe(own.filter((r) => r.state === "pending").length);
      const lastCopy = Math.max(...own.filter((r) => r.state === "done").map((r) => timesOf(r).ackedAt!));
      expect(Date.parse(got.lastCopyAt!)).toBe(lastCopy);
      expectLatency(got.latency, expectedLatency(own.filter(inWindow)));
    }
    expect(link.followers.map((f) => [f.state, f.stateReason])).toEqual([
      ["failing", "Market closed"],
      ["suspended", "Equity 99.00 below the floor of 100.00"],
      ["closeOnly", "No new positions; closes are still copied"],
    ]);
    expect(link.followers.map((f) => [f.suspendedAt, f.suspendedUntil])).toEqual([
      [null, null],
      [f2SuspendedAt.toISOString(), null],
      [null, null],
    ]);
    expectLatency(link.latency, expectedLatency(rows.filter(inWindow)));

    // The series: every 5 minutes with copies, the whole copy's p50 and p99.
    const buckets = new Map<number, number[]>();
    for (const r of rows.filter(inWindow)) {
      const t0 = timesOf(r);
      const at = Math.floor(t0.decidedAt / 300_000) * 300_000;
      buckets.set(at, [...(buckets.get(at) ?? []), t0.ackedAt! - t0.sourceTime]);
    }
    const want = [...buckets].sort((a, b) => a[0] - b[0]).map(([at, v]) => ({ at, copies: v.length, p50: nearestRank(v, 0.5)!, p99: nearestRank(v, 0.99)! }));
    expect(link.series.map((p) => ({ ...p, at: Date.parse(p.at) }))).toEqual(
      want.map((w) => ({ ...w, p50: expect.closeTo(w.p50, 3), p99: expect.closeTo(w.p99, 3) })),
    );

    const all = link.followers;
    expect(status.totals).toMatchObject({
      links: 1,
      followers: 3,
      copiesToday: all.reduce((n, f) => n + f.copiesToday, 0),
      failedToday: all.reduce((n, f) => n + f.failedToday, 0),
    });
    expect(status.totals.p99).toBeCloseTo(expectedLatency(rows.filter(inWindow)).total.p99!, 3);

    // The overview's tile shows the same totals; a member without copier access sees none.
    const overview = await as(ada, adaOrg)("/api/overview");
    expect(overview.statusCode, overview.body).toBe(200);
    expect(overview.json().copier).toEqual(status.totals);
    const blindOverview = await as(blind, adaOrg)("/api/overview");
    expect(blindOverview.statusCode, blindOverview.body).toBe(200);
    expect(blindOverview.json().copier).toBeNull();
  });

  it("reads the organization's rows of a period through the (organization, decision time) index", async () => {
    // With table scans a last resort, the filter of "today" and "the last 24 hours" reads copy_ledger_decided_idx.
    const plan = await t.ctx.database.db.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      const since = new Date(Date.now() - DAY).toISOString();
      const result = await tx.execute(
        sql`explain select count(*) from copy_ledger where organization_id = ${adaOrg}::uuid and decided_at >= ${since}::timestamptz`,
      );
      return rowsOf<Record<string, string>>(result)
        .map((r) => Object.values(r)[0])
        .join("\n");
    });
    expect(plan).toContain("copy_ledger_decided_idx");
  });

  it("pauses a follower whose link is off", async () => {
    const off = await as(ada, adaOrg)(`/api/tradesCopier/links/${linkId}/enabled`, "PUT", { enabled: false });
    expect(off.statusCode, off.body).toBe(200);
    const status = (await as(ada, adaOrg)("/api/tradesCopier/status")).json<CopierStatus>();
    expect(status.links[0]!.followers.map((f) => [f.state, f.stateReason])).toEqual([
      ["paused", "The link is disabled"],
      ["paused", "The link is disabled"],
      ["paused", "The link is disabled"],
    ]);
    expect((await as(ada, adaOrg)(`/api/tradesCopier/links/${linkId}/enabled`, "PUT", { enabled: true })).statusCode).toBe(200);
  });

  describe("failed and skipped copies", () => {
    const expected = (filter: (r: LedgerRow) => boolean) =>
      rows
        .filter((r) => (r.state === "failed" || r.state === "skipped") && filter(r))
        .sort((a, b) => b.decidedAt.getTime() - a.decidedAt.getTime())
        .map((r) => ({ state: r.state, reason: r.reason, decidedAt: r.decidedAt.toISOString() }));

    async function pages(query: string, limit: number) {
      const seen: CopyEvent[] = [];
      let next: string | null = null;
      for (let page = 0; page < 20; page++) {
        const res = await as(ada, adaOrg)(`/api/tradesCopier/status/events?limit=${limit}${query}${next ? `&before=${encodeURIComponent(next)}` : ""}`);
        expect(res.statusCode, res.body).toBe(200);
        const body = res.json<{ events: CopyEvent[]; next: string | null }>();
        expect(body.events.length).toBeLessThanOrEqual(limit);
        seen.push(...body.events);
        if (!(next = body.next)) return seen;
      }
      throw new Error("too many pages");
    }

    it("lists them newest first with their reasons, a page at a time, and filters by state and link", async () => {
      const all = await pages("", 2);
      expect(all.map((e) => ({ state: e.state, reason: e.reason, decidedAt: e.decidedAt }))).toEqual(expected(() => true));
      expect(new Set(all.map((e) => e.requestId)).size).toBe(all.length);
      expect(all.find((e) => e.reason === "equityFloor")).toMatchObject({
        linkId,
        linkName: "Signals",
        follower: followers.f2,
        reasonText: "The follower's equity is below its floor",
      });
      expect(all.find((e) => e.reason === "Market closed")).toMatchObject({ reasonText: "Market closed", followerAction: "open", state: "failed" });
      const failed = await pages(`&state=failed&linkId=${linkId}`, 50);
      expect(failed.map((e) => e.reason)).toEqual(expected((r) => r.state === "failed").map((e) => e.reason));
      expect(await pages(`&linkId=${eveLinkId}`, 50)).toEqual([]);
    });

    it("refuses a bad state, limit or cursor", async () => {
      for (const q of ["state=done", "limit=0", "limit=501", "linkId=nope", "before=garbage"]) {
        expect((await as(ada, adaOrg)(`/api/tradesCopier/status/events?${q}`)).statusCode, q).toBe(400);
      }
    });
  });

  it("never shows another organization's links or copies, and refuses a member without tradesCopier read", async () => {
    const eveStatus = (await as(eve, eveOrg)("/api/tradesCopier/status")).json<CopierStatus>();
    expect(eveStatus.links.map((l) => l.id)).toEqual([eveLinkId]);
    expect(eveStatus.totals).toMatchObject({ links: 1, followers: 1, copiesToday: 1, failedToday: 1 });
    const eveEvents = (await as(eve, eveOrg)("/api/tradesCopier/status/events")).json<{ events: CopyEvent[] }>();
    expect(eveEvents.events.map((e) => e.reason)).toEqual(["Eve's"]);
    const eveDivergence = (await as(eve, eveOrg)("/api/tradesCopier/status/divergence")).json<CopierDivergence>();
    expect(eveDivergence.followers.map((f) => f.linkId)).toEqual([eveLinkId]);
    expect((await as(eve, eveOrg)(`/api/tradesCopier/status/divergence?linkId=${linkId}`)).json<CopierDivergence>().followers).toEqual([]);
    for (const url of ["/api/tradesCopier/status", "/api/tradesCopier/status/events", "/api/tradesCopier/status/divergence"]) {
      expect((await as(blind, adaOrg)(url)).statusCode, url).toBe(403);
    }
  });

  it("shows a copy closed by hand on the follower as missing and a copy of a closed source position as extra, with the copies' P/L and drawdown", async () => {
    const source = await t.app.platforms.connectorFor(adaOrg, mt5);
    const follower = await t.app.platforms.connectorFor(adaOrg, mtr);
    const open = async (c: typeof source, login: string) =>
      (await c.placeOrder({ requestId: crypto.randomUUID(), login, symbol: "EURUSD", side: "buy", volume: 10_000 })).positionId;
    const kept = { source: await open(source, sourceLogin), follower: await open(follower, followers.f2.login) };
    const lost = { source: await open(source, sourceLogin), follower: await open(follower, followers.f2.login) };
    const orphan = { source: await open(source, sourceLogin), follower: await open(follower, followers.f2.login) };
    const own = await open(follower, followers.f2.login); // the follower's own trade: never the copier's business
    const copy = (p: { source: string; follower: string }): LedgerRow => ({
      organizationId: adaOrg,
      linkId,
      follower: followers.f2,
      state: "done",
      decidedAt: new Date(Date.now() - 10 * 60_000),
      sourceId: `position:${p.source}`,
      followerPositionId: p.follower,
    });
    // Closed by hand, then resynced: a second open row for the same source position holds it again.
    const resynced = { source: await open(source, sourceLogin), follower: await open(follower, followers.f2.login) };
    const again = await open(follower, followers.f2.login);
    await insertLedger(t.ctx, [copy(kept), copy(lost), copy(orphan), copy(resynced), copy({ source: resynced.source, follower: again })]);
    await follower.closePosition({ requestId: crypto.randomUUID(), positionId: resynced.follower });
    await new Promise((r) => setTimeout(r, 5)); // the two closing deals in a known order
    await follower.closePosition({ requestId: crypto.randomUUID(), positionId: lost.follower });
    await source.closePosition({ requestId: crypto.randomUUID(), positionId: orphan.source });

    const res = await as(ada, adaOrg)(`/api/tradesCopier/status/divergence?linkId=${linkId}`);
    expect(res.statusCode, res.body).toBe(200);
    const f2 = res.json<CopierDivergence>().followers.find((f) => f.account.login === followers.f2.login)!;
    const sourceOpen = (await source.openPositions(sourceLogin)).length;
    expect(sourceOpen).toBeGreaterThanOrEqual(3);
    expect(f2).toMatchObject({ known: true, error: null, sourceOpen, copiesOpen: 3 });
    expect(f2.items).toEqual([
      { kind: "missing", sourceId: `position:${lost.source}`, symbol: "EURUSD", side: "buy", volume: "1", followerPositionId: lost.follower },
      { kind: "extra", sourceId: `position:${orphan.source}`, symbol: "EURUSD", side: "buy", volume: "1", followerPositionId: orphan.follower },
    ]);
    const live = (await follower.openPositions(followers.f2.login)).filter((p) => p.id === kept.follower || p.id === orphan.follower);
    expect(live).toHaveLength(2);
    expect(own).not.toBe(kept.follower);
    const f1 = res.json<CopierDivergence>().followers.find((f) => f.account.login === followers.f1.login)!;
    expect(f1).toMatchObject({ known: true, sourceOpen, copiesOpen: 0, items: [], floatingProfit: "0.00", realizedProfit: "0.00", maxDrawdown: "0.00" });

    // The copies' P/L, computed again here from the follower's own platform (its deal history and
    // open positions, not the trade history store the route reads), with its prices held still.
    const feed = t.app.platforms.simulatedServer(mtr)!.engine.ctx.feed;
    feed.control("EURUSD", { stopped: true });
    try {
      const copyIds = new Set([kept.follower, lost.follower, orphan.follower, resynced.follower, again]);
      const deals = (await follower.dealHistory({ login: followers.f2.login, from: Date.now() - DAY, to: Date.now() + 60_000 }))
        .filter((d) => d.positionId !== null && copyIds.has(d.positionId))
        .sort((a, b) => a.time - b.time);
      expect(deals.filter((d) => d.entry === "out")).toHaveLength(2);
      const amounts = deals.map((d) => d.profit + d.swap + d.commission);
      const floating = (await follower.openPositions(followers.f2.login)).filter((p) => copyIds.has(p.id)).reduce((sum, p) => sum + p.profit + p.swap, 0);
      const curve = [0];
      for (const a of [...amounts, floating]) curve.push(curve[curve.length - 1]! + a);
      let drawdown = 0;
      for (let i = 0; i < curve.length; i++) for (let j = i + 1; j < curve.length; j++) drawdown = Math.max(drawdown, curve[i]! - curve[j]!);
      const cents = (minor: number) => (minor / 100).toFixed(2);
      const realized = amounts.reduce((sum, a) => sum + a, 0);
      const want = { floatingProfit: cents(floating), realizedProfit: cents(realized), totalProfit: cents(realized + floating), maxDrawdown: cents(drawdown) };
      // The store gets the closing deals from the live stream: read until they are in.
      let got: CopierDivergence["followers"][number] | undefined;
      for (let i = 0; i < 100; i++) {
        got = (await as(ada, adaOrg)(`/api/tradesCopier/status/divergence?linkId=${linkId}`))
          .json<CopierDivergence>()
          .followers.find((f) => f.account.login === followers.f2.login);
        if (got?.realizedProfit === want.realizedProfit) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(got).toMatchObject(want);
      expect(Number(want.realizedProfit)).not.toBe(0);
    } finally {
      feed.control("EURUSD", { stopped: false });
    }
  });
});
