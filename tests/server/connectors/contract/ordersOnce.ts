/**
 * Contract: every order operation exactly once per request id, whatever happens to its answer.
 * What the server did is counted on the simulation behind it (entry and exit deals, the journal's
 * stops changes), apart from the connector under test. Faults go through the harness (each
 * server's fault API): an answer lost after the order ran, an answer late past the connector's
 * timeout. Then the platform's own rules for orders: stops that trigger, the symbol's largest
 * volume, the deviation.
 */
import { expect, it } from "vitest";
import { pointSize, type OrderResult } from "../../../../core/trading/index.ts";
import type { TradePlatformConnector } from "../../../../server/connectors/connector.ts";
import { ConnectorError } from "../../../../server/connectors/errors.ts";
import type { ConnectorHarness } from "./harness.ts";
import { expectConnectorError, fundedAccount, uniqueId } from "./helpers.ts";
import { pendingOrdersContract } from "./pendingOrders.ts";

const FAR = 10 * 365 * 86_400_000;

/** One order operation on a fresh account, with how many times the server ran it. */
interface Operation {
  call(connector: TradePlatformConnector): Promise<OrderResult>;
  /** The same request id for another request. */
  other(connector: TradePlatformConnector): Promise<OrderResult>;
  times(): number;
}

function exits(h: ConnectorHarness, login: string, positionId: string): number {
  return h.simulation.engine.history(login, 0, h.now() + FAR).deals.filter((d) => d.positionId === positionId && d.entry === "out").length;
}

async function openOne(h: ConnectorHarness, login: string): Promise<string> {
  return (await h.connector.placeOrder({ requestId: uniqueId("setup"), login, symbol: "EURUSD", side: "buy", volume: 1000 })).positionId;
}

async function stops(h: ConnectorHarness, distancePoints = 300) {
  const [quote] = await h.connector.getQuotes(["EURUSD"]);
  if (!quote) throw new Error("no EURUSD quote");
  const point = pointSize(5);
  return {
    quote,
    sl: Number((quote.bid - distancePoints * point).toFixed(5)),
    tp: Number((quote.bid + distancePoints * point).toFixed(5)),
  };
}

const OPERATIONS: [string, (h: ConnectorHarness) => Promise<Operation>][] = [
  [
    "market open",
    async (h) => {
      const login = await fundedAccount(h.connector);
      const request = { requestId: uniqueId("open"), login, symbol: "EURUSD", side: "buy" as const, volume: 1000 };
      return {
        call: (c) => c.placeOrder(request),
        other: (c) => c.placeOrder({ ...request, volume: 2000 }),
        times: () => h.simulation.engine.history(login, 0, h.now() + FAR).deals.filter((d) => d.entry === "in").length,
      };
    },
  ],
  [
    "modify stops",
    async (h) => {
      const login = await fundedAccount(h.connector);
      const positionId = await openOne(h, login);
      const { sl, tp } = await stops(h);
      const request = { requestId: uniqueId("modify"), positionId, sl, tp };
      return {
        call: (c) => c.modifyPosition(request),
        other: (c) => c.modifyPosition({ ...request, tp: Number((tp + 0.001).toFixed(5)) }),
        times: () => h.simulation.engine.journal(0, h.now() + FAR, { text: `modify #${positionId}` }, 1000).length,
      };
    },
  ],
  [
    "partial close",
    async (h) => {
      const login = await fundedAccount(h.connector);
      const positionId = await openOne(h, login);
      const request = { requestId: uniqueId("part"), positionId, volume: 400 };
      return {
        call: (c) => c.closePosition(request),
        other: (c) => c.closePosition({ ...request, volume: 300 }),
        times: () => exits(h, login, positionId),
      };
    },
  ],
  [
    "close",
    async (h) => {
      const login = await fundedAccount(h.connector);
      const positionId = await openOne(h, login);
      const second = await openOne(h, login);
      const request = { requestId: uniqueId("close"), positionId };
      return {
        call: (c) => c.closePosition(request),
        other: (c) => c.closePosition({ ...request, positionId: second }),
        times: () => exits(h, login, positionId),
      };
    },
  ],
];

/** Waits (in real time: the request may travel over a socket) until the server has run the operation. */
async function untilRun(op: Operation): Promise<void> {
  for (let i = 0; i < 300 && op.times() === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(op.times()).toBe(1);
}

/**
 * The same result, read by another connector: the ids and what was filled (times may be rounded
 * by the platform's reads; a stops change reports the price of the moment it is asked).
 */
const same = (r: OrderResult) => [r.requestId, r.positionId, r.dealId, r.volume, r.dealId === null ? null : r.price];

export function ordersOnceContract(h: () => ConnectorHarness): void {
  pendingOrdersContract(h);
  for (const [name, setup] of OPERATIONS) {
    it(`${name}: once after a lost answer, retried by this connector and by a fresh one`, async () => {
      const harness = h();
      const op = await setup(harness);
      harness.faults.loseNextOrderAnswer();
      // A connector may find the order itself once the link is back, or say it could not tell.
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

    it(`${name}: once after a timeout, retried by this connector and by a fresh one`, async () => {
      const harness = h();
      const op = await setup(harness);
      harness.faults.slowNextOrder(harness.requestTimeoutMs * 2);
      const outcome = expectConnectorError(op.call(harness.connector), "timeout");
      await untilRun(op);
      // The clock alone: letting the network settle would wait for the answer the server holds back.
      await harness.tick(harness.requestTimeoutMs + 1);
      await outcome;
      await harness.advance(harness.requestTimeoutMs * 2);
      const retried = await op.call(harness.connector);
      const fresh = await op.call(await harness.restarted());
      expect(op.times()).toBe(1);
      expect(same(fresh)).toEqual(same(retried));
    });

    it(`${name}: once when the same request is sent concurrently`, async () => {
      const harness = h();
      const op = await setup(harness);
      const [first, second] = await Promise.all([op.call(harness.connector), op.call(harness.connector)]);
      expect(second).toEqual(first);
      expect(op.times()).toBe(1);
    });

    it(`${name}: once from a fresh connector, which refuses the id for a different request`, async () => {
      const harness = h();
      const op = await setup(harness);
      const first = await op.call(harness.connector);
      const fresh = await harness.restarted();
      expect(same(await op.call(fresh))).toEqual(same(first));
      expect((await expectConnectorError(op.other(harness.connector), "invalidRequest")).message).toMatch(/already used/);
      await expectConnectorError(op.other(fresh), "invalidRequest");
      expect(op.times()).toBe(1);
    });
  }

  it("the server's stop loss and take profit close positions, and a close asked afterwards is refused as not open", async () => {
    const harness = h();
    const { connector } = harness;
    const login = await fundedAccount(connector);
    const buy = await connector.placeOrder({ requestId: uniqueId("sl"), login, symbol: "EURUSD", side: "buy", volume: 100 });
    const sell = await connector.placeOrder({ requestId: uniqueId("tp"), login, symbol: "EURUSD", side: "sell", volume: 100 });
    const symbol = (await connector.listSymbols()).find((s) => s.name === "EURUSD");
    if (!symbol) throw new Error("no EURUSD");
    const { quote } = await stops(harness);
    const near = (symbol.stopsLevel + 2) * pointSize(symbol.digits);
    const at = (price: number) => Number(price.toFixed(symbol.digits));
    // Stops just past the server's stops level on both sides: prices soon reach one of them.
    await connector.modifyPosition({ requestId: uniqueId("m1"), positionId: buy.positionId, sl: at(quote.bid - near), tp: at(quote.bid + near) });
    await connector.modifyPosition({ requestId: uniqueId("m2"), positionId: sell.positionId, sl: at(quote.ask + near), tp: at(quote.ask - near) });
    for (let i = 0; i < 600 && (await connector.openPositions(login)).length > 0; i++) await harness.advance(1000);
    expect(await connector.openPositions(login)).toEqual([]);
    const deals = await connector.dealHistory({ login, from: 0, to: harness.now() + 1000 });
    const exitReasons = deals.filter((d) => d.entry === "out").map((d) => d.reason);
    expect(exitReasons).toHaveLength(2);
    expect(exitReasons.every((r) => r === "sl" || r === "tp")).toBe(true);
    await expectConnectorError(connector.closePosition({ requestId: uniqueId("late"), positionId: buy.positionId }), "notFound");
  });

  it("refuses an order above the symbol's largest volume with the platform's reason, not for money", async () => {
    const harness = h();
    const { connector } = harness;
    const login = await fundedAccount(connector, 100_000_000);
    const [symbol] = (await connector.listSymbols()).filter((s) => s.name === "EURUSD");
    if (!symbol) throw new Error("no EURUSD");
    const refused = await expectConnectorError(
      connector.placeOrder({ requestId: uniqueId("max"), login, symbol: "EURUSD", side: "buy", volume: symbol.volumeMax + symbol.volumeStep }),
      "rejected",
    );
    expect(refused.reason).toBe("invalidVolume");
    const largest = await connector.placeOrder({ requestId: uniqueId("max"), login, symbol: "EURUSD", side: "buy", volume: symbol.volumeMax });
    expect(largest.volume).toBe(symbol.volumeMax);
  });

  it("refuses an order further than the deviation allows from the price the caller saw, and fills one within it", async () => {
    const harness = h();
    const { connector } = harness;
    const login = await fundedAccount(connector);
    const { quote } = await stops(harness);
    const far = Number((quote.ask + 500 * pointSize(5)).toFixed(5));
    const base = { login, symbol: "EURUSD", side: "buy" as const, volume: 100 };
    const refused = await expectConnectorError(
      connector.placeOrder({ ...base, requestId: uniqueId("dev"), expectedPrice: far, maxDeviationPoints: 10 }),
      "rejected",
    );
    expect(refused.reason).toBe("priceChanged");
    expect(await connector.openPositions(login)).toEqual([]);
    const filled = await connector.placeOrder({ ...base, requestId: uniqueId("dev"), expectedPrice: quote.ask, maxDeviationPoints: 1000 });
    expect(Math.abs(filled.price - quote.ask)).toBeLessThanOrEqual(1000 * pointSize(5));
  });
}
