/**
 * The copier's risk stops, divergence and failure notices through the real app (both databases):
 * a simulated MT5 source and a simulated Match-Trader server for three followers, a link made with
 * the links API, the organization in Tokyo's time zone.
 *  - daily loss limit, closeAndSuspend: today's P/L of the follower's copies (a copy closed at a
 *    loss, one open at a loss) is checked against a computation here from the follower's deals and
 *    positions; the engine's pass trips the stop, suspends the follower (links API and status page,
 *    until Tokyo's next midnight) and closes its open copy once through the ledger; new opens are
 *    skipped; a resume by a member with write access is audited and checked again;
 *  - equity floor, suspend: a new open skips, the follower is suspended, its copy is kept and the
 *    source's partial close still reaches it; the suspension outlives an edit of the floor; a
 *    resync of the suspended follower opens nothing;
 *  - a copy closed by hand is published once as `copierDivergence`; a refused copy as
 *    `copierFailure`; both reach the inbox.
 */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { CopyLink } from "../../core/schemas/copier.ts";
import type { CopierStatus } from "../../core/schemas/copierStatus.ts";
import { moneyToDecimal, type Deal, type Position } from "../../core/trading/index.ts";
import type { TradePlatformConnector } from "../../server/connectors/connector.ts";
import { auditEvents, copyFollowers, copyLedger } from "../../server/db/schema.ts";
import { copierEngineOf } from "../../server/modules/tradesCopier/engine/plugin.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { simulatedCopierPlatform, until } from "./support/copierPlatforms.ts";
import { addMember, signUp } from "./support/fixtures.ts";

const ZONE = "Asia/Tokyo"; // UTC+9 all year

describeDb("the Trades Copier's risk stops, divergence and failures", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  const dealer = newPerson("Risk dealer");
  const reader = newPerson("Risk reader");
  let org: string;
  let sourcePlatform: string;
  let followerPlatform: string;
  let source: TradePlatformConnector;
  let follower: TradePlatformConnector;
  let sourceLogin: string;
  let f1: string;
  let f2: string;
  let f3: string;
  let link: CopyLink;

  const headers = async (person = dealer) => apiHeaders(await tokens.mint(person), org);
  const engine = () => copierEngineOf(t.ctx)!;
  const db = () => t.ctx.database.db;
  const setFollowerQuote = (bid: number) => t.app.platforms.simulatedServer(followerPlatform)!.engine.setQuote("EURUSD", bid, bid + 0.00012);

  const rowsOf = (login: string) =>
    db()
      .select()
      .from(copyLedger)
      .where(and(eq(copyLedger.linkId, link.id), eq(copyLedger.followerLogin, login)));
  const settledRow = (login: string, sourceId: string, sourceAction: string) =>
    until(`the ${sourceAction} of ${sourceId} for ${login}`, async () =>
      (await rowsOf(login)).find((r) => r.sourceId === sourceId && r.sourceAction === sourceAction && r.state !== "pending"),
    );
  const openOnSource = async (volume = 10_000) =>
    (await source.placeOrder({ requestId: crypto.randomUUID(), login: sourceLogin, symbol: "EURUSD", side: "buy", volume })).positionId;

  async function readLink(): Promise<CopyLink> {
    const res = await t.app.inject({ url: `/api/tradesCopier/links/${link.id}`, headers: await headers() });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<CopyLink>();
  }

  async function saveFollowers(change: (followers: CopyLink["followers"]) => void): Promise<void> {
    const current = await readLink();
    change(current.followers);
    const res = await t.app.inject({
      method: "PUT",
      url: `/api/tradesCopier/links/${link.id}`,
      headers: { ...(await headers()), "if-match": `"${current.version}"` },
      payload: { name: current.name, enabled: current.enabled, source: current.source, followers: current.followers },
    });
    expect(res.statusCode, res.body).toBe(200);
    await reread();
  }

  /** The engine reads the links again: a pass that starts after now (one under way may have read them before). */
  async function reread(): Promise<void> {
    await engine().pass();
    await engine().pass();
  }

  const resume = async (login: string, person = dealer) =>
    t.app.inject({ method: "POST", url: `/api/tradesCopier/links/${link.id}/followers/${followerPlatform}/${login}/resume`, headers: await headers(person) });

  beforeAll(async () => {
    t = await createTestApp({ FEED_LEASE_TTL_MS: "900" });
    tokens = await tokenFactory(t.ctx);
    org = await signUp(t, tokens, dealer);
    await addMember(t.ctx, org, reader, { [`Module.tradesCopier.${org}`]: "read" });
    const zone = await t.app.inject({ method: "PATCH", url: "/api/organization", headers: await headers(), payload: { timeZone: ZONE } });
    expect(zone.statusCode, zone.body).toBe(200);
    sourcePlatform = await simulatedCopierPlatform(t, await headers(), { type: "MT5", name: "Risk source", seed: 51, accounts: 12 });
    followerPlatform = await simulatedCopierPlatform(t, await headers(), { type: "MatchTrader", name: "Risk followers", seed: 52, accounts: 12 });
    source = await t.app.platforms.connectorFor(org, sourcePlatform);
    follower = await t.app.platforms.connectorFor(org, followerPlatform);
    const traders = async (c: TradePlatformConnector) =>
      (await c.listAccounts({ limit: 100 })).items
        .filter((a) => a.enabled && !a.readOnly)
        .sort((x, y) => y.balance - x.balance)
        .map((a) => a.login);
    sourceLogin = (await traders(source))[0]!;
    const logins = await traders(follower);
    [f1, f2, f3] = [logins[0]!, logins[1]!, logins[2]!];
    t.app.platforms.simulatedServer(sourcePlatform)!.engine.setQuote("EURUSD", 1.1, 1.10012);
    // The followers' EURUSD moves only when this test sets it: their floating P/L holds still between two reads.
    t.app.platforms.simulatedServer(followerPlatform)!.engine.ctx.feed.control("EURUSD", { stopped: true });
    setFollowerQuote(1.1);
    const res = await t.app.inject({
      method: "POST",
      url: "/api/tradesCopier/links",
      headers: await headers(),
      payload: {
        name: "Risky",
        source: { platformId: sourcePlatform, login: sourceLogin },
        followers: [f1, f2, f3].map((login) => ({ account: { platformId: followerPlatform, login } })),
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    link = res.json<CopyLink>();
    await until("the engine to work the link", async () => engine().holds(link.id));
    await engine().settled();
  });

  afterAll(async () => {
    await t?.close();
  });

  it("daily loss limit, closeAndSuspend: today's P/L of the copies trips it on the pass; the open copy is closed once; new opens skip; a resume is audited and checked again", async () => {
    await saveFollowers((fs) => (fs[0]!.dailyLossLimit = { amount: 1_000_000, action: "closeAndSuspend" }));
    // A copy closed at a loss today, and one open at a loss.
    const a = await openOnSource();
    const copyA = await settledRow(f1, `position:${a}`, "open");
    setFollowerQuote(1.099);
    await source.closePosition({ requestId: crypto.randomUUID(), positionId: a });
    expect(await settledRow(f1, `position:${a}`, "close")).toMatchObject({ state: "done" });
    const b = await openOnSource();
    const copyB = await settledRow(f1, `position:${b}`, "open");
    setFollowerQuote(1.098);
    await engine().settled();

    // Today (Tokyo) from the follower's own records: the copies' closing deals and open positions.
    const now = Date.now();
    const tokyo = 9 * 3_600_000;
    const dayStart = Math.floor((now + tokyo) / 86_400_000) * 86_400_000 - tokyo;
    const copies = new Set([copyA.followerPositionId!, copyB.followerPositionId!]);
    const deals: Deal[] = await follower.dealHistory({ login: f1, from: dayStart - 86_400_000, to: now + 60_000 });
    const open: Position[] = await follower.openPositions(f1);
    const realized = deals
      .filter((d) => d.entry === "out" && copies.has(d.positionId ?? "") && d.time >= dayStart)
      .reduce((s, d) => s + d.profit + d.swap + d.commission, 0);
    const floating = open.filter((p) => copies.has(p.id)).reduce((s, p) => s + p.profit + p.swap, 0);
    const loss = -(realized + floating);
    expect(realized).toBeLessThan(0);
    expect(floating).toBeLessThan(0);

    // A limit one cent above the loss does not trip; at the loss it does, on the pass (no source signal).
    await saveFollowers((fs) => (fs[0]!.dailyLossLimit = { amount: (loss + 1) / 100, action: "closeAndSuspend" }));
    await engine().checkRiskStops();
    await engine().settled();
    expect((await readLink()).suspensions).toEqual([]);
    await saveFollowers((fs) => (fs[0]!.dailyLossLimit = { amount: loss / 100, action: "closeAndSuspend" }));
    await engine().checkRiskStops();
    await engine().settled();
    const [suspension] = (await readLink()).suspensions;
    expect(suspension).toMatchObject({ account: { platformId: followerPlatform, login: f1 }, stop: "dailyLossLimit", action: "closeAndSuspend" });
    expect(suspension!.reason).toContain(`today's loss on copies ${moneyToDecimal(loss)}`);
    expect(Date.parse(suspension!.until!)).toBe(dayStart + 86_400_000);

    // The open copy was closed through the ledger, once: another check (a retry, another node) does nothing more.
    const closes = async () => (await rowsOf(f1)).filter((r) => r.sourceAction === "riskStop");
    expect(await closes()).toMatchObject([{ state: "done", followerAction: "close", followerPositionId: copyB.followerPositionId, sourceId: `position:${b}` }]);
    expect((await follower.openPositions(f1)).filter((p) => copies.has(p.id))).toEqual([]);
    await engine().checkRiskStops();
    await engine().settled();
    expect(await closes()).toHaveLength(1);

    // Suspended: a new open is skipped by the stop; the status page says so, with why and until when.
    const c = await openOnSource();
    expect(await settledRow(f1, `position:${c}`, "open")).toMatchObject({ state: "skipped", reason: "dailyLossLimit" });
    const status = (await t.app.inject({ url: "/api/tradesCopier/status", headers: await headers(reader) })).json<CopierStatus>();
    expect(status.links[0]!.followers[0]).toMatchObject({
      state: "suspended",
      stateReason: suspension!.reason,
      suspendedAt: suspension!.at,
      suspendedUntil: suspension!.until,
    });

    // Resume: write access only, audited; still beyond the limit, the next check suspends it again.
    expect((await resume(f1, reader)).statusCode).toBe(403);
    expect((await resume("999999")).statusCode).toBe(404);
    const resumed = await resume(f1);
    expect(resumed.statusCode, resumed.body).toBe(200);
    expect(resumed.json<CopyLink>().suspensions).toEqual([]);
    const audit = await db().select().from(auditEvents).where(eq(auditEvents.action, "copyLink.followerResumed"));
    expect(audit).toHaveLength(1);
    expect((await resume(f1)).statusCode).toBe(200);
    expect(await db().select().from(auditEvents).where(eq(auditEvents.action, "copyLink.followerResumed"))).toHaveLength(1);
    await engine().checkRiskStops();
    await engine().settled();
    expect((await readLink()).suspensions.map((s) => s.stop)).toEqual(["dailyLossLimit"]);

    // With the limit raised, the day's end lifts it by itself (as if Tokyo's midnight had passed), and it copies again.
    await saveFollowers((fs) => (fs[0]!.dailyLossLimit = { amount: 1_000_000, action: "closeAndSuspend" }));
    expect((await readLink()).suspensions).toHaveLength(1);
    await db()
      .update(copyFollowers)
      .set({ suspendedUntil: new Date(Date.now() - 1000) })
      .where(and(eq(copyFollowers.linkId, link.id), eq(copyFollowers.login, f1)));
    await engine().checkRiskStops();
    expect((await db().select().from(copyFollowers).where(eq(copyFollowers.login, f1)))[0]).toMatchObject({ suspendedAt: null, suspendedUntil: null });
    await reread();
    const d = await openOnSource();
    expect(await settledRow(f1, `position:${d}`, "open")).toMatchObject({ state: "done" });
  });

  it("equity floor, suspend: a new open is skipped and suspends the follower; its copy is kept and the source's partial close still reaches it", async () => {
    const e = await openOnSource();
    const copyE = await settledRow(f2, `position:${e}`, "open");
    const equity = (await follower.getAccount(f2)).equity;
    await saveFollowers((fs) => (fs[1]!.equityFloor = { amount: (equity + 100_000) / 100, action: "suspend" }));
    const g = await openOnSource();
    expect(await settledRow(f2, `position:${g}`, "open")).toMatchObject({ state: "skipped", reason: "equityFloor" });
    const suspension = (await readLink()).suspensions.find((s) => s.account.login === f2);
    expect(suspension).toMatchObject({ stop: "equityFloor", action: "suspend", until: null });
    expect((await follower.openPositions(f2)).map((p) => p.id)).toContain(copyE.followerPositionId);
    await source.closePosition({ requestId: crypto.randomUUID(), positionId: e, volume: 5000 });
    expect(await settledRow(f2, `position:${e}`, "partialClose")).toMatchObject({ state: "done", followerAction: "close" });

    // The floor lowered: the suspension stays until a member resumes it.
    await saveFollowers((fs) => (fs[1]!.equityFloor = { amount: 1, action: "suspend" }));
    const h = await openOnSource();
    expect(await settledRow(f2, `position:${h}`, "open")).toMatchObject({ state: "skipped", reason: "equityFloor" });
    expect((await rowsOf(f2)).filter((r) => r.sourceAction === "riskStop")).toEqual([]);
    // Suspended, a resync opens nothing (the source's g and h stay uncopied); resumed, its plan opens them.
    const opensPlanned = async () =>
      (await t.app.inject({ url: `/api/tradesCopier/links/${link.id}/followers/${followerPlatform}/${f2}/resync`, headers: await headers() }))
        .json<{ actions: { kind: string; sourceId: string }[] }>()
        .actions.filter((a) => a.kind === "open")
        .map((a) => a.sourceId);
    expect(await opensPlanned()).toEqual([]);
    expect((await resume(f2)).statusCode).toBe(200);
    await reread();
    expect(await opensPlanned()).toEqual(expect.arrayContaining([`position:${g}`, `position:${h}`]));
    const k = await openOnSource();
    expect(await settledRow(f2, `position:${k}`, "open")).toMatchObject({ state: "done" });
  });

  it("publishes a copy closed by hand once as copierDivergence, and a refused copy as copierFailure; both reach the inbox", async () => {
    const inbox = async (type: string) =>
      (await t.app.inject({ url: `/api/inbox?type=${type}`, headers: await headers() })).json<{ items: { title: string; body: string }[] }>().items;
    const m = await openOnSource();
    const copy = await settledRow(f3, `position:${m}`, "open");
    await follower.closePosition({ requestId: crypto.randomUUID(), positionId: copy.followerPositionId! });
    const position = (await source.openPositions(sourceLogin)).find((p) => p.id === m)!;
    await source.modifyPosition({ requestId: crypto.randomUUID(), positionId: m, sl: 1.05, tp: position.tp });
    expect(await settledRow(f3, `position:${m}`, "stops")).toMatchObject({ state: "skipped", reason: "notCopied" });
    const [notice] = await until("the divergence in the inbox", async () => {
      const items = await inbox("copierDivergence");
      return items.length > 0 && items;
    });
    expect(notice!.body).toContain(`Account ${f3} no longer holds its copy`);
    // Further signals of the same position do not publish it again.
    await source.closePosition({ requestId: crypto.randomUUID(), positionId: m, volume: 4000 });
    expect(await settledRow(f3, `position:${m}`, "partialClose")).toMatchObject({ state: "skipped", reason: "notCopied" });
    await engine().settled();
    await new Promise((r) => setTimeout(r, 300));
    expect(await inbox("copierDivergence")).toHaveLength(1);

    // A refused copy (the follower's account is read-only) is recorded failed and published.
    await follower.updateAccount(f3, { readOnly: true });
    const n = await openOnSource();
    expect(await settledRow(f3, `position:${n}`, "open")).toMatchObject({ state: "failed" });
    const failure = await until("the failure in the inbox", async () => (await inbox("copierFailure")).find((i) => i.body.includes(`A copy to account ${f3}`)));
    expect(failure.body).toContain("read-only");
  });
});
