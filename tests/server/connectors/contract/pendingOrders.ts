/**
 * Contract, for connectors that carry pending orders (`harness.pendingOrders`): placing, changing
 * (where the platform has a call for it) and cancelling an order exactly once per request id, whatever happens to the answer (lost, late,
 * the same request twice at once, a fresh connector), and a reused id refused; then an order
 * placed, modified, cancelled and one triggered by the market, each seen once on the stream and in
 * the history. What the server did is counted on the simulation behind it, apart from the
 * connector under test.
 */
import { expect, it, type TestContext } from "vitest";
import type { PendingOrderResult, PlacePendingOrderRequest } from "../../../../core/trading/index.ts";
import type { TradePlatformConnector } from "../../../../server/connectors/connector.ts";
import { ConnectorError } from "../../../../server/connectors/errors.ts";
import type { ConnectorHarness, PendingOrdersCarried } from "./harness.ts";
import { collect, expectConnectorError, fundedAccount, settle, uniqueId } from "./helpers.ts";

const FAR = 10 * 365 * 86_400_000;
const SYMBOL = "EURUSD";
/** The market the cases start from; their orders wait 500 points or more away from it. */
const BID = 1.1;
const ASK = 1.10012;

interface PendingOperation {
  call(connector: TradePlatformConnector): Promise<PendingOrderResult>;
  /** The same request id for another request. */
  other(connector: TradePlatformConnector): Promise<PendingOrderResult>;
  /** How many times the server ran it. */
  times(): number;
}

function placeRequest(login: string, price = 1.095, extra: Partial<PlacePendingOrderRequest> = {}): PlacePendingOrderRequest {
  return {
    requestId: uniqueId("pending"),
    login,
    symbol: SYMBOL,
    type: "buyLimit",
    volume: 1000,
    price,
    sl: null,
    tp: null,
    expiration: null,
    comment: "contract",
    ...extra,
  };
}

/** Orders the account ever had: open, and gone to the history. */
function placed(h: ConnectorHarness, login: string): number {
  return h.simulation.engine.pendingOrders(login).length + h.simulation.engine.orderHistory(login, 0, h.now() + FAR).length;
}

/** The server journal's lines about one order that say what was done to it. */
function journalled(h: ConnectorHarness, orderId: string, done: (message: string) => boolean): number {
  return h.simulation.engine.journal(0, h.now() + FAR, { text: `order #${orderId} ` }, 1000).filter((e) => done(e.message)).length;
}

async function account(h: ConnectorHarness): Promise<string> {
  const login = await fundedAccount(h.connector);
  h.simulation.engine.setQuote(SYMBOL, BID, ASK);
  return login;
}

async function placeOne(h: ConnectorHarness, login: string, price = 1.095): Promise<string> {
  return (await h.connector.placePendingOrder(placeRequest(login, price))).orderId;
}

const OPERATIONS: [string, { modify: boolean }, (h: ConnectorHarness) => Promise<PendingOperation>][] = [
  [
    "pending order placed",
    { modify: false },
    async (h) => {
      const login = await account(h);
      const request = placeRequest(login);
      return {
        call: (c) => c.placePendingOrder(request),
        other: (c) => c.placePendingOrder({ ...request, volume: 2000 }),
        times: () => placed(h, login),
      };
    },
  ],
  [
    "pending order modified",
    { modify: true },
    async (h) => {
      const login = await account(h);
      const orderId = await placeOne(h, login);
      const request = { requestId: uniqueId("pmod"), orderId, price: 1.094, sl: 1.09, tp: 1.098, expiration: null };
      return {
        call: (c) => c.modifyPendingOrder(request),
        other: (c) => c.modifyPendingOrder({ ...request, price: 1.093 }),
        times: () => journalled(h, orderId, (m) => m.includes("modify order")),
      };
    },
  ],
  [
    "pending order cancelled",
    { modify: false },
    async (h) => {
      const login = await account(h);
      const orderId = await placeOne(h, login);
      const second = await placeOne(h, login, 1.094);
      const request = { requestId: uniqueId("pcancel"), orderId };
      return {
        call: (c) => c.cancelPendingOrder(request),
        other: (c) => c.cancelPendingOrder({ ...request, orderId: second }),
        times: () => journalled(h, orderId, (m) => m.endsWith(" cancelled")),
      };
    },
  ],
];

/** The same result, read by another connector (times may be the moment a read answered). */
const same = (r: PendingOrderResult) => [r.requestId, r.orderId, r.volume, r.price];

/** An operation whose answer may be lost: it either answers or fails as unreachable. */
async function op(call: Promise<PendingOrderResult>): Promise<void> {
  const failure = await call.then(
    () => null,
    (error: unknown) => error,
  );
  if (failure !== null) expect((failure as ConnectorError).code).toBe("unreachable");
}

/** Waits (in real time: the request may travel over a socket) until the server has run the operation. */
async function untilRun(op: PendingOperation): Promise<void> {
  for (let i = 0; i < 300 && op.times() === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(op.times()).toBe(1);
}

export function pendingOrdersContract(h: () => ConnectorHarness): void {
  /** The harness, or the case skipped where the connector does not carry pending orders (or the change of one) yet. */
  const carrying = (context: TestContext, needs = { modify: false }): ConnectorHarness & { pendingOrders: PendingOrdersCarried } => {
    const harness = h();
    if (!harness.pendingOrders || (needs.modify && !harness.pendingOrders.modify)) context.skip();
    return harness as ConnectorHarness & { pendingOrders: PendingOrdersCarried };
  };

  for (const [name, needs, setup] of OPERATIONS) {
    it(`${name}: once after a lost answer, retried by this connector and by a fresh one`, async (context) => {
      const harness = carrying(context, needs);
      const op = await setup(harness);
      harness.faults.loseNextOrderAnswer();
      const failure = await op.call(harness.connector).then(
        () => null,
        (error: unknown) => error,
      );
      if (failure !== null) {
        expect(failure).toBeInstanceOf(ConnectorError);
        expect((failure as ConnectorError).code).toBe("unreachable");
      }
      expect(op.times()).toBe(1);
      await harness.advance(0);
      await harness.connector.connect();
      const retried = await op.call(harness.connector);
      expect(op.times()).toBe(1);
      const fresh = await op.call(await harness.restarted());
      expect(op.times()).toBe(1);
      expect(same(fresh)).toEqual(same(retried));
    });

    it(`${name}: once after a timeout, retried by this connector and by a fresh one`, async (context) => {
      const harness = carrying(context, needs);
      const op = await setup(harness);
      harness.faults.slowNextOrder(harness.requestTimeoutMs * 2);
      const outcome = expectConnectorError(op.call(harness.connector), "timeout");
      await untilRun(op);
      await harness.tick(harness.requestTimeoutMs + 1);
      await outcome;
      await harness.advance(harness.requestTimeoutMs * 2);
      const retried = await op.call(harness.connector);
      const fresh = await op.call(await harness.restarted());
      expect(op.times()).toBe(1);
      expect(same(fresh)).toEqual(same(retried));
    });

    it(`${name}: once when the same request is sent concurrently`, async (context) => {
      const harness = carrying(context, needs);
      const op = await setup(harness);
      const [first, second] = await Promise.all([op.call(harness.connector), op.call(harness.connector)]);
      expect(second).toEqual(first);
      expect(op.times()).toBe(1);
    });

    it(`${name}: once from a fresh connector, which refuses the id for a different request`, async (context) => {
      const harness = carrying(context, needs);
      const op = await setup(harness);
      const first = await op.call(harness.connector);
      const fresh = await harness.restarted();
      expect(same(await op.call(fresh))).toEqual(same(first));
      expect((await expectConnectorError(op.other(harness.connector), "invalidRequest")).message).toMatch(/already used/);
      await expectConnectorError(op.other(fresh), "invalidRequest");
      expect(op.times()).toBe(1);
    });
  }

  it("says whether a pending order can be changed in place; where not, a change is refused before anything is sent", async (context) => {
    const harness = carrying(context);
    expect(harness.connector.capabilities.changePendingOrder).toBe(harness.pendingOrders.modify);
    if (harness.pendingOrders.modify) return;
    const login = await account(harness);
    const orderId = await placeOne(harness, login);
    const change = { requestId: uniqueId("pmod"), orderId, price: 1.091, sl: null, tp: null, expiration: null };
    expect((await expectConnectorError(harness.connector.modifyPendingOrder(change), "invalidRequest")).message).toMatch(/cancel it and place another/);
    expect(journalled(harness, orderId, (m) => /modif/i.test(m))).toBe(0);
    expect(await harness.connector.pendingOrders(login)).toMatchObject([{ id: orderId, price: 1.095 }]);
  });

  /** The harness, or the case skipped where its server keeps no request ids of its own to forget. */
  const forgetting = (context: TestContext, needs = { modify: false }) => {
    const harness = carrying(context, needs);
    if (!harness.faults.forgetRequestIds) context.skip();
    return { harness, forget: () => harness.faults.forgetRequestIds?.() };
  };

  it("a change already made is recognised from the order when the server forgot the request id, and not made again", async (context) => {
    const { harness, forget } = forgetting(context, { modify: true });
    const login = await account(harness);
    const orderId = await placeOne(harness, login);
    const request = { requestId: uniqueId("pmod"), orderId, price: 1.094, sl: 1.09, tp: 1.098, expiration: harness.now() + 86_400_000, login };
    const modified = () => journalled(harness, orderId, (m) => m.includes("modify order"));
    harness.faults.loseNextOrderAnswer();
    await op(harness.connector.modifyPendingOrder(request));
    expect(modified()).toBe(1);
    forget();
    await harness.advance(0);
    await harness.connector.connect();
    expect(await harness.connector.modifyPendingOrder(request)).toMatchObject({ orderId, price: 1.094, volume: 1000 });
    expect(await (await harness.restarted()).modifyPendingOrder(request)).toMatchObject({ orderId, price: 1.094, volume: 1000 });
    expect(modified()).toBe(1);
    // A change not made yet is still sent.
    await harness.connector.modifyPendingOrder({ ...request, requestId: uniqueId("pmod"), price: 1.093 });
    expect(modified()).toBe(2);
  });

  it("a cancel already made is recognised from the account's history when the server forgot the request id; an order that expired or filled is not found", async (context) => {
    const { harness, forget } = forgetting(context);
    const login = await account(harness);
    const orderId = await placeOne(harness, login);
    const request = { requestId: uniqueId("pcancel"), orderId, login };
    const cancelled = () => journalled(harness, orderId, (m) => m.endsWith(" cancelled"));
    harness.faults.loseNextOrderAnswer();
    await op(harness.connector.cancelPendingOrder(request));
    expect(cancelled()).toBe(1);
    forget();
    await harness.advance(0);
    await harness.connector.connect();
    expect(await harness.connector.cancelPendingOrder(request)).toMatchObject({ orderId, price: 1.095, volume: 1000 });
    // A fresh connector, told the account, finds it too.
    expect(await (await harness.restarted()).cancelPendingOrder(request)).toMatchObject({ orderId, price: 1.095, volume: 1000 });
    expect(cancelled()).toBe(1);

    // An order that expired was not cancelled by anyone: there is nothing to cancel, and the message says why.
    const expiring = (await harness.connector.placePendingOrder(placeRequest(login, 1.094, { expiration: harness.now() + 60_000 }))).orderId;
    await harness.advance(120_000);
    harness.simulation.engine.setQuote(SYMBOL, BID, ASK);
    expect(
      (await expectConnectorError(harness.connector.cancelPendingOrder({ requestId: uniqueId("pcancel"), orderId: expiring, login }), "notFound")).message,
    ).toMatch(/expired/);
    // Nor one that filled.
    const filling = await placeOne(harness, login, 1.0999);
    harness.simulation.engine.setQuote(SYMBOL, 1.09978, 1.0999);
    expect(
      (await expectConnectorError(harness.connector.cancelPendingOrder({ requestId: uniqueId("pcancel"), orderId: filling, login }), "notFound")).message,
    ).toMatch(/filled/);
    expect((await harness.connector.openPositions(login)).map((p) => p.id)).toEqual([filling]);
  });

  it("pending orders placed, modified, cancelled and triggered are each seen once on the stream and in the history", async (context) => {
    const harness = carrying(context);
    const { connector } = harness;
    const login = await account(harness);
    const stream = collect(connector.subscribe());
    try {
      // The stream is given the time to see each step (a server polled without Toolbox's plugin shows only what a poll sees).
      const first = await connector.placePendingOrder(placeRequest(login, 1.09));
      await settle(harness);
      const { modify, comment } = harness.pendingOrders;
      if (modify) {
        await connector.modifyPendingOrder({ requestId: uniqueId("pmod"), orderId: first.orderId, price: 1.091, sl: null, tp: null, expiration: null });
        await settle(harness);
      }
      await connector.cancelPendingOrder({ requestId: uniqueId("pcancel"), orderId: first.orderId });
      const second = await connector.placePendingOrder(placeRequest(login, 1.095, { comment: "fills" }));
      await settle(harness);
      // The market comes down to the buy limit: the server fills it.
      harness.simulation.engine.setQuote(SYMBOL, 1.09488, 1.095);
      expect(await connector.pendingOrders(login)).toEqual([]);
      const [position] = await connector.openPositions(login);
      expect(position).toMatchObject({ symbol: SYMBOL, side: "buy", volume: 1000, ...(comment ? { comment: "fills" } : {}) });
      for (let i = 0; i < 20 && !stream.events.some((e) => e.type === "orderFilled" && e.login === login); i++) await settle(harness);

      const mine = stream.events.filter((e) => e.login === login && e.type !== "accountChanged");
      const orderEvents = mine.filter((e) => e.type.startsWith("order"));
      const changed = modify ? (["orderModified"] as const) : [];
      expect(orderEvents.map((e) => e.type)).toEqual(["orderPlaced", ...changed, "orderCancelled", "orderPlaced", "orderFilled"]);
      expect(orderEvents.map((e) => ("order" in e ? e.order.id : null))).toEqual([
        first.orderId,
        ...changed.map(() => first.orderId),
        first.orderId,
        second.orderId,
        second.orderId,
      ]);
      const [cancelled, , filled] = orderEvents.slice(modify ? 2 : 1);
      if (modify) expect(orderEvents[1]).toMatchObject({ order: { price: 1.091 } });
      expect(cancelled).toMatchObject({ cause: "cancelled" });
      if (filled?.type !== "orderFilled") throw new Error("no fill");
      expect(filled.order).toMatchObject({ type: "buyLimit", price: 1.095, ...(comment ? { comment: "fills" } : {}) });
      expect(filled.position).toMatchObject({ id: position?.id, orderId: second.orderId });
      // Toolbox's tag is kept apart from the comment a dealer reads.
      expect(orderEvents.every((e) => "order" in e && !e.order.comment.includes("~"))).toBe(true);
      const opened = mine.filter((e) => e.type === "positionOpened");
      expect(opened).toHaveLength(1);
      expect(opened[0]).toMatchObject({ position: { id: position?.id, orderId: second.orderId } });
      const streamedDeals = mine.filter((e) => e.type === "dealAdded" && e.deal.entry === "in");
      expect(streamedDeals).toHaveLength(1);

      const history = await connector.dealHistory({ login, from: 0, to: harness.now() + 1000 });
      const entries = history.filter((d) => d.entry === "in");
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({ positionId: position?.id, volume: 1000, price: 1.095 });
      expect(harness.simulation.engine.orderHistory(login, 0, harness.now() + FAR).map((f) => [f.order.id, f.state])).toEqual([
        [first.orderId, "cancelled"],
        [second.orderId, "filled"],
      ]);
    } finally {
      await stream.stop();
    }
  });

  it("the order history lists each order that left the book once, with how and when it ended and the position a fill opened", async (context) => {
    const harness = carrying(context);
    const { connector } = harness;
    const login = await account(harness);
    const start = harness.now();
    const cancelled = await placeOne(harness, login, 1.09);
    await connector.cancelPendingOrder({ requestId: uniqueId("pcancel"), orderId: cancelled, login });
    const filling = await placeOne(harness, login, 1.095);
    const waiting = await placeOne(harness, login, 1.08);
    harness.simulation.engine.setQuote(SYMBOL, 1.09488, 1.095);
    const [position] = await connector.openPositions(login);
    // Oldest first; orders that ended at the same moment (Match-Trader: placed at the same moment) in any order.
    const history = (await connector.orderHistory({ login, from: start - 1000, to: harness.now() + 1000 })).sort((a, b) => a.state.localeCompare(b.state));
    // MT4 lists no filled order: it became the trade under its ticket (the position's id).
    const fills = connector.platform !== "MT4";
    expect(history.map((f) => [f.order.id, f.state])).toEqual([[cancelled, "cancelled"], ...(fills ? [[filling, "filled"]] : [])]);
    if (fills) expect(history[1]).toMatchObject({ positionId: position?.id, order: { type: "buyLimit", price: 1.095, login, symbol: SYMBOL } });
    else expect(position?.id).toBe(filling);
    expect(history[0]).toMatchObject({ positionId: null, order: { type: "buyLimit", price: 1.09, volume: 1000, login, symbol: SYMBOL } });
    for (const f of history) expect(f.time === null).toBe(harness.pendingOrders.endTime === false);
    // Of the whole server too (the MT4 gateway and Match-Trader read it account by account), never the waiting one.
    const all = await connector.orderHistory({ from: start - 1000, to: harness.now() + 1000 });
    const ids = (list: { order: { id: string } }[]) => list.map((f) => f.order.id).sort();
    expect(ids(all.filter((f) => f.order.login === login))).toEqual(ids(history));
    expect(all.some((f) => f.order.id === waiting)).toBe(false);
    // Outside the window: nothing.
    expect(await connector.orderHistory({ login, from: 0, to: start - 60_000 })).toEqual([]);
  });
}
