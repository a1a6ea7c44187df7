/**
 * Pending orders in the trade history store and the blotter's API, through the real app: a
 * simulated platform connected by the runtime, its order events (placed, modified, filled,
 * cancelled) published on the app's bus as the trade feed publishes them, and
 * GET /api/tradesBlotter/orders read with real tokens: waiting orders, and all with their history
 * (the fill naming its position, which the positions API lists).
 */
// Databases: PGlite and PostgreSQL (orders kept in the history store).
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { BlotterOrder, BlotterOrderChanges, BlotterOrderPage, BlotterPositionPage, TradeHistorySync } from "../../core/schemas/tradesBlotter.ts";
import type { TradeEvent } from "../../core/trading/index.ts";
import type { TradePlatformConnector } from "../../server/connectors/connector.ts";
import { rowsOf } from "../../server/db/rows.ts";
import { tradeHistoryOf } from "../../server/modules/tradeHistory/plugin.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { upsertOrders } from "../../server/modules/tradeHistory/repository/orders.ts";
import { signUp } from "./support/fixtures.ts";
import { sseReader } from "./support/sse.ts";

describeDb("pending orders in the trade history store and the blotter API", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  const dealer = newPerson("Orders dealer");
  const stranger = newPerson("Other org dealer");
  let org: string;
  let otherOrg: string;
  let platformId: string;
  let connector: TradePlatformConnector;

  const get = async (url: string, person = dealer, organization = org) => t.app.inject({ url, headers: apiHeaders(await tokens.mint(person), organization) });
  const store = () => tradeHistoryOf(t.ctx)!;

  async function eventsOf(action: () => Promise<unknown> | void, until: TradeEvent["type"]): Promise<TradeEvent[]> {
    const stream = connector.subscribe();
    await action();
    const events: TradeEvent[] = [];
    for await (const event of stream) {
      events.push(event);
      if (event.type === until) break;
    }
    stream.close();
    return events;
  }

  async function publish(events: readonly TradeEvent[]): Promise<void> {
    await t.app.bus.publish(events.map((event) => ({ type: "trade" as const, organizationId: org, platformId, event })));
    await store().settled();
  }

  async function orders(query: string, person = dealer, organization = org): Promise<BlotterOrderPage> {
    const res = await get(`/api/tradesBlotter/orders?${query}`, person, organization);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<BlotterOrderPage>();
  }

  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
    org = await signUp(t, tokens, dealer);
    otherOrg = await signUp(t, tokens, stranger);
    const headers = apiHeaders(await tokens.mint(dealer), org);
    const res = await t.app.inject({
      method: "POST",
      url: "/api/tradePlatforms",
      headers,
      payload: { type: "MT5", name: "Orders", timeZone: "Europe/Athens", connection: { kind: "simulated", accounts: 30, tradeRate: 0, seed: 21 } },
    });
    expect(res.statusCode, res.body).toBe(201);
    platformId = res.json<{ id: string }>().id;
    const assign = await t.app.inject({
      method: "POST",
      url: "/api/tradePlatforms/assign-application",
      headers,
      payload: { app: "tradesBlotter", platformIds: [platformId] },
    });
    expect(assign.statusCode, assign.body).toBe(200);
    connector = await t.app.platforms.connectorFor(org, platformId);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const sync = (await get(`/api/tradePlatforms/${platformId}/trade-history`)).json<TradeHistorySync>();
      if (sync.status === "live" || sync.status === "failed") break;
      if (Date.now() > deadline) throw new Error("backfill did not finish");
      await new Promise((r) => setTimeout(r, 20));
    }
    await store().whenBackfilled(platformId);
  });

  afterAll(async () => {
    await t?.close();
  });

  it("keeps each order with its history: placed, modified, then filled into the position it opened; cancelled ones apart", async () => {
    const login = (await connector.listAccounts({ limit: 100 })).items.find((a) => a.enabled && !a.readOnly && a.balance > 100_000)!.login;
    const server = t.app.platforms.simulatedServer(platformId)!;
    server.engine.setQuote("EURUSD", 1.1, 1.10012);
    let filledId = "";
    let cancelledId = "";
    const placed = await eventsOf(async () => {
      filledId = (
        await connector.placePendingOrder({
          requestId: crypto.randomUUID(),
          login,
          symbol: "EURUSD",
          type: "buyLimit",
          volume: 10_000,
          price: 1.099,
          comment: "dip",
        })
      ).orderId;
    }, "orderPlaced");
    await publish(placed);
    const waiting = await orders(`platformIds=${platformId}&login=${login}`);
    expect(waiting.items).toHaveLength(1);
    expect(waiting.items[0]).toMatchObject({
      orderId: filledId,
      login,
      symbol: "EURUSD",
      type: "buyLimit",
      volume: "1",
      price: 1.099,
      state: "placed",
      positionId: null,
      doneTime: null,
      comment: "dip",
      platformName: "Orders",
    });

    await publish(
      await eventsOf(
        () => connector.modifyPendingOrder({ requestId: crypto.randomUUID(), orderId: filledId, price: 1.0985, sl: 1.098, tp: null, expiration: null }),
        "orderModified",
      ),
    );
    expect((await orders(`platformIds=${platformId}&login=${login}`)).items[0]).toMatchObject({ price: 1.0985, sl: 1.098, state: "placed" });

    const filled = await eventsOf(() => server.engine.setQuote("EURUSD", 1.09838, 1.0985), "dealAdded");
    expect(filled.map((e) => e.type)).toEqual(["orderFilled", "positionOpened", "dealAdded"]);
    await publish(filled);
    const fill = filled[0]!;
    if (fill.type !== "orderFilled") throw new Error("no fill");

    const cancelled = await eventsOf(async () => {
      cancelledId = (
        await connector.placePendingOrder({ requestId: crypto.randomUUID(), login, symbol: "EURUSD", type: "sellStop", volume: 20_000, price: 1.097 })
      ).orderId;
      await connector.cancelPendingOrder({ requestId: crypto.randomUUID(), orderId: cancelledId });
    }, "orderCancelled");
    await publish(cancelled);

    // Waiting only (the default): none left.
    expect((await orders(`platformIds=${platformId}&login=${login}`)).items).toEqual([]);
    const all = await orders(`platformIds=${platformId}&login=${login}&state=all`);
    expect(all.total).toBe(2);
    expect(all.items.map((o) => [o.orderId, o.state])).toEqual([
      [cancelledId, "cancelled"],
      [filledId, "filled"],
    ]);
    const done = all.items[1]!;
    expect(done).toMatchObject({ positionId: fill.position.id, price: 1.0985, doneTime: new Date(fill.time).toISOString() });
    // The position it opened is in the positions API, under that id.
    const positions = (await get(`/api/tradesBlotter/positions?platformIds=${platformId}&login=${login}`)).json<BlotterPositionPage>();
    expect(positions.items.map((p) => p.positionId)).toContain(done.positionId);

    // A replay (a redelivered batch) never brings an ended order back.
    await publish(placed);
    expect((await orders(`platformIds=${platformId}&login=${login}`)).items).toEqual([]);
    expect((await orders(`platformIds=${platformId}&login=${login}&state=all`)).items.map((o) => o.state)).toEqual(["cancelled", "filled"]);
  });

  it("a backfill (as on connect and after a gap) brings the orders the live stream never delivered, each once: waiting ones stored, ended ones ended", async () => {
    const accounts = (await connector.listAccounts({ limit: 100 })).items.filter((a) => a.enabled && !a.readOnly && a.balance > 100_000);
    const login = accounts[accounts.length - 1]!.login;
    const server = t.app.platforms.simulatedServer(platformId)!;
    server.engine.setQuote("EURUSD", 1.1, 1.10012);
    const place = async (type: "buyLimit" | "sellStop", price: number) =>
      (await connector.placePendingOrder({ requestId: crypto.randomUUID(), login, symbol: "EURUSD", type, volume: 10_000, price })).orderId;
    let waitingId = "";
    let cancelledId = "";
    let filledId = "";
    await publish(
      await eventsOf(async () => {
        waitingId = await place("buyLimit", 1.05);
        cancelledId = await place("sellStop", 1.06);
        filledId = await place("buyLimit", 1.0985);
      }, "orderPlaced"),
    );
    const cancel = await eventsOf(() => connector.cancelPendingOrder({ requestId: crypto.randomUUID(), orderId: cancelledId }), "orderCancelled");
    const fill = await eventsOf(() => server.engine.setQuote("EURUSD", 1.09838, 1.0985), "dealAdded");
    const filled = fill.find((e) => e.type === "orderFilled");
    if (filled?.type !== "orderFilled") throw new Error("no fill");
    await publish([...cancel, ...fill]);
    // Toolbox missed all of it (down, or the platform not connected): the store holds the orders
    // placed meanwhile not at all (one of them since cancelled), the one that filled as still
    // waiting, and one waiting order the platform's history does not know (its end unseen).
    const db = t.ctx.database.db;
    const unknownId = "888888888";
    await db.execute(sql`insert into trade_orders (organization_id, platform_id, order_id, login, symbol, type, volume, price, sl, tp, expiration,
        placed_time, state, position_id, done_time, reason, comment, native, updated_at)
      select organization_id, platform_id, ${unknownId}, login, symbol, type, volume, 1.04, sl, tp, expiration, placed_time, 'placed', null, null,
        reason, comment, native, updated_at
      from trade_orders where platform_id = ${platformId}::uuid and order_id = ${waitingId}`);
    await db.execute(sql`delete from trade_orders where platform_id = ${platformId}::uuid and order_id in (${waitingId}, ${cancelledId})`);
    await db.execute(sql`update trade_orders set state = 'placed', position_id = null, done_time = null
      where platform_id = ${platformId}::uuid and order_id = ${filledId}`);
    const query = `platformIds=${platformId}&login=${login}&state=all`;
    const stored = async () => {
      const rows = rowsOf<{ order_id: string; n: number }>(
        await db.execute(
          sql`select order_id, count(*)::int as n from trade_orders where platform_id = ${platformId}::uuid and login = ${login} group by order_id`,
        ),
      );
      return Object.fromEntries(rows.map((r) => [r.order_id, Number(r.n)]));
    };
    const expectCaughtUp = async (ended: Record<string, Partial<BlotterOrder>>) => {
      const all = await orders(query);
      expect(all.total).toBe(4);
      const byId = new Map(all.items.map((o) => [o.orderId, o]));
      expect(byId.get(waitingId)).toMatchObject({ state: "placed", price: 1.05, doneTime: null });
      for (const [id, state] of Object.entries(ended)) expect(byId.get(id)).toMatchObject(state);
      expect((await orders(`platformIds=${platformId}&login=${login}`)).items.map((o) => o.orderId)).toEqual([waitingId]);
      expect(await stored()).toEqual({ [waitingId]: 1, [cancelledId]: 1, [filledId]: 1, [unknownId]: 1 });
    };
    // The platform's order history tells how and when each ended (the cancelled one never stored
    // before); gone from the platform and not in its history (how it ended was not seen): `ended`, at a time unknown.
    const cancelEvent = cancel.find((e) => e.type === "orderCancelled")!;
    const unseen = {
      [cancelledId]: { state: "cancelled", positionId: null, doneTime: new Date(cancelEvent.time).toISOString() },
      [filledId]: { state: "filled", positionId: filled.position.id, doneTime: new Date(filled.time).toISOString() },
      [unknownId]: { state: "ended", positionId: null, doneTime: null },
    } as const;
    await t.app.bus.publish({ type: "tradeGap", organizationId: org, platformId, resumedAt: Date.now() });
    await store().whenBackfilled(platformId);
    await expectCaughtUp(unseen);
    // Again (idempotent): nothing changes, nothing doubles.
    await t.app.bus.publish({ type: "tradeGap", organizationId: org, platformId, resumedAt: Date.now() });
    await store().whenBackfilled(platformId);
    await expectCaughtUp(unseen);
    // The live events delivered late (a redelivery): still one row each, the same ends.
    await publish([...cancel, ...fill]);
    await expectCaughtUp(unseen);
  });

  it("a backfill on MT4, whose history lists no fill, takes a stored waiting order whose ticket is an open position as filled into it", async () => {
    const headers = apiHeaders(await tokens.mint(dealer), org);
    const created = await t.app.inject({
      method: "POST",
      url: "/api/tradePlatforms",
      headers,
      payload: { type: "MT4", name: "Orders MT4", timeZone: "Europe/Athens", connection: { kind: "simulated", accounts: 5, tradeRate: 0, seed: 22 } },
    });
    expect(created.statusCode, created.body).toBe(201);
    const mt4Id = created.json<{ id: string }>().id;
    const assign = await t.app.inject({
      method: "POST",
      url: "/api/tradePlatforms/assign-application",
      headers,
      payload: { app: "tradesBlotter", platformIds: [platformId, mt4Id] },
    });
    expect(assign.statusCode, assign.body).toBe(200);
    const mt4 = await t.app.platforms.connectorFor(org, mt4Id);
    await store().whenBackfilled(mt4Id);
    const login = (await mt4.listAccounts({ limit: 100 })).items.filter((a) => a.enabled && !a.readOnly && a.balance > 10_000).at(-1)!.login;
    const server = t.app.platforms.simulatedServer(mt4Id)!;
    server.engine.setQuote("EURUSD", 1.1, 1.10012);
    const stream = mt4.subscribe();
    const { orderId } = await mt4.placePendingOrder({ requestId: crypto.randomUUID(), login, symbol: "EURUSD", type: "buyLimit", volume: 1000, price: 1.0985 });
    const placedEvents: TradeEvent[] = [];
    for await (const event of stream) {
      placedEvents.push(event);
      if (event.type === "orderPlaced") break;
    }
    stream.close();
    await t.app.bus.publish(placedEvents.map((event) => ({ type: "trade" as const, organizationId: org, platformId: mt4Id, event })));
    await store().settled();
    // It fills while Toolbox does not follow the platform (its events never reach the store).
    server.engine.setQuote("EURUSD", 1.09838, 1.0985);
    const [position] = await mt4.openPositions(login);
    expect(position?.id).toBe(orderId);
    await store().settled();
    await t.ctx.database.db.execute(sql`update trade_orders set state = 'placed', position_id = null, done_time = null
      where platform_id = ${mt4Id}::uuid and order_id = ${orderId}`);
    await t.app.bus.publish({ type: "tradeGap", organizationId: org, platformId: mt4Id, resumedAt: Date.now() });
    await store().whenBackfilled(mt4Id);
    const mine = await orders(`platformIds=${mt4Id}&login=${login}&state=all`);
    expect(mine.items.map((o) => [o.orderId, o.state, o.positionId])).toEqual([[orderId, "filled", orderId]]);
    expect(mine.items[0]!.doneTime).toBe(new Date(position!.openTime).toISOString());
  });

  it("streams every waiting order (a snapshot past 1,000, no cap), then each one placed, and each one filled or cancelled leaves at once", async () => {
    const accounts = (await connector.listAccounts({ limit: 100 })).items.filter((a) => a.enabled && !a.readOnly && a.balance > 100_000);
    const login = accounts[accounts.length - 2]!.login;
    const server = t.app.platforms.simulatedServer(platformId)!;
    server.engine.setQuote("EURUSD", 1.1, 1.10012);
    // Waiting orders already in the store, more than the list's page of 1,000.
    const bulk = Array.from({ length: 1234 }, (_, i) => ({
      orderId: `bulk-${i}`,
      login: "990001",
      symbol: "GBPUSD",
      type: "buyLimit" as const,
      volume: "0.1",
      price: 1.2,
      sl: null,
      tp: null,
      expiration: null,
      placedTime: new Date(Date.now() - 86_400_000 + i).toISOString(),
      state: "placed" as const,
      positionId: null,
      doneTime: null,
      reason: "client",
      comment: "",
      native: { platform: "MT5" as const, order: 990_000 + i },
    }));
    await upsertOrders(t.ctx.database.db, { id: platformId, organizationId: org }, bulk);
    const base = await t.app.listen({ port: 0, host: "127.0.0.1" });
    const open = async (query: string) => {
      const res = await fetch(`${base}/api/tradesBlotter/orders/stream?${query}`, { headers: apiHeaders(await tokens.mint(dealer), org) });
      expect(res.status).toBe(200);
      return sseReader(res.body!);
    };
    const all = await open(`platformIds=${platformId}`);
    const mine = await open(`platformIds=${platformId}&login=${login}`);
    try {
      const snapshot = (await all.until(() => all.events.find((e) => e.event === "snapshot"), "snapshot")).data as { orders: BlotterOrder[] };
      const keys = new Set(snapshot.orders.map((o) => o.key));
      expect(keys.size).toBe(snapshot.orders.length);
      for (const o of bulk) expect(keys.has(`${platformId}:${o.orderId}`)).toBe(true);
      expect(snapshot.orders.every((o) => o.state === "placed")).toBe(true);
      const mineSnapshot = (await mine.until(() => mine.events.find((e) => e.event === "snapshot"), "snapshot")).data as { orders: BlotterOrder[] };
      expect(mineSnapshot.orders).toEqual([]);

      const changes = (reader: typeof all) => reader.events.filter((e) => e.event === "orders").map((e) => e.data as BlotterOrderChanges);
      const upserted = (reader: typeof all, id: string) =>
        changes(reader)
          .find((c) => c.upsert.some((o) => o.orderId === id))
          ?.upsert.find((o) => o.orderId === id);
      const removed = (reader: typeof all, id: string) => changes(reader).some((c) => c.remove.includes(`${platformId}:${id}`));
      const place = async (type: "buyLimit" | "sellStop", price: number) =>
        (await connector.placePendingOrder({ requestId: crypto.randomUUID(), login, symbol: "EURUSD", type, volume: 10_000, price, comment: "live" })).orderId;
      let fillsId = "";
      let cancelsId = "";
      await publish(
        await eventsOf(async () => {
          fillsId = await place("buyLimit", 1.0985);
          cancelsId = await place("sellStop", 1.06);
        }, "orderPlaced"),
      );
      for (const reader of [all, mine]) {
        const placed = await reader.until(() => upserted(reader, cancelsId), "the order placed");
        expect(placed).toMatchObject({
          key: `${platformId}:${cancelsId}`,
          login,
          symbol: "EURUSD",
          type: "sellStop",
          volume: "1",
          price: 1.06,
          state: "placed",
          comment: "live",
          platformName: "Orders",
        });
        await reader.until(() => upserted(reader, fillsId), "the other order placed");
      }
      // The bulk orders are another login's: never on the login's stream.
      expect(
        changes(mine)
          .flatMap((c) => c.upsert)
          .every((o) => o.login === login),
      ).toBe(true);
      await publish(await eventsOf(() => server.engine.setQuote("EURUSD", 1.09838, 1.0985), "dealAdded"));
      await publish(await eventsOf(() => connector.cancelPendingOrder({ requestId: crypto.randomUUID(), orderId: cancelsId }), "orderCancelled"));
      for (const reader of [all, mine]) {
        await reader.until(() => removed(reader, fillsId), "the filled order leaving");
        await reader.until(() => removed(reader, cancelsId), "the cancelled order leaving");
      }
    } finally {
      await all.cancel();
      await mine.cancel();
      await t.ctx.database.db.execute(sql`delete from trade_orders where platform_id = ${platformId}::uuid and login = '990001'`);
    }
  });

  it("answers 400 with a readable message for a bad state, and never shows another organization's orders", async () => {
    const bad = await get(`/api/tradesBlotter/orders?state=open`);
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toMatch(/state must be placed or all/);
    expect((await orders(`state=all&platformIds=${platformId}`, stranger, otherOrg)).items).toEqual([]);
  });
});
