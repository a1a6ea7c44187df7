/**
 * MT4 orders exactly once through the gateway's request id (docs/mt4-gateway.md): the connector
 * refuses ids the gateway would refuse before sending anything; an order whose answer is lost with
 * the connection (the gateway's `dropAfterNextOrder` fault) is answered from the gateway's memory
 * when retried, also by a fresh connector; and MT4 commands decode as they are: buy, sell, and
 * pending orders never as positions.
 */
import { Client } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { mt4Codec } from "../../../server/connectors/mt4/codec.ts";
import { MT4_CMD, type Mt4TradeRecord } from "../../../server/connectors/mt4/native.ts";
import { DEFAULT_MANAGER } from "../../../server/connectors/simulated/server.ts";
import { expectConnectorError, fundedAccount, uniqueId } from "./contract/helpers.ts";
import { mt4GatewayHarness, testCertificate } from "./mt4GatewayHarness.ts";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function harness() {
  const h = await mt4GatewayHarness()();
  cleanups.push(() => h.close());
  await h.connector.connect();
  return h;
}

const codec = mt4Codec({ timeZoneOffsetMinutes: 120 });

function trade(cmd: number, fields: Partial<Mt4TradeRecord> = {}): Mt4TradeRecord {
  return {
    order: 5001 + cmd,
    login: 1001,
    symbol: "EURUSD",
    cmd,
    volume: 1,
    open_time: 1_700_000_000,
    open_price: 1.1,
    close_time: 0,
    close_price: 1.1002,
    expiration: 0,
    sl: 0,
    tp: 0,
    commission: 0,
    storage: 0,
    profit: 0,
    magic: 0,
    comment: "",
    reason: 2,
    activation: 0,
    close_reason: 0,
    ...fields,
  };
}

const PENDING = [MT4_CMD.buyLimit, MT4_CMD.sellLimit, MT4_CMD.buyStop, MT4_CMD.sellStop];

describe("MT4 commands", () => {
  it("decode OP_BUY as buy and OP_SELL as sell, and a pending order never as a position", () => {
    expect(codec.position.decode(trade(MT4_CMD.buy)).side).toBe("buy");
    expect(codec.position.decode(trade(MT4_CMD.sell)).side).toBe("sell");
    for (const cmd of PENDING) expect(() => codec.position.decode(trade(cmd))).toThrow(/not a position/);
    expect(() => codec.position.decode(trade(9))).toThrow(/unknown command 9/);
  });

  it("leave pending orders out of the history (they are no deals) and carry them on the stream as orders, never as positions", () => {
    const closed = trade(MT4_CMD.sell, { order: 7000, close_time: 1_700_000_600, close_price: 1.09 });
    const deleted = PENDING.map((cmd) => trade(cmd, { order: 7100 + cmd, close_time: 1_700_000_300 }));
    const waiting = PENDING.map((cmd) => trade(cmd, { order: 7200 + cmd }));
    const deals = codec.history.decode([closed, ...deleted], [trade(MT4_CMD.buy, { order: 7300 }), ...waiting]);
    expect(deals.map((d) => [d.id, d.action, d.entry]).sort()).toEqual(
      [
        ["7000:in", "sell", "in"],
        ["7000:out", "buy", "out"],
        ["7300:in", "buy", "in"],
      ].sort(),
    );
    const orderEvent = { add: "orderPlaced", update: "orderModified", close: "orderCancelled" } as const;
    for (const cmd of PENDING)
      for (const transaction of ["add", "update", "close"] as const) {
        const events = codec.event.decode({ time: 1_700_000_000, pumps: [{ type: "trade", transaction, trade: trade(cmd) }] });
        expect(events.map((e) => e.type)).toEqual([orderEvent[transaction]]);
      }
    const opened = codec.event.decode({ time: 1_700_000_000, pumps: [{ type: "trade", transaction: "add", trade: trade(MT4_CMD.sell) }] });
    expect(opened.map((e) => e.type)).toEqual(["positionOpened", "dealAdded"]);
  });

  it("the gateway places a pending command as a waiting order, never a market trade, and refuses an open without cmd", async () => {
    const h = await harness();
    const login = await fundedAccount(h.connector);
    const tls = await testCertificate();
    const client = new Client(h.server.url, { connect: { ca: tls.ca }, pipelining: 1 });
    cleanups.push(() => client.destroy());
    const post = async (path: string, body: object, token = "") => {
      const response = await client.request({
        path,
        method: "POST",
        headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
      return (await response.body.json()) as { ret: number; error?: string; token?: string; trades?: { cmd: number; volume: number }[] };
    };
    const { token } = await post("/api/Login", { login: Number(DEFAULT_MANAGER.login), password: DEFAULT_MANAGER.password });
    h.simulated.engine.setQuote("EURUSD", 1.1, 1.10012);
    const prices = [1.099, 1.101, 1.101, 1.099];
    for (const [i, cmd] of PENDING.entries()) {
      const answer = await post(
        "/api/TradeTransaction",
        { type: 75, request_id: uniqueId("pending"), login: Number(login), symbol: "EURUSD", cmd, volume: 10, price: prices[i], ie_deviation: -1 },
        token,
      );
      expect(answer).toMatchObject({ ret: 0, volume: 10, price: prices[i] });
    }
    const missing = await post(
      "/api/TradeTransaction",
      { type: 75, request_id: uniqueId("pending"), login: Number(login), symbol: "EURUSD", volume: 10, price: 1.2, ie_deviation: -1 },
      token,
    );
    expect(missing).toMatchObject({ ret: 3, error: expect.stringMatching(/OP_BUY \(0\), OP_SELL \(1\) or a pending command/) });
    const open = await post("/api/TradesRequest", { login: Number(login) }, token);
    expect(open.trades?.map((t) => [t.cmd, t.volume])).toEqual(PENDING.map((cmd) => [cmd, 10]));
    expect(await h.connector.openPositions(login)).toEqual([]);
    expect((await h.connector.pendingOrders(login)).map((o) => [o.type, o.volume])).toEqual([
      ["buyLimit", 1000],
      ["sellLimit", 1000],
      ["buyStop", 1000],
      ["sellStop", 1000],
    ]);
  });
});

describe("MT4 finished pending orders", () => {
  it("the gateway lists deleted and expired pending orders in TradesUserHistory as a real one does, and the connector shows them as no deal or position", async () => {
    const h = await harness();
    const login = await fundedAccount(h.connector);
    const tls = await testCertificate();
    const client = new Client(h.server.url, { connect: { ca: tls.ca }, pipelining: 1 });
    cleanups.push(() => client.destroy());
    const post = async (path: string, body: object, token = "") => {
      const response = await client.request({
        path,
        method: "POST",
        headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
      return (await response.body.json()) as { ret: number; token?: string; time?: number; trades?: Mt4TradeRecord[] };
    };
    const { token } = await post("/api/Login", { login: Number(DEFAULT_MANAGER.login), password: DEFAULT_MANAGER.password });
    h.simulated.engine.setQuote("EURUSD", 1.1, 1.10012);
    const order = (price: number, expiration: number | null = null) =>
      h.connector.placePendingOrder({ requestId: uniqueId("po"), login, symbol: "EURUSD", type: "buyLimit", volume: 1000, price, expiration });
    const deleted = await order(1.095);
    const expiring = await order(1.094, h.now() + 60_000);
    const waiting = await order(1.093);
    await h.connector.cancelPendingOrder({ requestId: uniqueId("pc"), orderId: deleted.orderId });
    await h.advance(120_000);
    h.simulated.engine.setQuote("EURUSD", 1.1, 1.10012);

    const { time: now = 0 } = await post("/api/ServerTime", {}, token);
    const history = await post("/api/TradesUserHistory", { login: Number(login), from: 0, to: now }, token);
    const pending = (history.trades ?? []).filter((t) => t.cmd >= 2 && t.cmd <= 5);
    expect(pending.map((t) => [String(t.order), t.cmd, t.volume, t.open_price])).toEqual([
      [deleted.orderId, MT4_CMD.buyLimit, 10, 1.095],
      [expiring.orderId, MT4_CMD.buyLimit, 10, 1.094],
    ]);
    expect(pending.every((t) => t.close_time > 0 && t.close_time >= t.open_time && t.profit === 0)).toBe(true);
    expect(pending[1]?.close_time).toBeGreaterThanOrEqual(pending[1]?.expiration ?? Infinity);
    // TradeRecordsRequest answers the open records of the tickets asked; finished ones are left out.
    const records = await post("/api/TradeRecordsRequest", { orders: [Number(deleted.orderId), Number(waiting.orderId)] }, token);
    expect(records.trades?.map((t) => String(t.order))).toEqual([waiting.orderId]);

    expect((await h.connector.dealHistory({ login, from: 0, to: h.now() })).filter((d) => d.entry !== null)).toEqual([]);
    expect(await h.connector.openPositions(login)).toEqual([]);
    expect((await h.connector.pendingOrders(login)).map((o) => o.id)).toEqual([waiting.orderId]);
  });
});

describe("MT4 orders exactly once", () => {
  it("refuses a request id the gateway would refuse, before sending anything", async () => {
    const h = await harness();
    // Never connected: a refusal that came from the gateway could not happen here.
    const offline = h.connectorWith(DEFAULT_MANAGER);
    for (const requestId of ["copy 1", "copy/1", "ordre-é", "a+b"]) {
      const refused = await expectConnectorError(
        offline.placeOrder({ requestId, login: "1001", symbol: "EURUSD", side: "buy", volume: 100 }),
        "invalidRequest",
      );
      expect(refused.message).toMatch(/letters, digits, underscores, colons, dots or hyphens/);
      await expectConnectorError(offline.modifyPosition({ requestId, positionId: "5001", sl: null, tp: null }), "invalidRequest");
      await expectConnectorError(offline.closePosition({ requestId, positionId: "5001" }), "invalidRequest");
    }
    const login = await fundedAccount(h.connector);
    const opened = await h.connector.placeOrder({ requestId: "copier:7.leader-42_a", login, symbol: "EURUSD", side: "buy", volume: 100 });
    expect(opened.requestId).toBe("copier:7.leader-42_a");
  });

  it("keeps a refusal: the same request gets the same refusal, also from a fresh connector, and is never run again", async () => {
    const h = await harness();
    const login = await fundedAccount(h.connector, 10_000);
    const order = { requestId: uniqueId("poor"), login, symbol: "EURUSD", side: "buy" as const, volume: 100_000 };
    const refused = await expectConnectorError(h.connector.placeOrder(order), "rejected");
    expect(refused.reason).toBe("notEnoughMoney");
    // Enough money now: a request that ran again would open the position.
    await h.connector.balanceOperation({ operationId: uniqueId("more"), login, type: "deposit", amount: 1_000_000_000, comment: "more" });
    const again = await expectConnectorError(h.connector.placeOrder(order), "rejected");
    expect([again.reason, again.message]).toEqual([refused.reason, refused.message]);
    const restarted = h.connectorWith(DEFAULT_MANAGER);
    await restarted.connect();
    const fresh = await expectConnectorError(restarted.placeOrder(order), "rejected");
    expect([fresh.reason, fresh.message]).toEqual([refused.reason, refused.message]);
    expect(await h.connector.openPositions(login)).toEqual([]);
    // The id stays this request's: another request under it is refused as a reuse.
    await expectConnectorError(h.connector.placeOrder({ ...order, volume: 100 }), "invalidRequest");
  });

  it("opens, modifies, partly closes and closes once each when every answer is lost with the connection, also for a fresh connector", async () => {
    const h = await harness();
    const login = await fundedAccount(h.connector);
    const lost = async <T>(operation: () => Promise<T>): Promise<T> => {
      h.server.faults.dropAfterNextOrder = true;
      await expectConnectorError(operation(), "unreachable");
      await h.advance(0);
      await h.connector.connect();
      return operation();
    };

    const order = { requestId: uniqueId("open"), login, symbol: "EURUSD", side: "buy" as const, volume: 1000 };
    const opened = await lost(() => h.connector.placeOrder(order));
    expect((await h.connector.openPositions(login)).map((p) => [p.id, p.volume])).toEqual([[opened.positionId, 1000]]);

    const [quote] = await h.connector.getQuotes(["EURUSD"]);
    const tp = Number(((quote?.bid ?? 1) + 0.003).toFixed(5));
    const modify = { requestId: uniqueId("mod"), positionId: opened.positionId, sl: null, tp };
    await lost(() => h.connector.modifyPosition(modify));
    expect((await h.connector.openPositions(login))[0]).toMatchObject({ tp });

    await h.advance(1000);
    const part = { requestId: uniqueId("part"), positionId: opened.positionId, volume: 400 };
    const partResult = await lost(() => h.connector.closePosition(part));
    const [rest] = await h.connector.openPositions(login);
    expect(rest?.volume).toBe(600);
    const close = { requestId: uniqueId("close"), positionId: rest?.id ?? "" };
    const closeResult = await lost(() => h.connector.closePosition(close));
    expect(await h.connector.openPositions(login)).toEqual([]);

    // A Toolbox process started afresh gets each first result back; nothing trades again.
    const restarted = h.connectorWith(DEFAULT_MANAGER);
    await restarted.connect();
    expect(await restarted.placeOrder(order)).toEqual(opened);
    expect((await restarted.closePosition(part)).dealId).toBe(partResult.dealId);
    expect((await restarted.closePosition(close)).dealId).toBe(closeResult.dealId);
    const deals = await restarted.dealHistory({ login, from: 0, to: h.now() });
    expect(deals.filter((d) => d.entry === "in").map((d) => [d.id, d.volume])).toEqual([[opened.dealId, 1000]]);
    expect(deals.filter((d) => d.entry === "out").map((d) => d.volume)).toEqual([400, 600]);
    const modifies = await restarted.journal({ from: 0, to: h.now() + 1, text: `modify #${opened.positionId}` });
    expect(modifies).toHaveLength(1);
  });

  it("answers a change of a pending order retried after the order filled with the first result, not as a change of the trade", async () => {
    const h = await harness();
    const login = await fundedAccount(h.connector);
    h.simulated.engine.setQuote("EURUSD", 1.1, 1.10012);
    const placed = await h.connector.placePendingOrder({ requestId: uniqueId("po"), login, symbol: "EURUSD", type: "buyStop", volume: 1000, price: 1.102 });
    const modify = { requestId: uniqueId("pm"), orderId: placed.orderId, price: 1.101, sl: null, tp: null, expiration: null };
    const modified = await h.connector.modifyPendingOrder(modify);
    h.simulated.engine.setQuote("EURUSD", 1.10088, 1.101);
    await h.advance(0);
    expect((await h.connector.openPositions(login)).map((p) => p.id)).toEqual([placed.orderId]);
    expect(await h.connector.modifyPendingOrder(modify)).toEqual(modified);
    expect(await h.connector.journal({ from: 0, to: h.now() + 1, text: `modify order #${placed.orderId} ` })).toHaveLength(1);
  });
});
