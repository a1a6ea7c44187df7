/**
 * The copier engine's exactly-once hazards (docs/trades-copier.md "The engine"), through the real
 * app: a simulated MT5 source and a simulated MT4 source, each linked to its own simulated
 * Match-Trader follower with the links API.
 *  - a copied pending order that fills on the follower's server is linked to the source's
 *    position (whichever fills first): the source's partial close and close reach it, and nothing
 *    is opened twice;
 *  - an MT4 source partly closed twice, then a restart (a new engine, nothing in memory): the
 *    catch-up finds the copy under the chain's first ticket, closes nothing and opens nothing;
 *  - partial closes made while no engine ran are caught up at the restart: the copy is brought to
 *    its share of what the source holds;
 *  - the resync lists a copy bigger than its share and brings it to it, once.
 * Expected volumes are worked out here from the servers' own symbols.
 */
// Databases: PGlite and PostgreSQL (copies written exactly once).
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { ResyncPlan, ResyncResult } from "../../core/schemas/copierResync.ts";
import type { Position, TradeSymbol } from "../../core/trading/index.ts";
import type { TradePlatformConnector } from "../../server/connectors/connector.ts";
import { copyLedger } from "../../server/db/schema.ts";
import { CopierEngine } from "../../server/modules/tradesCopier/engine/engine.ts";
import { copierDepsOf, copierEngineOf } from "../../server/modules/tradesCopier/engine/plugin.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { simulatedCopierPlatform, tradingLogins, until } from "./support/copierPlatforms.ts";
import { signUp } from "./support/fixtures.ts";

describeDb("the Trades Copier's engine copies exactly once through fills, MT4 chains, restarts and resyncs", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  const dealer = newPerson("Copier once dealer");
  let org: string;
  let engine: CopierEngine;
  const platforms: Record<"mt5" | "mt4" | "mt", string> = { mt5: "", mt4: "", mt: "" };
  const connectors = {} as Record<"mt5" | "mt4" | "mt", TradePlatformConnector>;
  const specs = {} as Record<"mt5" | "mt4" | "mt", TradeSymbol>;
  let mt5Login: string;
  let mt4Login: string;
  let followerA: string;
  let followerB: string;
  let linkA: string;
  let linkB: string;

  const headers = async () => apiHeaders(await tokens.mint(dealer), org);
  const db = () => t.ctx.database.db;

  const rowsOf = (linkId: string, sourceId: string) =>
    db()
      .select()
      .from(copyLedger)
      .where(and(eq(copyLedger.linkId, linkId), eq(copyLedger.sourceId, sourceId)));
  const settledRow = (linkId: string, sourceId: string, sourceAction: string) =>
    until(`the ${sourceAction} of ${sourceId} in the ledger`, async () =>
      (await rowsOf(linkId, sourceId)).find((r) => r.sourceAction === sourceAction && r.state !== "pending"),
    );
  /** The follower's open positions, without those its account held before the links existed. */
  const baseline = new Set<string>();
  const held = async (login: string): Promise<Position[]> => (await connectors.mt.openPositions(login)).filter((p) => !baseline.has(p.id));
  const quote = async (platform: "mt5" | "mt4" | "mt", bid: number) =>
    (await until("the simulated server", async () => t.app.platforms.simulatedServer(platforms[platform]))).engine.setQuote(
      "EURUSD",
      bid,
      Number((bid + 0.00012).toFixed(5)),
    );
  /** Rounded down to the follower's step (the copy's volume), or up (its share after a partial close). */
  const down = (v: number) => Math.floor(v / specs.mt.volumeStep + 1e-9) * specs.mt.volumeStep;
  const up = (v: number) => Math.ceil(v / specs.mt.volumeStep - 1e-9) * specs.mt.volumeStep;
  /** The follower's copy of a source volume: × 2 (link A) or the same (link B), aligned by contract size. */
  const copyOf = (from: "mt5" | "mt4", volume: number) => down((volume * (from === "mt5" ? 2 : 1) * specs[from].contractSize) / specs.mt.contractSize);

  /** As if every node stopped: the engine's leases are released and nothing follows the bus. */
  async function stopEngine(): Promise<void> {
    await engine.stop();
  }

  /** A node starts afresh: nothing in memory, the catch-up runs for every link it takes. */
  async function startEngine(): Promise<void> {
    engine = new CopierEngine({ ...copierDepsOf(t.app), bus: t.app.bus, ttlMs: t.ctx.config.node.feedLeaseTtlMs });
    engine.start();
    await until("the new engine to work the links", async () => engine.holds(linkA) && engine.holds(linkB));
    await engine.settled();
    await engine.pass();
    await engine.settled();
  }

  async function link(name: string, source: "mt5" | "mt4", sourceLogin: string, followerLogin: string, volume: object): Promise<string> {
    const res = await t.app.inject({
      method: "POST",
      url: "/api/tradesCopier/links",
      headers: await headers(),
      payload: {
        name,
        source: { platformId: platforms[source], login: sourceLogin },
        followers: [{ account: { platformId: platforms.mt, login: followerLogin }, volume }],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ id: string }>().id;
  }

  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
    org = await signUp(t, tokens, dealer);
    platforms.mt5 = await simulatedCopierPlatform(t, await headers(), { type: "MT5", name: "Once MT5 source", seed: 51 });
    platforms.mt4 = await simulatedCopierPlatform(t, await headers(), { type: "MT4", name: "Once MT4 source", seed: 52 });
    platforms.mt = await simulatedCopierPlatform(t, await headers(), { type: "MatchTrader", name: "Once followers", seed: 53 });
    for (const k of ["mt5", "mt4", "mt"] as const) {
      connectors[k] = await t.app.platforms.connectorFor(org, platforms[k]);
      await quote(k, 1.1);
      specs[k] = await until("the server's symbols", async () => (await connectors[k].listSymbols().catch(() => [])).find((s) => s.name === "EURUSD"));
    }
    mt5Login = (await tradingLogins(connectors.mt5))[0]!;
    mt4Login = (await tradingLogins(connectors.mt4))[0]!;
    [followerA, followerB] = (await tradingLogins(connectors.mt)) as [string, string];
    for (const p of await connectors.mt.openPositions()) baseline.add(p.id);
    linkA = await link("From MT5", "mt5", mt5Login, followerA, { mode: "multiplier", multiplier: 2 });
    linkB = await link("From MT4", "mt4", mt4Login, followerB, { mode: "same" });
    engine = copierEngineOf(t.ctx)!;
    await until("the engine to work the links", async () => engine.holds(linkA) && engine.holds(linkB));
    await engine.settled();
  });

  afterAll(async () => {
    await engine?.stop();
    await t?.close();
  });

  async function placeOnSource(): Promise<string> {
    await quote("mt5", 1.1);
    await quote("mt", 1.1);
    const placed = await connectors.mt5.placePendingOrder({
      requestId: crypto.randomUUID(),
      login: mt5Login,
      symbol: "EURUSD",
      type: "buyLimit",
      volume: 10_000,
      price: 1.05,
    });
    expect(await settledRow(linkA, `order:${placed.orderId}`, "orderPlaced")).toMatchObject({ state: "done", followerAction: "placeOrder" });
    return placed.orderId;
  }

  it("links a copied order that fills on the follower after the source: the source's partial close and close reach it", async () => {
    const orderId = await placeOnSource();
    await quote("mt5", 1.04);
    // MT5: the position takes its order's ticket.
    const fill = await settledRow(linkA, `position:${orderId}`, "orderFilled");
    expect(fill).toMatchObject({ state: "done", followerAction: "open", followerPositionId: null });
    await quote("mt", 1.04);
    const linked = await until(
      "the follower's fill to be linked",
      async () => (await settledRow(linkA, `position:${orderId}`, "orderFilled")).followerPositionId,
    );
    const copy = (await held(followerA)).find((p) => p.id === linked)!;
    expect(copy.volume).toBe(copyOf("mt5", 10_000));

    await connectors.mt5.closePosition({ requestId: crypto.randomUUID(), positionId: orderId, volume: 4000 });
    expect(await settledRow(linkA, `position:${orderId}`, "partialClose")).toMatchObject({ state: "done", followerAction: "close" });
    expect((await held(followerA)).find((p) => p.id === copy.id)?.volume).toBe(up((copy.volume * 6000) / 10_000));
    await connectors.mt5.closePosition({ requestId: crypto.randomUUID(), positionId: orderId });
    expect(await settledRow(linkA, `position:${orderId}`, "close")).toMatchObject({ state: "done", followerAction: "close" });
    expect(await held(followerA)).toEqual([]);
    await quote("mt5", 1.1);
    await quote("mt", 1.1);
  });

  it("links a copied order that filled on the follower first: nothing opened twice, the resync sees it as the copy", async () => {
    const orderId = await placeOnSource();
    await quote("mt", 1.04);
    const own = await until("the follower's order to fill", async () => (await held(followerA)).find((p) => p.symbol === "EURUSD"));
    await quote("mt5", 1.04);
    expect(await settledRow(linkA, `position:${orderId}`, "orderFilled")).toMatchObject({ state: "done", followerAction: "open", followerPositionId: own.id });
    await engine.pass();
    await engine.settled();
    expect((await held(followerA)).map((p) => p.id)).toEqual([own.id]);
    const url = `/api/tradesCopier/links/${linkA}/followers/${platforms.mt}/${followerA}/resync`;
    expect((await t.app.inject({ url, headers: await headers() })).json<ResyncPlan>()).toEqual({ actions: [] });

    await connectors.mt5.closePosition({ requestId: crypto.randomUUID(), positionId: orderId });
    expect(await settledRow(linkA, `position:${orderId}`, "close")).toMatchObject({ state: "done", followerPositionId: own.id });
    expect(await held(followerA)).toEqual([]);
    await quote("mt5", 1.1);
    await quote("mt", 1.1);
  });

  it("an MT4 source partly closed twice, then a restart: the catch-up keeps the copy of the still-open trade", async () => {
    const first = (await connectors.mt4.placeOrder({ requestId: crypto.randomUUID(), login: mt4Login, symbol: "EURUSD", side: "buy", volume: 10_000 }))
      .positionId;
    const open = await settledRow(linkB, `position:${first}`, "open");
    const copyId = open.followerPositionId!;
    await connectors.mt4.closePosition({ requestId: crypto.randomUUID(), positionId: first, volume: 3000 });
    await until(
      "the first partial close",
      async () => (await rowsOf(linkB, `position:${first}`)).filter((r) => r.sourceAction === "partialClose" && r.state === "done").length === 1,
    );
    const second = (await connectors.mt4.openPositions(mt4Login)).find((p) => p.previousId === first)!;
    await connectors.mt4.closePosition({ requestId: crypto.randomUUID(), positionId: second.id, volume: 2000 });
    await until(
      "the second partial close",
      async () => (await rowsOf(linkB, `position:${first}`)).filter((r) => r.sourceAction === "partialClose" && r.state === "done").length === 2,
    );
    const before = (await held(followerB)).find((p) => p.id === copyId)!;
    expect(before.volume).toBe(up((copyOf("mt4", 10_000) * 5000) / 10_000));

    await stopEngine();
    await startEngine();
    expect(await held(followerB)).toEqual([expect.objectContaining({ id: copyId, volume: before.volume })]);
    const rows = await db().select().from(copyLedger).where(eq(copyLedger.linkId, linkB));
    expect(rows.filter((r) => r.followerAction === "open")).toHaveLength(1);

    // The source's close, on the third ticket, closes the copy.
    const third = (await connectors.mt4.openPositions(mt4Login)).find((p) => p.previousId === second.id)!;
    await connectors.mt4.closePosition({ requestId: crypto.randomUUID(), positionId: third.id });
    expect(await settledRow(linkB, `position:${first}`, "close")).toMatchObject({ state: "done" });
    expect(await held(followerB)).toEqual([]);
  });

  it("catches up partial closes made while no engine ran: the copy is brought to its share", async () => {
    const positionId = (await connectors.mt5.placeOrder({ requestId: crypto.randomUUID(), login: mt5Login, symbol: "EURUSD", side: "buy", volume: 10_000 }))
      .positionId;
    const open = await settledRow(linkA, `position:${positionId}`, "open");
    await stopEngine();
    await connectors.mt5.closePosition({ requestId: crypto.randomUUID(), positionId, volume: 3000 });
    await connectors.mt5.closePosition({ requestId: crypto.randomUUID(), positionId, volume: 2000 });
    await startEngine();
    const share = up((copyOf("mt5", 10_000) * 5000) / 10_000);
    expect((await held(followerA)).find((p) => p.id === open.followerPositionId)?.volume).toBe(share);
    // Once: another catch-up closes nothing more.
    await stopEngine();
    await startEngine();
    expect((await held(followerA)).find((p) => p.id === open.followerPositionId)?.volume).toBe(share);
    await connectors.mt5.closePosition({ requestId: crypto.randomUUID(), positionId });
    expect(await settledRow(linkA, `position:${positionId}`, "close")).toMatchObject({ state: "done" });
  });

  it("the resync brings a copy bigger than its share down to it, once", async () => {
    const positionId = (await connectors.mt5.placeOrder({ requestId: crypto.randomUUID(), login: mt5Login, symbol: "EURUSD", side: "buy", volume: 10_000 }))
      .positionId;
    const open = await settledRow(linkA, `position:${positionId}`, "open");
    await stopEngine();
    await connectors.mt5.closePosition({ requestId: crypto.randomUUID(), positionId, volume: 4000 });
    const copy = (await held(followerA)).find((p) => p.id === open.followerPositionId)!;
    const share = up((copy.volume * 6000) / 10_000);
    const url = `/api/tradesCopier/links/${linkA}/followers/${platforms.mt}/${followerA}/resync`;
    const plan = await t.app.inject({ url, headers: await headers() });
    expect(plan.json<ResyncPlan>()).toEqual({
      actions: [
        {
          kind: "reduce",
          sourceId: `position:${positionId}`,
          symbol: "EURUSD",
          side: "buy",
          volume: String((copy.volume - share) / 10_000),
          followerPositionId: copy.id,
        },
      ],
    });
    const done = await t.app.inject({ method: "POST", url, headers: await headers() });
    expect(done.json<ResyncResult>().actions).toMatchObject([{ kind: "reduce", state: "done" }]);
    expect((await t.app.inject({ method: "POST", url, headers: await headers() })).json<ResyncResult>()).toEqual({ actions: [] });
    expect((await held(followerA)).find((p) => p.id === copy.id)?.volume).toBe(share);
    // The restart's catch-up finds the copy at its share: nothing more is closed.
    await startEngine();
    expect((await held(followerA)).find((p) => p.id === copy.id)?.volume).toBe(share);
  });
});
