/**
 * Match-Trader orders exactly once per request id against its protocol server, which, like the
 * vendor's, has no operation id and applies every call it gets: a lost answer, a fresh connector
 * (as after a Toolbox restart) and a retried refusal must not trade twice. Faults go through the
 * server's fault API (`dropAnswerOf`: the request is applied, then its connection closes).
 */
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "undici";
import { pointSize } from "../../../core/trading/index.ts";
import { operationTag } from "../../../server/connectors/operationOnce.ts";
import { expectConnectorError, fundedAccount, uniqueId } from "./contract/helpers.ts";
import { matchTraderApiHarness, REQUEST_TIMEOUT_MS, type MatchTraderApiHarness } from "./matchTraderApiHarness.ts";

let harness: MatchTraderApiHarness | undefined;
const open = async () => {
  harness = await matchTraderApiHarness()();
  await harness.connector.connect();
  return harness;
};
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const OPEN = "/v1/trading-accounts/positions/open";
const EDIT = "/v1/trading-accounts/positions/edit";
const CLOSE = "/v1/trading-accounts/positions/close";
const CLOSE_PART = "/v1/trading-accounts/positions/close-partially";

/** The server's journal lines for one position's changes: each is one trade the server made. */
async function journalled(h: MatchTraderApiHarness, text: string) {
  return (await h.connector.journal({ from: 0, to: h.now() + 1, text })).map((j) => j.message);
}

async function stops(h: MatchTraderApiHarness) {
  const [quote] = await h.connector.getQuotes(["EURUSD"]);
  if (!quote) throw new Error("no EURUSD quote");
  const point = pointSize(5);
  return { sl: Number((quote.bid - 300 * point).toFixed(5)), tp: Number((quote.bid + 300 * point).toFixed(5)) };
}

describe("Match-Trader Broker API: market orders exactly once", () => {
  it("a fresh connector recognises a copy that was opened and is already closed, and opens nothing", async () => {
    const h = await open();
    const login = await fundedAccount(h.connector);
    const order = { requestId: uniqueId("copy"), login, symbol: "EURUSD", side: "buy" as const, volume: 100, comment: "copy" };
    const opened = await h.connector.placeOrder(order);
    await h.advance(1000);
    await h.connector.closePosition({ requestId: uniqueId("close"), positionId: opened.positionId });

    // As after a restart: nothing remembered, the copy is no longer among the open positions.
    const restarted = h.connectWith({});
    await restarted.connect();
    expect(await restarted.placeOrder(order)).toEqual(opened);
    expect(await restarted.openPositions(login)).toEqual([]);
    const deals = await restarted.dealHistory({ login, from: 0, to: h.now() });
    expect(deals.filter((d) => d.entry === "in").map((d) => d.id)).toEqual([opened.dealId]);
    // The same id for another order is refused, not taken for this one.
    await expectConnectorError(restarted.placeOrder({ ...order, side: "sell" }), "invalidRequest");
  });

  it("an open whose answer was lost is found, not sent again", async () => {
    const h = await open();
    const login = await fundedAccount(h.connector);
    h.protocolServer.faults.dropAnswerOf(OPEN);
    const order = { requestId: uniqueId("lost"), login, symbol: "EURUSD", side: "sell" as const, volume: 200, comment: "lost" };
    const opened = await h.connector.placeOrder(order);
    expect(h.protocolServer.stats.droppedAnswers).toBe(1);
    // The vendor's open body has no comment: the position has none; Toolbox's tag rides apart.
    expect((await h.connector.openPositions(login)).map((p) => [p.id, p.volume, p.comment, p.tag])).toEqual([
      [opened.positionId, 200, "", operationTag(order.requestId)],
    ]);
  });

  it("an open that timed out lands once: the retry gets its result, and so does a fresh connector", async () => {
    const h = await open();
    const login = await fundedAccount(h.connector);
    h.protocolServer.faults.slowAnswers(REQUEST_TIMEOUT_MS * 2);
    const order = { requestId: uniqueId("slow"), login, symbol: "EURUSD", side: "buy" as const, volume: 100, comment: "slow" };
    const outcome = expectConnectorError(h.connector.placeOrder(order), "timeout");
    await h.advance(REQUEST_TIMEOUT_MS + 1);
    await outcome;
    h.protocolServer.faults.restore();
    // The answers held back come in; the operation goes on in the connector meanwhile.
    for (let i = 0; i < 4; i++) await h.advance(REQUEST_TIMEOUT_MS * 2);
    const retried = await h.connector.placeOrder(order);
    const restarted = h.connectWith({});
    await restarted.connect();
    expect(await restarted.placeOrder(order)).toEqual(retried);
    expect((await restarted.openPositions(login)).map((p) => p.id)).toEqual([retried.positionId]);
  });

  it("keeps a refusal: the same request gets the same refusal and is never sent again", async () => {
    const h = await open();
    const login = await fundedAccount(h.connector, 10_000);
    const order = { requestId: uniqueId("poor"), login, symbol: "EURUSD", side: "buy" as const, volume: 100_000 };
    const refused = await expectConnectorError(h.connector.placeOrder(order), "rejected");
    expect(refused.reason).toBe("notEnoughMoney");
    // Enough money now: a request that ran again would open the position.
    await h.connector.balanceOperation({ operationId: uniqueId("more"), login, type: "deposit", amount: 1_000_000_000, comment: "more" });
    const again = await expectConnectorError(h.connector.placeOrder(order), "rejected");
    expect([again.reason, again.message]).toEqual([refused.reason, refused.message]);
    expect(await h.connector.openPositions(login)).toEqual([]);
  });
});

describe("Match-Trader Broker API: modify and close exactly once", () => {
  it("a change of stops whose answer was lost is recognised from the position, not sent again", async () => {
    const h = await open();
    const login = await fundedAccount(h.connector);
    const opened = await h.connector.placeOrder({ requestId: uniqueId("o"), login, symbol: "EURUSD", side: "buy", volume: 100 });
    const { sl, tp } = await stops(h);
    h.protocolServer.faults.dropAnswerOf(EDIT);
    const request = { requestId: uniqueId("mod"), positionId: opened.positionId, sl, tp };
    const modified = await h.connector.modifyPosition(request);
    expect(h.protocolServer.stats.droppedAnswers).toBe(1);
    expect(modified).toMatchObject({ requestId: request.requestId, positionId: opened.positionId, dealId: null });
    expect((await h.connector.openPositions(login))[0]).toMatchObject({ sl, tp });

    // A fresh connector sees the stops in place and sends nothing either.
    const restarted = h.connectWith({});
    await restarted.connect();
    await restarted.openPositions(login);
    expect(await restarted.modifyPosition(request)).toMatchObject({ positionId: opened.positionId, dealId: null });
    expect(await journalled(h, `modify #${opened.positionId}`)).toHaveLength(1);
  });

  it("a close whose answer was lost is recognised from the account's closings, not sent again", async () => {
    const h = await open();
    const login = await fundedAccount(h.connector);
    const opened = await h.connector.placeOrder({ requestId: uniqueId("o"), login, symbol: "EURUSD", side: "buy", volume: 100 });
    await h.advance(1000);
    h.protocolServer.faults.dropAnswerOf(CLOSE);
    const closed = await h.connector.closePosition({ requestId: uniqueId("close"), positionId: opened.positionId });
    expect(h.protocolServer.stats.droppedAnswers).toBe(1);
    const deals = await h.connector.dealHistory({ login, from: 0, to: h.now() });
    expect(deals.filter((d) => d.entry === "out").map((d) => [d.id, d.volume])).toEqual([[closed.dealId, 100]]);
  });

  it("a partial close whose answer was lost is recognised by its new closing, and the rest stays open", async () => {
    const h = await open();
    const login = await fundedAccount(h.connector);
    const opened = await h.connector.placeOrder({ requestId: uniqueId("o"), login, symbol: "EURUSD", side: "buy", volume: 1000 });
    await h.advance(1000);
    await h.connector.closePosition({ requestId: uniqueId("first"), positionId: opened.positionId, volume: 300 });
    h.protocolServer.faults.dropAnswerOf(CLOSE_PART);
    const request = { requestId: uniqueId("part"), positionId: opened.positionId, volume: 300 };
    const part = await h.connector.closePosition(request);
    expect(h.protocolServer.stats.droppedAnswers).toBe(1);
    expect(part.volume).toBe(300);
    expect(await h.connector.closePosition(request)).toEqual(part);
    expect((await h.connector.openPositions(login)).map((p) => p.volume)).toEqual([400]);
    const exits = (await h.connector.dealHistory({ login, from: 0, to: h.now() })).filter((d) => d.entry === "out");
    expect(exits.map((d) => d.volume)).toEqual([300, 300]);
    expect(exits.map((d) => d.id)).toContain(part.dealId);
  });

  it("a partial close is recognised by a fresh connector (Toolbox restarted), answered or not, and never repeated", async () => {
    const h = await open();
    const login = await fundedAccount(h.connector);
    const opened = await h.connector.placeOrder({ requestId: uniqueId("o"), login, symbol: "EURUSD", side: "buy", volume: 1000 });
    await h.advance(1000);
    const answered = { requestId: uniqueId("part"), positionId: opened.positionId, volume: 300 };
    const first = await h.connector.closePosition(answered);
    // The answer of the second one never comes: the process gives up (a timeout) and dies.
    h.protocolServer.faults.slowAnswers(REQUEST_TIMEOUT_MS * 2);
    const unanswered = { requestId: uniqueId("part"), positionId: opened.positionId, volume: 300 };
    const outcome = expectConnectorError(h.connector.closePosition(unanswered), "timeout");
    await h.advance(REQUEST_TIMEOUT_MS + 1);
    await outcome;
    h.protocolServer.faults.restore();
    for (let i = 0; i < 4; i++) await h.advance(REQUEST_TIMEOUT_MS * 2);

    const restarted = h.connectWith({});
    await restarted.connect();
    expect(await restarted.closePosition(answered)).toEqual(first);
    const second = await restarted.closePosition(unanswered);
    expect(second.volume).toBe(300);
    expect(second.dealId).not.toBe(first.dealId);
    expect((await restarted.openPositions(login)).map((p) => p.volume)).toEqual([400]);
    const exits = (await restarted.dealHistory({ login, from: 0, to: h.now() })).filter((d) => d.entry === "out");
    expect(exits.map((d) => d.id).sort()).toEqual([first.dealId, second.dealId].sort());
  });

  it("a closing older than the request is not taken for it: the position is not open", async () => {
    const h = await open();
    const login = await fundedAccount(h.connector);
    const opened = await h.connector.placeOrder({ requestId: uniqueId("o"), login, symbol: "EURUSD", side: "buy", volume: 100 });
    await h.advance(1000);
    await h.connector.closePosition({ requestId: uniqueId("c"), positionId: opened.positionId });
    const again = await expectConnectorError(h.connector.closePosition({ requestId: uniqueId("again"), positionId: opened.positionId }), "notFound");
    expect(again.message).toContain(opened.positionId);
  });
});

describe("Match-Trader protocol server: only the vendor's fields", () => {
  it("answers a trading call with the vendor's {status, orderId} only, and ignores a comment, expected price and slippage the open body does not have", async () => {
    const h = await open();
    const login = await fundedAccount(h.connector);
    const client = new Client(h.protocolServer.url, { connect: { ca: h.protocolServer.ca } });
    try {
      const response = await client.request({
        path: OPEN,
        method: "POST",
        headers: { "content-type": "application/json", authorization: h.protocolServer.token },
        body: JSON.stringify({
          systemUuid: h.protocolServer.systemUuid,
          login,
          instrument: "EURUSD",
          orderSide: "BUY",
          volume: 0.01,
          comment: "not the vendor's",
          // Not the vendor's either: the order fills at the server's price, however far.
          expectedPrice: 0.5,
          slippage: 0,
        }),
      });
      const answer = (await response.body.json()) as Record<string, unknown>;
      expect(Object.keys(answer).sort()).toEqual(["orderId", "status"]);
      expect(answer.status).toBe("OK");
    } finally {
      await client.close();
    }
    expect((await h.connector.openPositions(login)).map((p) => p.comment)).toEqual([""]);
  });
});
