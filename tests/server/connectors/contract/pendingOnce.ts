/**
 * Contract: pending-order operations exactly once per request id, whatever happens to their answer
 * (lost, late past the timeout, sent twice at once, asked again by a fresh connector, the id reused
 * for another request), and placed, cancelled and triggered orders each seen once on the stream and
 * in history. What the server did is counted on the simulation behind it (its journal), apart from
 * the connector under test. Runs for the connectors whose harness says they carry pending orders
 * (`ConnectorHarness.pendingOrders`); a change of an order only where the platform has one.
 */
import { expect, it } from "vitest";
import { pointSize, type PendingOrderResult, type PendingOrderType } from "../../../../core/trading/index.ts";
import type { TradePlatformConnector } from "../../../../server/connectors/connector.ts";
import { ConnectorError } from "../../../../server/connectors/errors.ts";
import type { ConnectorHarness } from "./harness.ts";
import { collect, expectConnectorError, fundedAccount, settle, uniqueId } from "./helpers.ts";

const FAR = 10 * 365 * 86_400_000;

interface PendingOperation {
  call(connector: TradePlatformConnector): Promise<PendingOrderResult>;
  /** The same request id for another request. */
  other(connector: TradePlatformConnector): Promise<PendingOrderResult>;
  times(): number;
}

/** The server's journal lines for one account that end with `what`: each is one thing the server did. */
function journalled(h: ConnectorHarness, login: string, text: string, what: string): number {
  return h.simulation.engine.journal(0, h.now() + FAR, { login, text }, 1000).filter((j) => j.message.endsWith(what)).length;
}

/** A level `points` away from the market on the waiting side of `type`. */
async function level(h: ConnectorHarness, type: PendingOrderType, points = 200): Promise<number> {
  const [quote] = await h.connector.getQuotes(["EURUSD"]);
  if (!quote) throw new Error("no EURUSD quote");
  const away = points * pointSize(5);
  const price = type === "buyLimit" ? quote.ask - away : type === "sellLimit" ? quote.bid + away : type === "buyStop" ? quote.ask + away : quote.bid - away;
  return Number(price.toFixed(5));
}

async function placeOne(h: ConnectorHarness, login: string, type: PendingOrderType = "buyLimit", points = 200): Promise<string> {
  const price = await level(h, type, points);
  return (await h.connector.placePendingOrder({ requestId: uniqueId("setup"), login, symbol: "EURUSD", type, volume: 1000, price })).orderId;
}

const OPERATIONS: [string, boolean, (h: ConnectorHarness) => Promise<PendingOperation>][] = [
  [
    "place a pending order",
    false,
    async (h) => {
      const login = await fundedAccount(h.connector);
      const price = await level(h, "buyLimit");
      const request = { requestId: uniqueId("place"), login, symbol: "EURUSD", type: "buyLimit" as const, volume: 1000, price };
      return {
        call: (c) => c.placePendingOrder(request),
        other: (c) => c.placePendingOrder({ ...request, volume: 2000 }),
        times: () => journalled(h, login, "order #", "placed"),
      };
    },
  ],
  [
    "change a pending order",
    true,
    async (h) => {
      const login = await fundedAccount(h.connector);
      const orderId = await placeOne(h, login);
      const price = await level(h, "buyLimit", 300);
      const request = { requestId: uniqueId("modify"), orderId, price, sl: null, tp: null, expiration: null };
      return {
        call: (c) => c.modifyPendingOrder(request),
        other: (c) => c.modifyPendingOrder({ ...request, price: Number((price - 0.001).toFixed(5)) }),
        times: () => journalled(h, login, `modify order #${orderId}`, String(price)),
      };
    },
  ],
  [
    "cancel a pending order",
    false,
    async (h) => {
      const login = await fundedAccount(h.connector);
      const orderId = await placeOne(h, login);
      const second = await placeOne(h, login, "sellLimit");
      const request = { requestId: uniqueId("cancel"), orderId };
      return {
        call: (c) => c.cancelPendingOrder(request),
        other: (c) => c.cancelPendingOrder({ ...request, orderId: second }),
        times: () => journalled(h, login, `order #${orderId}`, "cancelled"),
      };
    },
  ],
];

async function untilRun(op: PendingOperation): Promise<void> {
  for (let i = 0; i < 300 && op.times() === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(op.times()).toBe(1);
}

const same = (r: PendingOrderResult) => [r.requestId, r.orderId, r.price, r.volume];

export function pendingOnceContract(h: () => ConnectorHarness): void {
  // Connectors that can change an order run contract/pendingOrders.ts instead (to be made one suite).
  const carried = (harness: ConnectorHarness, modify: boolean) => harness.pendingOrders?.modify === false && !modify;

  for (const [name, modify, setup] of OPERATIONS) {
    it(`${name}: once after a lost answer, retried by this connector and by a fresh one`, async (context) => {
      const harness = h();
      if (!carried(harness, modify)) return context.skip();
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
      const harness = h();
      if (!carried(harness, modify)) return context.skip();
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
      const harness = h();
      if (!carried(harness, modify)) return context.skip();
      const op = await setup(harness);
      const [first, second] = await Promise.all([op.call(harness.connector), op.call(harness.connector)]);
      expect(second).toEqual(first);
      expect(op.times()).toBe(1);
    });

    it(`${name}: once from a fresh connector, which refuses the id for a different request`, async (context) => {
      const harness = h();
      if (!carried(harness, modify)) return context.skip();
      const op = await setup(harness);
      const first = await op.call(harness.connector);
      const fresh = await harness.restarted();
      expect(same(await op.call(fresh))).toEqual(same(first));
      expect((await expectConnectorError(op.other(harness.connector), "invalidRequest")).message).toMatch(/already used/);
      await expectConnectorError(op.other(fresh), "invalidRequest");
      expect(op.times()).toBe(1);
    });
  }

  it("placed, cancelled and triggered orders are each seen once on the stream and in history", async (context) => {
    const harness = h();
    if (!carried(harness, false)) return context.skip();
    const { connector } = harness;
    const login = await fundedAccount(connector);
    const stream = collect(connector.subscribe());
    try {
      const [quote] = await connector.getQuotes(["EURUSD"]);
      if (!quote) throw new Error("no EURUSD quote");
      const price = await level(harness, "buyLimit");
      const filled = await connector.placePendingOrder({ requestId: uniqueId("fill"), login, symbol: "EURUSD", type: "buyLimit", volume: 1000, price });
      const cancelled = await connector.placePendingOrder({
        requestId: uniqueId("gone"),
        login,
        symbol: "EURUSD",
        type: "sellLimit",
        volume: 1000,
        price: await level(harness, "sellLimit"),
      });
      expect((await connector.pendingOrders(login)).map((o) => o.id).sort()).toEqual([filled.orderId, cancelled.orderId].sort());
      await connector.cancelPendingOrder({ requestId: uniqueId("cancel"), orderId: cancelled.orderId });
      // The market reaches the buy limit: the server fills it into a position.
      const spread = quote.ask - quote.bid;
      harness.simulation.engine.setQuote("EURUSD", Number((price - spread).toFixed(5)), price);
      await settle(harness);
      for (let i = 0; i < 50 && !stream.events.some((e) => e.type === "orderFilled"); i++) await settle(harness);

      const mine = stream.events.filter((e) => e.login === login);
      const ofOrder = (id: string) => mine.filter((e) => "order" in e && e.order.id === id).map((e) => e.type);
      expect(ofOrder(filled.orderId)).toEqual(["orderPlaced", "orderFilled"]);
      expect(ofOrder(cancelled.orderId)).toEqual(["orderPlaced", "orderCancelled"]);
      const fill = mine.find((e) => e.type === "orderFilled");
      if (fill?.type !== "orderFilled") throw new Error("no fill");
      expect(fill.position.orderId).toBe(filled.orderId);
      expect(mine.filter((e) => e.type === "positionOpened").map((e) => e.type === "positionOpened" && e.position.id)).toEqual([fill.position.id]);

      expect(await connector.pendingOrders(login)).toEqual([]);
      expect((await connector.openPositions(login)).map((p) => p.id)).toEqual([fill.position.id]);
      const deals = await connector.dealHistory({ login, from: 0, to: harness.now() + 1000 });
      expect(deals.filter((d) => d.entry === "in").map((d) => d.positionId)).toEqual([fill.position.id]);
      expect(journalled(harness, login, "order #", "placed")).toBe(2);
      expect(journalled(harness, login, `order #${cancelled.orderId}`, "cancelled")).toBe(1);
      // A cancel asked after the fill is refused: the order is no longer pending.
      await expectConnectorError(connector.cancelPendingOrder({ requestId: uniqueId("late"), orderId: filled.orderId }), "notFound");
    } finally {
      await stream.stop();
    }
  });
}
