/**
 * The copier engine through the real app: a simulated MT5 source and a simulated Match-Trader
 * follower connected by the runtime, their trades on the bus through the trade feed, a link made
 * with the links API (multiplier 2). The source's open, partial close and close reach the
 * follower; a follower closed by hand is not reopened, and the resync plan (GET) and its execution
 * (POST, twice: the second does nothing) put it right; a crash between the ledger's write and the
 * send (a pending row whose lease ran out, for an order the platform had already taken) is sent
 * again with its own request id and opens nothing twice. Follower volumes are worked out here from
 * the two servers' own symbols.
 */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { copyRequestId, followerKey, type SourceAction } from "../../core/copier/index.ts";
import type { ResyncPlan, ResyncResult } from "../../core/schemas/copierResync.ts";
import type { Position, TradeSymbol } from "../../core/trading/index.ts";
import type { TradePlatformConnector } from "../../server/connectors/connector.ts";
import { copyLedger, copyLinkLeases } from "../../server/db/schema.ts";
import { acquireLinkLease, linkLeaseHolder, releaseLinkLease } from "../../server/modules/tradesCopier/engine/linkLeaseRepository.ts";
import { copierEngineOf } from "../../server/modules/tradesCopier/engine/plugin.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { simulatedCopierPlatform, tradingLogins, until } from "./support/copierPlatforms.ts";
import { addMember, signUp } from "./support/fixtures.ts";

describeDb("the Trades Copier's engine copies live trades exactly once", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  const dealer = newPerson("Copier dealer");
  const reader = newPerson("Copier reader");
  let org: string;
  let sourcePlatform: string;
  let followerPlatform: string;
  let source: TradePlatformConnector;
  let follower: TradePlatformConnector;
  let sourceLogin: string;
  let followerLogin: string;
  let linkId: string;
  let sourceSpec: TradeSymbol;
  let followerSpec: TradeSymbol;

  const headers = async (person = dealer) => apiHeaders(await tokens.mint(person), org);
  const engine = () => copierEngineOf(t.ctx)!;
  const db = () => t.ctx.database.db;

  const rowsOf = (sourceId: string) =>
    db()
      .select()
      .from(copyLedger)
      .where(and(eq(copyLedger.linkId, linkId), eq(copyLedger.sourceId, sourceId)));
  const settledRow = (sourceId: string, sourceAction: string) =>
    until(`the ${sourceAction} of ${sourceId} in the ledger`, async () =>
      (await rowsOf(sourceId)).find((r) => r.sourceAction === sourceAction && r.state !== "pending"),
    );
  const followerPositions = async (): Promise<Position[]> => follower.openPositions(followerLogin);
  /** The follower's volume for a source volume: × 2, aligned by contract size, down to its step. */
  const copied = (volume: number) =>
    Math.floor((volume * 2 * sourceSpec.contractSize) / followerSpec.contractSize / followerSpec.volumeStep) * followerSpec.volumeStep;

  /**
   * This node's lease lapses and node B takes the link over; once two passes have run since (the
   * first may be one already running, which renewed before B took it), this node knows it lost the
   * link. B tries again when such a pass renewed the lease between the lapse and B's attempt.
   */
  const nodeBTakesOver = async () => {
    const theirs = await until("node B to take the link over", async () => {
      await db()
        .update(copyLinkLeases)
        .set({ expiresAt: new Date(Date.now() - 1000) });
      return acquireLinkLease(db(), linkId, "node-b", 60_000);
    });
    await engine().pass();
    await engine().pass();
    return theirs;
  };

  async function openOnSource(volume: number): Promise<string> {
    return (await source.placeOrder({ requestId: crypto.randomUUID(), login: sourceLogin, symbol: "EURUSD", side: "buy", volume, sl: 1.09 })).positionId;
  }

  beforeAll(async () => {
    t = await createTestApp({ FEED_LEASE_TTL_MS: "900" });
    tokens = await tokenFactory(t.ctx);
    org = await signUp(t, tokens, dealer);
    await addMember(t.ctx, org, reader, { [`Module.tradesCopier.${org}`]: "read" });
    sourcePlatform = await simulatedCopierPlatform(t, await headers(), { type: "MT5", name: "Copier source", seed: 41 });
    followerPlatform = await simulatedCopierPlatform(t, await headers(), { type: "MatchTrader", name: "Copier follower", seed: 42 });
    source = await t.app.platforms.connectorFor(org, sourcePlatform);
    follower = await t.app.platforms.connectorFor(org, followerPlatform);
    sourceLogin = (await tradingLogins(source))[0]!;
    followerLogin = (await tradingLogins(follower))[0]!;
    t.app.platforms.simulatedServer(sourcePlatform)!.engine.setQuote("EURUSD", 1.1, 1.10012);
    t.app.platforms.simulatedServer(followerPlatform)!.engine.setQuote("EURUSD", 1.1, 1.10012);
    sourceSpec = (await source.listSymbols()).find((s) => s.name === "EURUSD")!;
    followerSpec = (await follower.listSymbols()).find((s) => s.name === "EURUSD")!;
    const res = await t.app.inject({
      method: "POST",
      url: "/api/tradesCopier/links",
      headers: await headers(),
      payload: {
        name: "Live",
        source: { platformId: sourcePlatform, login: sourceLogin },
        followers: [{ account: { platformId: followerPlatform, login: followerLogin }, volume: { mode: "multiplier", multiplier: 2 } }],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    linkId = res.json<{ id: string }>().id;
    await until("the engine to work the link", async () => engine().holds(linkId));
    await engine().settled();
  });

  afterAll(async () => {
    await t?.close();
  });

  it("copies an open with the multiplier, then the partial close and the close", async () => {
    const positionId = await openOnSource(10_000);
    const open = await settledRow(`position:${positionId}`, "open");
    expect(open).toMatchObject({ state: "done", followerAction: "open", volume: String(copied(10_000) / 10_000), symbol: "EURUSD" });
    const copy = (await followerPositions()).find((p) => p.id === open.followerPositionId)!;
    expect(copy).toMatchObject({ side: "buy", volume: copied(10_000), sl: 1.09 });
    // Each stage's time is recorded, in order.
    expect(open.receivedAt.getTime()).toBeLessThanOrEqual(open.decidedAt.getTime());
    expect(open.decidedAt.getTime()).toBeLessThanOrEqual(open.sentAt!.getTime());
    expect(open.sentAt!.getTime()).toBeLessThanOrEqual(open.ackedAt!.getTime());

    await source.closePosition({ requestId: crypto.randomUUID(), positionId, volume: 4000 });
    const partial = await settledRow(`position:${positionId}`, "partialClose");
    const closedPart = Math.floor((copied(10_000) * 0.4) / followerSpec.volumeStep) * followerSpec.volumeStep;
    expect(partial).toMatchObject({ state: "done", followerAction: "close", volume: String(closedPart / 10_000) });
    expect((await followerPositions()).find((p) => p.id === copy.id)?.volume).toBe(copied(10_000) - closedPart);

    await source.closePosition({ requestId: crypto.randomUUID(), positionId });
    expect(await settledRow(`position:${positionId}`, "close")).toMatchObject({ state: "done", followerAction: "close" });
    expect((await followerPositions()).find((p) => p.id === copy.id)).toBeUndefined();
  });

  it("does not reopen a follower closed by hand; the resync plan opens it again, once", async () => {
    const positionId = await openOnSource(5000);
    const open = await settledRow(`position:${positionId}`, "open");
    await follower.closePosition({ requestId: crypto.randomUUID(), positionId: open.followerPositionId! });
    await source.closePosition({ requestId: crypto.randomUUID(), positionId, volume: 1000 });
    expect(await settledRow(`position:${positionId}`, "partialClose")).toMatchObject({ state: "skipped", reason: "notCopied" });
    await engine().pass();
    await engine().settled();
    expect((await followerPositions()).filter((p) => p.symbol === "EURUSD")).toHaveLength(0);

    const url = `/api/tradesCopier/links/${linkId}/followers/${followerPlatform}/${followerLogin}/resync`;
    const plan = await t.app.inject({ url, headers: await headers(reader) });
    expect(plan.statusCode, plan.body).toBe(200);
    expect(plan.json<ResyncPlan>()).toEqual({
      actions: [{ kind: "open", sourceId: `position:${positionId}`, symbol: "EURUSD", side: "buy", volume: String(copied(4000) / 10_000) }],
    });
    expect((await t.app.inject({ method: "POST", url, headers: await headers(reader) })).statusCode).toBe(403);
    const done = await t.app.inject({ method: "POST", url, headers: await headers() });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json<ResyncResult>().actions).toMatchObject([{ kind: "open", state: "done", reason: null }]);
    const again = await t.app.inject({ method: "POST", url, headers: await headers() });
    expect(again.json<ResyncResult>()).toEqual({ actions: [] });
    expect((await followerPositions()).filter((p) => p.symbol === "EURUSD").map((p) => p.volume)).toEqual([copied(4000)]);

    // The source's close closes the copy the resync made.
    await source.closePosition({ requestId: crypto.randomUUID(), positionId });
    expect(await settledRow(`position:${positionId}`, "close")).toMatchObject({ state: "done" });
    expect((await followerPositions()).filter((p) => p.symbol === "EURUSD")).toHaveLength(0);
  });

  it("re-sends a pending row whose lease ran out with its own request id: an order the platform already took opens nothing twice", async () => {
    const positionId = await openOnSource(3000);
    const open = await settledRow(`position:${positionId}`, "open");
    // As if the node crashed after the ledger write and the send, before recording the answer:
    // the source's stops change was recorded pending (its lease now past) and sent once.
    const position = (await source.openPositions(sourceLogin)).find((p) => p.id === positionId)!;
    const action: SourceAction = { type: "stops", time: Date.now(), position: { ...position, sl: 1.08 } };
    const requestId = copyRequestId(linkId, followerKey({ platformId: followerPlatform, login: followerLogin }), action);
    const close = { type: "close" as const, requestId, positionId: open.followerPositionId!, volume: 1000, whole: false };
    await follower.closePosition({ requestId, positionId: close.positionId, volume: close.volume });
    const before = (await followerPositions()).find((p) => p.id === close.positionId)!.volume;
    const now = new Date();
    await db()
      .insert(copyLedger)
      .values({
        requestId,
        organizationId: org,
        linkId,
        followerPlatformId: followerPlatform,
        followerLogin,
        sourceId: `position:${positionId}`,
        sourceAction: "stops",
        followerAction: "close",
        state: "pending",
        action: close,
        leaseHolder: "a-node-that-died",
        leaseUntil: new Date(now.getTime() - 1000),
        sourceTime: now,
        receivedAt: now,
        decidedAt: now,
      });
    // (A pass already running when the row was written sends it at the next.)
    const row = await until("the row sent again and answered", async () => {
      await engine().pass();
      await engine().settled();
      const [r] = await db().select().from(copyLedger).where(eq(copyLedger.requestId, requestId));
      return r?.state === "done" ? r : undefined;
    });
    expect(row).toMatchObject({ state: "done", attempts: 1, leaseHolder: t.ctx.config.node.id });
    expect((await followerPositions()).find((p) => p.id === close.positionId)!.volume).toBe(before);
  });

  it("copies the source's open positions to a follower added to the link (copyExistingPositions), at once, once", async () => {
    const positionId = await openOnSource(2000);
    await settledRow(`position:${positionId}`, "open");
    const secondLogin = (await follower.listAccounts({ limit: 100 })).items.find((a) => a.enabled && !a.readOnly && a.login !== followerLogin)!.login;
    const link = await t.app.inject({ url: `/api/tradesCopier/links/${linkId}`, headers: await headers() });
    const { version, followers } = link.json<{ version: number; followers: { account: unknown }[] }>();
    const edited = await t.app.inject({
      method: "PUT",
      url: `/api/tradesCopier/links/${linkId}`,
      headers: { ...(await headers()), "if-match": `"${version}"` },
      payload: {
        name: "Live",
        source: { platformId: sourcePlatform, login: sourceLogin },
        followers: [...followers, { account: { platformId: followerPlatform, login: secondLogin }, copyExistingPositions: true }],
      },
    });
    expect(edited.statusCode, edited.body).toBe(200);
    await engine().pass();
    await engine().settled();
    const rows = await until("the added follower's copy", async () => {
      const all = await rowsOf(`position:${positionId}`);
      return all.some((r) => r.followerLogin === secondLogin && r.state !== "pending") && all;
    });
    expect(rows.filter((r) => r.followerLogin === secondLogin)).toMatchObject([{ sourceAction: "open", state: "done", followerAction: "open" }]);
    // Every source position open is the added follower's (the earlier tests left one open too).
    const sourceOpen = (await source.openPositions(sourceLogin)).filter((p) => p.symbol === "EURUSD");
    const same = (volume: number) =>
      Math.floor((volume * sourceSpec.contractSize) / followerSpec.contractSize / followerSpec.volumeStep) * followerSpec.volumeStep;
    const copies = (await follower.openPositions(secondLogin)).filter((p) => p.symbol === "EURUSD");
    expect(copies.map((p) => p.volume).sort()).toEqual(sourceOpen.map((p) => same(p.volume)).sort());
    const copyRow = rows.find((r) => r.followerLogin === secondLogin)!;
    expect(copies.find((p) => p.id === copyRow.followerPositionId)?.volume).toBe(same(2000));
    // The first follower's copy was decided before: nothing twice.
    expect(rows.filter((r) => r.followerLogin === followerLogin && r.sourceAction === "open")).toHaveLength(1);
    await source.closePosition({ requestId: crypto.randomUUID(), positionId });
    await until(
      "both copies closed",
      async () => (await rowsOf(`position:${positionId}`)).filter((r) => r.sourceAction === "close" && r.state === "done").length === 2,
    );
  });

  it("works a link on one node at a time: another node takes it only once this node's lease lapsed, and this node stops", async () => {
    const mine = (await linkLeaseHolder(db(), linkId))!;
    expect(mine.nodeId).toBe(t.ctx.config.node.id);
    expect(await acquireLinkLease(db(), linkId, "node-b", 900)).toBeNull();
    // This node dies (its lease is left to lapse): node B takes the link over, with a new epoch.
    const theirs = await nodeBTakesOver();
    // A new epoch (this node may have taken the lapsed lease back once before B got it: B tried again).
    expect(theirs.epoch).toBeGreaterThan(mine.epoch);
    expect(engine().holds(linkId)).toBe(false);
    await releaseLinkLease(db(), theirs);
    await engine().pass();
    expect(engine().holds(linkId)).toBe(true);
  });
  it("catches up the source's pending orders placed and cancelled while no node worked the link: the waiting one is copied, a copy whose source left is cancelled", async () => {
    const place = async (price: number) =>
      (await source.placePendingOrder({ requestId: crypto.randomUUID(), login: sourceLogin, symbol: "EURUSD", type: "buyLimit", volume: 10_000, price }))
        .orderId;
    const copyOf = (orderId: string) =>
      until("the order's copy placed", async () =>
        (await rowsOf(`order:${orderId}`)).find((r) => r.sourceAction === "orderPlaced" && r.followerLogin === followerLogin && r.state === "done"),
      );
    const cancelledOnLeave = await place(1.05);
    const copied = await copyOf(cancelledOnLeave);
    expect((await follower.pendingOrders(followerLogin)).map((o) => o.id)).toContain(copied.followerPositionId);
    // Node B holds the link (and dies without doing anything): this node hears the source's order
    // events and leaves them, as it does for a link it does not work.
    const theirs = await nodeBTakesOver();
    const placedMeanwhile = await place(1.04);
    await source.cancelPendingOrder({ requestId: crypto.randomUUID(), orderId: cancelledOnLeave });
    await engine().settled();
    expect(await rowsOf(`order:${placedMeanwhile}`)).toEqual([]);
    // This node works the link again: its catch-up places the waiting order and cancels the copy of the gone one.
    await releaseLinkLease(db(), theirs);
    await until("this node to work the link again", async () => (await engine().pass(), engine().holds(linkId)));
    const late = await copyOf(placedMeanwhile);
    const waiting = await until("the follower's orders caught up", async () => {
      const ids = (await follower.pendingOrders(followerLogin)).map((o) => o.id);
      return ids.includes(late.followerPositionId!) && !ids.includes(copied.followerPositionId!) ? ids : undefined;
    });
    expect(waiting.filter((id) => id === late.followerPositionId)).toHaveLength(1);
    // (The answer is recorded just after the platform's change.)
    const cancel = await until("the cancel recorded", async () => {
      const rows = (await rowsOf(`order:${cancelledOnLeave}`)).filter((r) => r.sourceAction === "orderCancelled" && r.followerLogin === followerLogin);
      return rows.every((r) => r.state !== "pending") ? rows : undefined;
    });
    expect(cancel.map((r) => [r.state, r.followerAction])).toEqual([["done", "cancelOrder"]]);
    // A second catch-up (the next gap) changes nothing: the same request ids.
    await source.cancelPendingOrder({ requestId: crypto.randomUUID(), orderId: placedMeanwhile });
    await until("the late copy cancelled live", async () => !(await follower.pendingOrders(followerLogin)).some((o) => o.id === late.followerPositionId));
  });

  it("decides again an open whose follower's platform did not answer (nothing was sent): once it answers, the copy is made, once", async () => {
    const server = t.app.platforms.simulatedServer(followerPlatform)!;
    server.faults.disconnect({ refuseReconnect: true });
    try {
      await until("the follower platform to be down", async () => t.app.platforms.state(followerPlatform).state !== "connected");
      const positionId = await openOnSource(3000);
      const failed = await settledRow(`position:${positionId}`, "open");
      expect(failed).toMatchObject({ state: "failed", followerAction: null });
      server.faults.restore();
      const rows = await until("the open decided again and copied", async () => {
        const all = (await rowsOf(`position:${positionId}`)).filter((r) => r.sourceAction === "open" && r.followerLogin === followerLogin);
        return all.length === 1 && all[0]!.state === "done" ? all : undefined;
      });
      const copies = (await followerPositions()).filter((p) => p.id === rows[0]!.followerPositionId);
      expect(copies).toHaveLength(1);
      expect(copies[0]!.volume).toBe(copied(3000));
      await source.closePosition({ requestId: crypto.randomUUID(), positionId });
      await until("the copy closed", async () => !(await followerPositions()).some((p) => p.id === rows[0]!.followerPositionId));
    } finally {
      server.faults.restore();
    }
  });
  it("decides a source's close only once the copy's open still being sent is answered: the copy lands, then is closed, never left open", async () => {
    const first = await openOnSource(3000);
    const template = await until("the first follower's copy", async () =>
      (await rowsOf(`position:${first}`)).find((r) => r.followerLogin === followerLogin && r.sourceAction === "open" && r.state === "done"),
    );
    // Node B works the link and dies with the copy's next open recorded and sent, not answered.
    const theirs = await nodeBTakesOver();
    expect(engine().holds(linkId)).toBe(false);
    const positionId = await openOnSource(3000);
    const position = (await source.openPositions(sourceLogin)).find((p) => p.id === positionId)!;
    const requestId = copyRequestId(linkId, followerKey({ platformId: followerPlatform, login: followerLogin }), {
      type: "open",
      time: position.openTime,
      position,
    });
    const now = new Date();
    await db()
      .insert(copyLedger)
      .values({
        ...template,
        followerLogin,
        requestId,
        sourceId: `position:${positionId}`,
        followerPositionId: null,
        state: "pending",
        action: { ...(template.action as object), requestId },
        leaseHolder: "node-b",
        leaseUntil: new Date(now.getTime() + 2500),
        sentAt: now,
        ackedAt: null,
        attempts: 1,
        sourceTime: now,
        receivedAt: now,
        decidedAt: now,
        createdAt: now,
        updatedAt: now,
      });
    await releaseLinkLease(db(), theirs);
    await until("this node to work the link again", async () => (await engine().pass(), engine().holds(linkId)));
    await engine().settled();
    // The source closes while the copy's open is still B's.
    await source.closePosition({ requestId: crypto.randomUUID(), positionId });
    const open = await until("the copy's open answered", async () => {
      const row = (await rowsOf(`position:${positionId}`)).find((r) => r.requestId === requestId);
      return row?.state === "done" ? row : undefined;
    });
    expect(open.followerPositionId).not.toBeNull();
    await until("the copy closed after it landed", async () => !(await followerPositions()).some((p) => p.id === open.followerPositionId));
    const closes = await until("the close settled", async () => {
      const rows = (await rowsOf(`position:${positionId}`)).filter((r) => r.followerLogin === followerLogin && r.sourceAction === "close");
      return rows.every((r) => r.state !== "pending") ? rows : undefined;
    });
    expect(closes.map((r) => [r.state, r.followerAction, r.reason])).toEqual([["done", "close", null]]);
  });
});
