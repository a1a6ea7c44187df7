/**
 * Contract, for connectors that carry pending orders (`ConnectorHarness.pendingOrders`): placing,
 * changing and cancelling a pending order exactly once per request id after a lost answer, a
 * timeout, concurrently and from a fresh connector, a reused id with another request refused; each
 * operation seen once on the stream; and the platform's triggering, whose fill reaches the stream
 * as `orderFilled` with the position it opened, and the history as one entry deal. What the server
 * did is counted on the simulation behind it (its journal), apart from the connector under test.
 */
import { expect, it, type TestContext } from "vitest";
import type { PendingOrderResult, PlacePendingOrderRequest } from "../../../../core/trading/index.ts";
import type { TradePlatformConnector } from "../../../../server/connectors/connector.ts";
import { ConnectorError } from "../../../../server/connectors/errors.ts";
import type { ConnectorHarness } from "./harness.ts";
import { collect, expectConnectorError, fundedAccount, settle, uniqueId } from "./helpers.ts";

const FAR = 10 * 365 * 86_400_000;
const SYMBOL = "EURUSD";
const BID = 1.1;
const ASK = 1.10012;
/** Far enough from the market (1,000 points) that the feed does not reach it while a test runs. */
const LEVEL = 1.09;

interface PendingOperation {
  call(connector: TradePlatformConnector): Promise<PendingOrderResult>;
  /** The same request id for another request. */
  other(connector: TradePlatformConnector): Promise<PendingOrderResult>;
  /** How many times the server ran it (its journal). */
  times(): number;
  /** The order the operation is about, once known. */
  orderId(): string | null;
}

function ran(h: ConnectorHarness, login: string, text: string): number {
  return h.simulation.engine.journal(0, h.now() + FAR, { login, text }, 1000).length;
}

async function ready(h: ConnectorHarness): Promise<string> {
  const login = await fundedAccount(h.connector);
  h.simulation.engine.setQuote(SYMBOL, BID, ASK);
  return login;
}

function placeRequest(login: string, extra: Partial<PlacePendingOrderRequest> = {}): PlacePendingOrderRequest {
  return {
    requestId: uniqueId("po"),
    login,
    symbol: SYMBOL,
    type: "buyLimit",
    volume: 1000,
    price: LEVEL,
    sl: null,
    tp: null,
    expiration: null,
    comment: "contract",
    ...extra,
  };
}

const PENDING_OPERATIONS: [string, (h: ConnectorHarness) => Promise<PendingOperation>][] = [
  [
    "pending order placed",
    async (h) => {
      const login = await ready(h);
      const request = placeRequest(login);
      let placed: string | null = null;
      return {
        call: async (c) => {
          const result = await c.placePendingOrder(request);
          placed = result.orderId;
          return result;
        },
        other: (c) => c.placePendingOrder({ ...request, price: LEVEL - 0.001 }),
        times: () => ran(h, login, " placed"),
        orderId: () => placed,
      };
    },
  ],
  [
    "pending order modified",
    async (h) => {
      const login = await ready(h);
      const { orderId } = await h.connector.placePendingOrder(placeRequest(login));
      const request = { requestId: uniqueId("pm"), orderId, price: LEVEL - 0.001, sl: LEVEL - 0.01, tp: null, expiration: null };
      return {
        call: (c) => c.modifyPendingOrder(request),
        other: (c) => c.modifyPendingOrder({ ...request, price: LEVEL - 0.002 }),
        times: () => ran(h, login, `modify order #${orderId} `),
        orderId: () => orderId,
      };
    },
  ],
  [
    "pending order cancelled",
    async (h) => {
      const login = await ready(h);
      const { orderId } = await h.connector.placePendingOrder(placeRequest(login));
      const second = await h.connector.placePendingOrder(placeRequest(login));
      const request = { requestId: uniqueId("pc"), orderId };
      return {
        call: (c) => c.cancelPendingOrder(request),
        other: (c) => c.cancelPendingOrder({ ...request, orderId: second.orderId }),
        times: () =>
          h.simulation.engine.journal(0, h.now() + FAR, { login, text: `order #${orderId} ` }, 1000).filter((r) => r.message.endsWith(" cancelled")).length,
        orderId: () => orderId,
      };
    },
  ],
];

const same = (r: PendingOrderResult) => [r.requestId, r.orderId, r.price, r.volume];

async function untilRun(op: PendingOperation): Promise<void> {
  for (let i = 0; i < 300 && op.times() === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(op.times()).toBe(1);
}

/** Registers the section; each test is skipped for a connector whose harness does not carry pending orders. */
export function pendingOrdersOnceContract(h: () => ConnectorHarness): void {
  const harnessFor = (context: TestContext): ConnectorHarness => {
    const harness = h();
    if (!harness.pendingOrders) context.skip();
    return harness;
  };

  for (const [name, setup] of PENDING_OPERATIONS) {
    it(`${name}: once after a lost answer, retried by this connector and by a fresh one, and seen once on the stream`, async (context) => {
      const harness = harnessFor(context);
      const op = await setup(harness);
      const stream = collect(harness.connector.subscribe());
      try {
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
        await settle(harness);
        const kind = name.endsWith("placed") ? "orderPlaced" : name.endsWith("modified") ? "orderModified" : "orderCancelled";
        const seen = stream.events.filter((e) => e.type === kind && "order" in e && e.order.id === op.orderId());
        expect(seen).toHaveLength(1);
      } finally {
        await stream.stop();
      }
    });

    it(`${name}: once after a timeout, retried by this connector and by a fresh one`, async (context) => {
      const harness = harnessFor(context);
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
      const harness = harnessFor(context);
      const op = await setup(harness);
      const [first, second] = await Promise.all([op.call(harness.connector), op.call(harness.connector)]);
      expect(second).toEqual(first);
      expect(op.times()).toBe(1);
    });

    it(`${name}: once from a fresh connector, which refuses the id for a different request`, async (context) => {
      const harness = harnessFor(context);
      const op = await setup(harness);
      const first = await op.call(harness.connector);
      const fresh = await harness.restarted();
      expect(same(await op.call(fresh))).toEqual(same(first));
      expect((await expectConnectorError(op.other(harness.connector), "invalidRequest")).message).toMatch(/already used/);
      await expectConnectorError(op.other(fresh), "invalidRequest");
      expect(op.times()).toBe(1);
    });
  }

  it("a pending order the price reaches fills once: orderFilled with its position on the stream, one entry deal in the history", async (context) => {
    const harness = harnessFor(context);
    const { connector } = harness;
    const login = await ready(harness);
    const stream = collect(connector.subscribe());
    try {
      const placed = await connector.placePendingOrder(placeRequest(login, { type: "buyStop", price: 1.101, sl: 1.09, tp: 1.12 }));
      expect((await connector.pendingOrders(login)).map((o) => o.id)).toEqual([placed.orderId]);
      harness.simulation.engine.setQuote(SYMBOL, 1.10088, 1.101);
      await settle(harness);
      expect(await connector.pendingOrders(login)).toEqual([]);
      const [position, ...others] = await connector.openPositions(login);
      expect(others).toEqual([]);
      expect(position).toMatchObject({ side: "buy", volume: 1000, sl: 1.09, tp: 1.12 });
      const fills = stream.events.filter((e) => e.type === "orderFilled");
      expect(fills).toHaveLength(1);
      expect(fills[0]).toMatchObject({
        order: { id: placed.orderId, type: "buyStop" },
        position: { id: position?.id, orderId: placed.orderId, side: "buy", volume: 1000 },
      });
      const opened = stream.events.filter((e) => e.type === "positionOpened");
      expect(opened).toHaveLength(1);
      expect(opened[0]).toMatchObject({ position: { id: position?.id, orderId: placed.orderId } });
      expect(stream.events.filter((e) => e.type === "orderCancelled")).toEqual([]);
      const entries = (await connector.dealHistory({ login, from: 0, to: harness.now() + 1000 })).filter((d) => d.entry === "in");
      expect(entries.map((d) => d.positionId)).toEqual([position?.id]);
    } finally {
      await stream.stop();
    }
  });
}
