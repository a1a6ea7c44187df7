/**
 * Pending orders on the simulated servers of every flavour, through the connector (codec and
 * native shapes included): placing with the platform's checks and reasons, triggering at the
 * right price for each type into a position that names its order, expiry, modify and cancel,
 * each seen once on the stream, and exactly once per request id.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  TRADE_PLATFORM_TYPES,
  type PendingOrderType,
  type PlacePendingOrderRequest,
  type TradeEvent,
  type TradePlatformType,
} from "../../../core/trading/index.ts";
import { ManualClock } from "../../../server/connectors/clock.ts";
import { createSimulatedConnector } from "../../../server/connectors/simulated/connector.ts";
import { SimulatedServer } from "../../../server/connectors/simulated/server.ts";
import { collect, expectConnectorError, fundedAccount, uniqueId, type Collected } from "./contract/helpers.ts";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const SYMBOL = "EURUSD";
const BID = 1.1;
const ASK = 1.10012;

async function setup(platform: TradePlatformType, clock = new ManualClock()) {
  const server = new SimulatedServer({ platform, clock, seed: 5, accounts: 10, tradeRate: 0 });
  const connector = createSimulatedConnector(server);
  await connector.connect();
  const login = await fundedAccount(connector);
  server.engine.setQuote(SYMBOL, BID, ASK);
  const stream = collect(connector.subscribe());
  cleanups.push(async () => {
    await stream.stop();
    await connector.disconnect();
  });
  const flush = async () => {
    await clock.advance(0);
    await clock.advance(0);
  };
  return { server, connector, login, stream, clock, flush };
}

function request(login: string, type: PendingOrderType, price: number, extra: Partial<PlacePendingOrderRequest> = {}): PlacePendingOrderRequest {
  return { requestId: uniqueId("po"), login, symbol: SYMBOL, type, volume: 10_000, price, sl: null, tp: null, expiration: null, comment: "pending", ...extra };
}

const ofOrders = (c: Collected) => c.events.filter((e) => e.type.startsWith("order"));
const types = (events: TradeEvent[]) => events.map((e) => e.type);

/** For each type: its level, a quote one point short of it, and the quote that reaches it. */
const TRIGGERS: { type: PendingOrderType; price: number; short: [number, number]; reach: [number, number]; fill: number }[] = [
  { type: "buyLimit", price: 1.099, short: [1.09889, 1.09901], reach: [1.09888, 1.099], fill: 1.099 },
  { type: "sellLimit", price: 1.101, short: [1.10099, 1.10111], reach: [1.101, 1.10112], fill: 1.101 },
  { type: "buyStop", price: 1.101, short: [1.10087, 1.10099], reach: [1.10088, 1.101], fill: 1.101 },
  { type: "sellStop", price: 1.099, short: [1.09901, 1.09913], reach: [1.099, 1.09912], fill: 1.099 },
];

describe.each(TRADE_PLATFORM_TYPES)("pending orders on a simulated %s server", (platform) => {
  it("places an order the connector lists with its fields, seen once on the stream", async () => {
    const { connector, login, stream, flush } = await setup(platform);
    const placed = await connector.placePendingOrder(request(login, "buyLimit", 1.099, { sl: 1.098, tp: 1.1, comment: "wait for it" }));
    expect(placed).toMatchObject({ price: 1.099, volume: 10_000 });
    const [order] = await connector.pendingOrders(login);
    expect(order).toMatchObject({
      id: placed.orderId,
      login,
      symbol: SYMBOL,
      type: "buyLimit",
      volume: 10_000,
      price: 1.099,
      sl: 1.098,
      tp: 1.1,
      expiration: null,
      comment: "wait for it",
    });
    expect(await connector.openPositions(login)).toEqual([]);
    await flush();
    expect(types(ofOrders(stream))).toEqual(["orderPlaced"]);
    expect(ofOrders(stream)[0]).toMatchObject({ login, order: { id: placed.orderId, price: 1.099 } });
  });

  it("refuses what the platform refuses, with its reasons, and keeps nothing of a refused order", async () => {
    const { connector, login, flush, stream } = await setup(platform);
    // Price on the wrong side of the market, or nearer than the stops level (10 points).
    const wrongSide = await expectConnectorError(connector.placePendingOrder(request(login, "buyLimit", 1.1002)), "rejected");
    expect(wrongSide.reason).toBe("invalidPrice");
    expect((await expectConnectorError(connector.placePendingOrder(request(login, "sellStop", 1.09995)), "rejected")).reason).toBe("invalidPrice");
    expect((await expectConnectorError(connector.placePendingOrder(request(login, "buyStop", 1.099)), "rejected")).reason).toBe("invalidPrice");
    // Stops on the wrong side of the order's price.
    expect((await expectConnectorError(connector.placePendingOrder(request(login, "buyLimit", 1.099, { sl: 1.0995 })), "rejected")).reason).toBe(
      "invalidStops",
    );
    // Above the symbol's maximum volume (100 lots): the platform's volume refusal, not a margin one.
    const tooBig = await expectConnectorError(connector.placePendingOrder(request(login, "buyLimit", 1.099, { volume: 1_010_000 })), "rejected");
    expect(tooBig.reason).toBe("invalidVolume");
    expect(tooBig.message).toMatch(/100 lots/);
    // An expiration already past.
    const expired = await expectConnectorError(
      connector.placePendingOrder(request(login, "buyLimit", 1.099, { expiration: Date.UTC(2024, 0, 1) })),
      "rejected",
    );
    expect(expired.reason).toBe("invalidExpiration");
    expect(await connector.pendingOrders(login)).toEqual([]);
    await flush();
    expect(ofOrders(stream)).toEqual([]);
  });

  it("refuses an order while the symbol's market is closed", async () => {
    // Saturday: forex is closed.
    const { connector, login } = await setup(platform, new ManualClock(Date.UTC(2024, 0, 13, 12, 0, 0)));
    expect((await expectConnectorError(connector.placePendingOrder(request(login, "buyLimit", 1.099)), "rejected")).reason).toBe("marketClosed");
  });

  it.each(TRIGGERS)("fills a $type when the market reaches its price, not a point before, into a position that names it", async (t) => {
    const { server, connector, login, stream, flush } = await setup(platform);
    const placed = await connector.placePendingOrder(request(login, t.type, t.price, { comment: "trigger" }));
    server.engine.setQuote(SYMBOL, ...t.short);
    expect((await connector.pendingOrders(login)).map((o) => o.id)).toEqual([placed.orderId]);
    expect(await connector.openPositions(login)).toEqual([]);
    server.engine.setQuote(SYMBOL, ...t.reach);
    expect(await connector.pendingOrders(login)).toEqual([]);
    const [position] = await connector.openPositions(login);
    expect(position).toMatchObject({ symbol: SYMBOL, side: t.type.startsWith("buy") ? "buy" : "sell", volume: 10_000, openPrice: t.fill, comment: "trigger" });
    await flush();
    const after = stream.events.filter((e) => e.type !== "accountChanged" && e.type !== "orderPlaced");
    expect(types(after)).toEqual(["orderFilled", "positionOpened", "dealAdded"]);
    const [filled, opened, deal] = after;
    if (filled?.type !== "orderFilled" || opened?.type !== "positionOpened" || deal?.type !== "dealAdded") throw new Error("unexpected events");
    expect(filled.order).toMatchObject({ id: placed.orderId, type: t.type, price: t.price });
    expect(filled.position).toMatchObject({ id: position?.id, orderId: placed.orderId, openPrice: t.fill });
    expect(opened.position).toMatchObject({ id: position?.id, orderId: placed.orderId });
    expect(deal.deal).toMatchObject({ entry: "in", positionId: position?.id, price: t.fill });
    // MetaTrader: the position keeps the order's ticket; Match-Trader gives it an id of its own.
    if (platform !== "MatchTrader") expect(position?.id).toBe(placed.orderId);
  });

  it("cancels an order as expired once its expiration passes, and no sooner", async () => {
    const { server, connector, login, stream, clock, flush } = await setup(platform);
    const placed = await connector.placePendingOrder(request(login, "buyLimit", 1.05, { expiration: clock.now() + 60_000 }));
    const [order] = await connector.pendingOrders(login);
    expect(order?.expiration).toBe(clock.now() + 60_000);
    await clock.advance(59_000);
    server.engine.setQuote(SYMBOL, BID, ASK);
    expect(await connector.pendingOrders(login)).toHaveLength(1);
    await clock.advance(1_000);
    server.engine.setQuote(SYMBOL, BID, ASK);
    expect(await connector.pendingOrders(login)).toEqual([]);
    await flush();
    const last = ofOrders(stream).at(-1);
    expect(types(ofOrders(stream))).toEqual(["orderPlaced", "orderCancelled"]);
    expect(last).toMatchObject({ type: "orderCancelled", cause: "expired", order: { id: placed.orderId } });
    expect(await connector.openPositions(login)).toEqual([]);
  });

  it("modifies and cancels an order, each once per request id", async () => {
    const { connector, login, stream, flush } = await setup(platform);
    const placed = await connector.placePendingOrder(request(login, "sellLimit", 1.101));
    const modify = { requestId: uniqueId("mod"), orderId: placed.orderId, price: 1.102, sl: 1.103, tp: 1.1, expiration: null };
    const modified = await connector.modifyPendingOrder(modify);
    expect(await connector.modifyPendingOrder(modify)).toEqual(modified);
    expect((await connector.pendingOrders(login))[0]).toMatchObject({ price: 1.102, sl: 1.103, tp: 1.1 });
    // The new price is checked like a new order's.
    expect((await expectConnectorError(connector.modifyPendingOrder({ ...modify, requestId: uniqueId("mod"), price: 1.1 }), "rejected")).reason).toBe(
      "invalidPrice",
    );
    const cancel = { requestId: uniqueId("cancel"), orderId: placed.orderId };
    const cancelled = await connector.cancelPendingOrder(cancel);
    expect(await connector.cancelPendingOrder(cancel)).toEqual(cancelled);
    expect(await connector.pendingOrders(login)).toEqual([]);
    await expectConnectorError(connector.cancelPendingOrder({ requestId: uniqueId("cancel"), orderId: placed.orderId }), "notFound");
    await flush();
    expect(types(ofOrders(stream))).toEqual(["orderPlaced", "orderModified", "orderCancelled"]);
    expect(ofOrders(stream)[2]).toMatchObject({ cause: "cancelled" });
  });

  it("places once per request id: a retry answers the first result, a reused id with another request is refused", async () => {
    const { connector, login, stream, flush } = await setup(platform);
    const first = request(login, "buyStop", 1.101);
    const placed = await connector.placePendingOrder(first);
    const [again, concurrent] = await Promise.all([connector.placePendingOrder(first), connector.placePendingOrder(first)]);
    expect(again).toEqual(placed);
    expect(concurrent).toEqual(placed);
    await expectConnectorError(connector.placePendingOrder({ ...first, price: 1.102 }), "invalidRequest");
    // An id used for a market order is not free for an order either.
    const market = await connector.placeOrder({ requestId: uniqueId("mkt"), login, symbol: SYMBOL, side: "buy", volume: 10_000 });
    await expectConnectorError(connector.placePendingOrder({ ...first, requestId: market.requestId }), "invalidRequest");
    expect(await connector.pendingOrders(login)).toHaveLength(1);
    await flush();
    expect(types(ofOrders(stream))).toEqual(["orderPlaced"]);
  });

  it("keeps a refusal under its request id: the same request after the market moved is refused again, not placed or changed", async () => {
    const { server, connector, login, stream, flush } = await setup(platform);
    // A buy limit above the ask is refused; once the market rises past it, the same request must not place it.
    const refused = request(login, "buyLimit", 1.1002);
    expect((await expectConnectorError(connector.placePendingOrder(refused), "rejected")).reason).toBe("invalidPrice");
    server.engine.setQuote(SYMBOL, 1.1005, 1.10062);
    expect((await expectConnectorError(connector.placePendingOrder(refused), "rejected")).reason).toBe("invalidPrice");
    expect(await connector.pendingOrders(login)).toEqual([]);
    // A new request for the same order is a new order.
    const placed = await connector.placePendingOrder({ ...refused, requestId: uniqueId("po") });

    // A change to a level on the wrong side of the market, the same.
    const modify = { requestId: uniqueId("mod"), orderId: placed.orderId, price: 1.1006, sl: null, tp: null, expiration: null };
    expect((await expectConnectorError(connector.modifyPendingOrder(modify), "rejected")).reason).toBe("invalidPrice");
    server.engine.setQuote(SYMBOL, 1.1008, 1.10092);
    expect((await expectConnectorError(connector.modifyPendingOrder(modify), "rejected")).reason).toBe("invalidPrice");
    expect((await connector.pendingOrders(login))[0]).toMatchObject({ id: placed.orderId, price: 1.1002 });
    await flush();
    expect(types(ofOrders(stream))).toEqual(["orderPlaced"]);
  });
});
