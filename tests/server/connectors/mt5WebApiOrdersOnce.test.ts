/**
 * Orders exactly once over the MT5 Web API (docs/connectors.md, "Orders exactly once"): the
 * protocol server, like a real MT5, runs a dealer request every time it is sent, whatever request
 * id rides along; the connector's own tag in the comment, and the position's state for a stops
 * change, make market open, modify, partial close and close happen once per request id after a
 * lost answer, a timeout, a dropped connection, concurrently, and from a fresh connector.
 */
import { Client } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import type { OrderResult } from "../../../core/trading/index.ts";
import type { TradePlatformConnector } from "../../../server/connectors/connector.ts";
import { challengeAnswer, passwordHash } from "../../../server/connectors/mt5WebApi/auth.ts";
import { operationTag } from "../../../server/connectors/operationOnce.ts";
import { DEFAULT_MANAGER } from "../../../server/connectors/simulated/server.ts";
import { expectConnectorError, fundedAccount, uniqueId } from "./contract/helpers.ts";
import { mt5WebApiHarness } from "./mt5WebApiHarness.ts";

type Harness = Awaited<ReturnType<ReturnType<typeof mt5WebApiHarness>>>;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function harness(): Promise<Harness> {
  const h = await mt5WebApiHarness({ accounts: 20 })();
  cleanups.push(() => h.close());
  await h.connector.connect();
  return h;
}

/** A connector that knows nothing of earlier attempts: Toolbox after a restart. */
async function restarted(h: Harness): Promise<TradePlatformConnector> {
  const connector = h.connectorWith(DEFAULT_MANAGER);
  await connector.connect();
  return connector;
}

/** One order operation under test, set up on a fresh account, with what it did to the server. */
interface Operation {
  name: string;
  call(connector: TradePlatformConnector): Promise<OrderResult>;
  /** The same request id for another request. */
  other(connector: TradePlatformConnector): Promise<OrderResult>;
  /** How many times the server ran it. */
  times(): number;
}

async function openPosition(h: Harness, login: string): Promise<string> {
  const opened = await h.connector.placeOrder({ requestId: uniqueId("setup"), login, symbol: "EURUSD", side: "buy", volume: 1000, comment: "setup" });
  return opened.positionId;
}

function exits(h: Harness, login: string, positionId: string): number {
  return h.simulated.engine.history(login, 0, h.now() + 86_400_000).deals.filter((d) => d.positionId === positionId && d.entry === "out").length;
}

const OPERATIONS: { name: string; setup: (h: Harness) => Promise<Operation> }[] = [
  {
    name: "market open",
    setup: async (h) => {
      const login = await fundedAccount(h.connector);
      const request = { requestId: uniqueId("open"), login, symbol: "EURUSD", side: "buy" as const, volume: 1000, comment: "copier 7" };
      return {
        name: "market open",
        call: (c) => c.placeOrder(request),
        other: (c) => c.placeOrder({ ...request, volume: 2000 }),
        times: () => h.simulated.engine.positions(login).length,
      };
    },
  },
  {
    name: "modify stops",
    setup: async (h) => {
      const login = await fundedAccount(h.connector);
      const positionId = await openPosition(h, login);
      const [quote] = await h.connector.getQuotes(["EURUSD"]);
      if (!quote) throw new Error("no EURUSD quote");
      const sl = Number((quote.bid - 0.003).toFixed(5));
      const tp = Number((quote.bid + 0.003).toFixed(5));
      const request = { requestId: uniqueId("modify"), positionId, sl, tp };
      return {
        name: "modify stops",
        call: (c) => c.modifyPosition(request),
        other: (c) => c.modifyPosition({ ...request, tp: Number((tp + 0.001).toFixed(5)) }),
        times: () => h.simulated.engine.journal(0, h.now() + 86_400_000, { text: `modify #${positionId}` }, 1000).length,
      };
    },
  },
  {
    name: "partial close",
    setup: async (h) => {
      const login = await fundedAccount(h.connector);
      const positionId = await openPosition(h, login);
      const request = { requestId: uniqueId("part"), positionId, volume: 400 };
      return {
        name: "partial close",
        call: (c) => c.closePosition(request),
        other: (c) => c.closePosition({ ...request, volume: 300 }),
        times: () => exits(h, login, positionId),
      };
    },
  },
  {
    name: "close",
    setup: async (h) => {
      const login = await fundedAccount(h.connector);
      const positionId = await openPosition(h, login);
      const second = await openPosition(h, login);
      const request = { requestId: uniqueId("close"), positionId, comment: "take it off" };
      return {
        name: "close",
        call: (c) => c.closePosition(request),
        other: (c) => c.closePosition({ ...request, positionId: second }),
        times: () => exits(h, login, positionId),
      };
    },
  },
];

/** Waits (in real time: the request travels over a socket) until the server has run the operation. */
async function untilRun(h: Harness, op: Operation): Promise<void> {
  for (let i = 0; i < 200 && op.times() === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(op.times()).toBe(1);
}

/** A manager's raw Web API session (authenticated), as another client of the server would have. */
async function rawSession(h: Harness) {
  const tls = await import("./mt5WebApiHarness.ts").then((m) => m.testCertificate());
  const client = new Client(h.server.url, { connect: { ca: tls.ca }, pipelining: 1 });
  cleanups.push(() => client.close());
  const call = async (path: string, body?: unknown) => {
    const response = await client.request({
      path,
      method: body === undefined ? "GET" : "POST",
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
    });
    return JSON.parse(await response.body.text()) as { retcode: string; srv_rand?: string; answer?: unknown };
  };
  const start = await call(`/api/auth/start?version=4000&agent=test&login=${DEFAULT_MANAGER.login}&type=manager`);
  const hash = passwordHash(DEFAULT_MANAGER.password);
  await call(`/api/auth/answer?srv_rand_answer=${challengeAnswer(hash, start.srv_rand ?? "")}&cli_rand=4db98fec17aab4dc5a240bdc659e8395`);
  return call;
}

describe("MT5 Web API protocol server: only what the vendor's server knows", () => {
  it("ignores a Reason in a dealer request: what a manager sends is the dealer's, on the position and its deal", async () => {
    const h = await harness();
    const login = await fundedAccount(h.connector);
    const call = await rawSession(h);
    // 0 is REASON_CLIENT: a manager's request claiming to be the trader's own.
    const sent = await call("/api/dealer/send_request", { Action: 200, Login: login, Symbol: "EURUSD", Type: 0, Volume: "100", Reason: 0 });
    expect(sent.retcode).toBe("0 Done");
    const [position] = await h.connector.openPositions(login);
    expect(position?.reason).toBe("dealer");
    const deals = await h.connector.dealHistory({ login, from: 0, to: h.now() + 1000 });
    expect(deals.filter((d) => d.entry === "in").map((d) => d.reason)).toEqual(["dealer"]);
  });

  it("runs a dealer request sent twice twice, whatever request id it carries", async () => {
    const h = await harness();
    const login = await fundedAccount(h.connector);
    const call = await rawSession(h);
    const request = { RequestId: "same-id", IDClient: "same-id", Action: 200, Login: login, Symbol: "EURUSD", Type: 0, Volume: "100", Comment: "twice" };
    const ids: string[] = [];
    for (const _ of [1, 2]) {
      const sent = await call("/api/dealer/send_request", request);
      expect(sent.retcode).toBe("0 Done");
      ids.push((sent.answer as { ID: string }).ID);
    }
    expect(h.simulated.engine.positions(login)).toHaveLength(2);
    // The dealer queue's report, as the vendor's: IMTConfirm and the request with its Result* fields; no client id.
    const results = (await call(`/api/dealer/get_request_result?id=${ids.join(",")}`)).answer as {
      result: Record<string, string>;
      answer: Record<string, string>;
    }[];
    expect(results.map((r) => r.result.Retcode)).toEqual(["10009 Request completed", "10009 Request completed"]);
    expect(results[0]?.result.DealID).not.toBe(results[1]?.result.DealID);
    expect(results[0]?.answer).toMatchObject({ Symbol: "EURUSD", ResultDeal: results[0]?.result.DealID });
    expect(JSON.stringify(results)).not.toMatch(/RequestId|same-id/);
  });

  it("places a pending order sent twice twice, and serves orders and their history as IMTOrder records", async () => {
    const h = await harness();
    const login = await fundedAccount(h.connector);
    h.simulated.engine.setQuote("EURUSD", 1.1, 1.10012);
    const call = await rawSession(h);
    const request = {
      RequestId: "same-id",
      Action: 201,
      Login: login,
      Symbol: "EURUSD",
      Type: 2,
      Volume: "100",
      PriceOrder: 1.095,
      TypeTime: 0,
      Comment: "twice",
    };
    const ids: string[] = [];
    for (const _ of [1, 2]) ids.push(((await call("/api/dealer/send_request", request)).answer as { ID: string }).ID);
    const results = (await call(`/api/dealer/get_request_result?id=${ids.join(",")}`)).answer as { result: Record<string, string> }[];
    expect(results.map((r) => r.result.Retcode)).toEqual(["10008 Order placed", "10008 Order placed"]);
    const [first, second] = results.map((r) => r.result.OrderID);
    expect(first).not.toBe(second);
    expect((await call(`/api/order/get_total?login=${login}`)).answer).toEqual({ Total: "2" });
    const page = (await call(`/api/order/get_page?login=${login}&offset=0&total=100`)).answer as Record<string, string>[];
    expect(page.map((o) => [o.Order, o.Type, o.State, o.PriceOrder, o.Comment])).toEqual([
      [first, "2", "1", "1.095", "twice"],
      [second, "2", "1", "1.095", "twice"],
    ]);
    const removed = (await call("/api/dealer/send_request", { Action: 204, Order: first })).answer as { ID: string };
    expect(((await call(`/api/dealer/get_request_result?id=${removed.ID}`)).answer as { result: Record<string, string> }[])[0]?.result.Retcode).toBe(
      "10009 Request completed",
    );
    const to = Math.ceil(h.now() / 1000) + 86_400;
    const history = (await call(`/api/history/get_page?login=${login}&from=0&to=${to}&offset=0&total=100`)).answer as Record<string, string>[];
    expect(history.map((o) => [o.Order, o.State])).toEqual([[first, "2"]]);
    expect(((await call(`/api/history/get?ticket=${first}`)).answer as Record<string, string>).State).toBe("2");
    expect((await call(`/api/order/get?ticket=${first}`)).retcode).toBe("13 Not found");
  });
});

describe.each(OPERATIONS)("MT5 Web API connector: $name exactly once per request id", ({ setup }) => {
  it("after a lost answer, in this connector and in a fresh one", async () => {
    const h = await harness();
    const op = await setup(h);
    h.server.faults.dropAfterNextOrder = true;
    await expectConnectorError(op.call(h.connector), "unreachable");
    expect(op.times()).toBe(1);
    await h.advance(0);
    await h.connector.connect();
    const retried = await op.call(h.connector);
    expect(op.times()).toBe(1);
    const fresh = await op.call(await restarted(h));
    expect(op.times()).toBe(1);
    expect(fresh.positionId).toBe(retried.positionId);
    expect(fresh.dealId).toBe(retried.dealId);
  });

  it("after a timeout", async () => {
    const h = await harness();
    const op = await setup(h);
    h.server.faults.slowNextOrderMs = h.requestTimeoutMs * 2;
    const outcome = expectConnectorError(op.call(h.connector), "timeout");
    await untilRun(h, op);
    // The clock alone: the harness's advance would wait for the answer the server is holding back.
    await h.clock.advance(h.requestTimeoutMs + 1);
    await outcome;
    await h.advance(h.requestTimeoutMs * 2);
    await op.call(h.connector);
    await op.call(await restarted(h));
    expect(op.times()).toBe(1);
  });

  it("after a dropped connection", async () => {
    const h = await harness();
    const op = await setup(h);
    h.server.faults.slowNextOrderMs = h.requestTimeoutMs / 2;
    const outcome = expectConnectorError(op.call(h.connector), "unreachable");
    await untilRun(h, op);
    h.faults.dropConnection();
    await outcome;
    await h.advance(0);
    await h.connector.connect();
    const retried = await op.call(h.connector);
    const fresh = await op.call(await restarted(h));
    expect(op.times()).toBe(1);
    expect(fresh.dealId).toBe(retried.dealId);
  });

  it("when the same request is sent concurrently", async () => {
    const h = await harness();
    const op = await setup(h);
    const [first, second] = await Promise.all([op.call(h.connector), op.call(h.connector)]);
    expect(second).toEqual(first);
    expect(op.times()).toBe(1);
  });

  it("and refuses the id for a different request", async () => {
    const h = await harness();
    const op = await setup(h);
    await op.call(h.connector);
    expect((await expectConnectorError(op.other(h.connector), "invalidRequest")).message).toMatch(/already used/);
    expect(op.times()).toBe(1);
  });
});

describe("MT5 Web API connector: a fresh connector recognises what a dead one did", () => {
  it("refuses a request id already used for another order or close, from the tag alone", async () => {
    const h = await harness();
    const login = await fundedAccount(h.connector);
    const order = { requestId: uniqueId("open"), login, symbol: "EURUSD", side: "buy" as const, volume: 1000 };
    const opened = await h.connector.placeOrder(order);
    const fresh = await restarted(h);
    expect(await fresh.placeOrder(order)).toEqual(opened);
    await expectConnectorError(fresh.placeOrder({ ...order, side: "sell" }), "invalidRequest");
    const close = { requestId: uniqueId("close"), positionId: opened.positionId, volume: 400 };
    const part = await h.connector.closePosition(close);
    const another = await restarted(h);
    expect(await another.closePosition(close)).toEqual(part);
    await expectConnectorError(another.closePosition({ ...close, volume: 300 }), "invalidRequest");
    expect(h.simulated.engine.positions(login).map((p) => p.volume)).toEqual([600]);
  });

  it("keeps the tag apart from the comment the dealer sees, and on the position for the copier", async () => {
    const h = await harness();
    const login = await fundedAccount(h.connector);
    const requestId = uniqueId("tagged");
    const opened = await h.connector.placeOrder({ requestId, login, symbol: "EURUSD", side: "buy", volume: 1000, comment: "copier 7" });
    const [position] = await h.connector.openPositions(login);
    expect(position).toMatchObject({ id: opened.positionId, comment: "copier 7", tag: operationTag(requestId) });
    expect(h.simulated.engine.positions(login)[0]?.comment).toBe(`copier 7 ${operationTag(requestId)}`);
    const deals = await h.connector.dealHistory({ login, from: 0, to: h.now() + 1000 });
    expect(deals.filter((d) => d.entry === "in").map((d) => d.comment)).toEqual(["copier 7"]);
  });
});
