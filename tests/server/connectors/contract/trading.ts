/** Contract: orders for the copier, leverage for Flexible Leverage, money figures, journal. */
import { expect, it } from "vitest";
import { balanceEffect, pointSize, type TradeEvent } from "../../../../core/trading/index.ts";
import type { ConnectorHarness } from "./harness.ts";
import { collect, expectConnectorError, fundedAccount, settle, uniqueId } from "./helpers.ts";

async function eurusd(h: ConnectorHarness) {
  const [quote] = await h.connector.getQuotes(["EURUSD"]);
  if (!quote) throw new Error("no EURUSD quote");
  return { ...quote, point: pointSize(5) };
}

export function tradingContract(h: () => ConnectorHarness): void {
  it("places, modifies, partly closes and closes a position, reflected in positions, deals, balance and the stream", async () => {
    const harness = h();
    const { connector } = harness;
    const login = await fundedAccount(connector);
    await harness.advance(1000);
    const start = harness.now();
    const before = await connector.getAccount(login);
    const stream = collect(connector.subscribe());

    const order = { requestId: uniqueId("open"), login, symbol: "EURUSD", side: "buy" as const, volume: 1000, comment: "copier 1" };
    const opened = await connector.placeOrder(order);
    expect(await connector.placeOrder(order)).toEqual(opened);
    let positions = await connector.openPositions(login);
    expect(positions).toHaveLength(1);
    expect(positions[0]).toMatchObject({ id: opened.positionId, symbol: "EURUSD", side: "buy", volume: 1000, openPrice: opened.price });

    const q = await eurusd(harness);
    const sl = Number((q.bid - 300 * q.point).toFixed(5));
    const tp = Number((q.bid + 300 * q.point).toFixed(5));
    await connector.modifyPosition({ requestId: uniqueId("mod"), positionId: opened.positionId, sl, tp });
    expect((await connector.openPositions(login))[0]).toMatchObject({ sl, tp });
    await expectConnectorError(connector.modifyPosition({ requestId: uniqueId("bad"), positionId: opened.positionId, sl: tp, tp: sl }), "rejected");

    await harness.advance(1000);
    const part = await connector.closePosition({ requestId: uniqueId("part"), positionId: opened.positionId, volume: 400 });
    expect(part.volume).toBe(400);
    positions = await connector.openPositions(login);
    expect(positions).toHaveLength(1);
    const rest = positions[0];
    if (!rest) throw new Error("the rest of the position is missing");
    expect(rest.volume).toBe(600);
    // MT4 re-issues the ticket for the rest; the others keep the id.
    if (rest.id !== opened.positionId) expect(rest.previousId).toBe(opened.positionId);

    await harness.advance(1000);
    const closed = await connector.closePosition({ requestId: uniqueId("close"), positionId: rest.id });
    expect(closed.volume).toBe(600);
    expect(await connector.openPositions(login)).toHaveLength(0);
    await expectConnectorError(connector.closePosition({ requestId: uniqueId("again"), positionId: rest.id }), "notFound");

    const deals = await connector.dealHistory({ login, from: start, to: harness.now() });
    const entries = deals.filter((d) => d.entry === "in");
    const exits = deals.filter((d) => d.entry === "out");
    expect(entries.map((d) => [d.id, d.volume, d.action])).toEqual([[opened.dealId, 1000, "buy"]]);
    expect(exits.map((d) => d.volume).sort()).toEqual([400, 600]);
    expect(exits.every((d) => d.action === "sell")).toBe(true);
    const after = await connector.getAccount(login);
    expect(after.balance).toBe(before.balance + deals.reduce((sum, d) => sum + balanceEffect(d), 0));
    expect(after.equity).toBe(after.balance + after.credit);

    await settle(harness);
    await stream.stop();
    const types = stream.events.map((e: TradeEvent) => e.type);
    expect(types.filter((t) => t === "positionOpened").length).toBeGreaterThanOrEqual(1);
    expect(types).toContain("positionModified");
    expect(types).toContain("positionClosed");
    const streamedDeals = stream.events.flatMap((e) => (e.type === "dealAdded" ? [e.deal.id] : []));
    expect(streamedDeals.sort()).toEqual(deals.map((d) => d.id).sort());
  });

  it("reads the open positions of a page of accounts at once, skipping accounts it does not know", async () => {
    const { connector } = h();
    const first = await fundedAccount(connector);
    const second = await fundedAccount(connector);
    const empty = await fundedAccount(connector);
    const opened = [
      await connector.placeOrder({ requestId: uniqueId("b1"), login: first, symbol: "EURUSD", side: "buy", volume: 100 }),
      await connector.placeOrder({ requestId: uniqueId("b2"), login: second, symbol: "EURUSD", side: "sell", volume: 200 }),
      await connector.placeOrder({ requestId: uniqueId("b3"), login: second, symbol: "USDJPY", side: "buy", volume: 300 }),
    ];
    const batch = await connector.openPositionsOf([first, second, empty, "987654321"]);
    expect(batch.map((p) => p.id).sort()).toEqual(opened.map((o) => o.positionId).sort());
    const one = [...(await connector.openPositions(first)), ...(await connector.openPositions(second))];
    expect([...batch].sort((a, b) => a.id.localeCompare(b.id))).toEqual(one.sort((a, b) => a.id.localeCompare(b.id)));
    expect(await connector.openPositionsOf([])).toEqual([]);
    await expectConnectorError(connector.openPositionsOf([""]), "invalidRequest");
    await expectConnectorError(connector.openPositionsOf(Array.from({ length: 1001 }, (_, i) => String(i + 1))), "invalidRequest");
  });

  it("refuses orders it cannot fill, with the reason", async () => {
    const harness = h();
    const { connector } = harness;
    const login = await fundedAccount(connector, 10_000);
    const base = { login, symbol: "EURUSD", side: "buy" as const };
    await expectConnectorError(connector.placeOrder({ ...base, requestId: uniqueId("big"), volume: 1_000_000 }), "rejected");
    const poor = await connector.placeOrder({ ...base, requestId: uniqueId("ok"), volume: 100 }).then(
      () => "filled",
      (e: Error) => e.message,
    );
    expect(poor).toBe("filled");
    const money = await expectConnectorError(connector.placeOrder({ ...base, requestId: uniqueId("money"), volume: 100_000 }), "rejected");
    expect(money.reason).toBe("notEnoughMoney");
    await expectConnectorError(connector.placeOrder({ ...base, requestId: uniqueId("sym"), symbol: "NOPE", volume: 100 }), "notFound");
    await expectConnectorError(connector.placeOrder({ ...base, requestId: uniqueId("vol"), volume: 0 }), "invalidRequest");
    await connector.updateAccount(login, { readOnly: true });
    const readOnly = await expectConnectorError(connector.placeOrder({ ...base, requestId: uniqueId("ro"), volume: 100 }), "rejected");
    expect(readOnly.reason).toBe("tradeDisabled");
  });

  it("keeps equity = balance + credit + floating profit and swap, and margin from leverage", async () => {
    const harness = h();
    const { connector } = harness;
    const login = await fundedAccount(connector);
    await connector.balanceOperation({ operationId: uniqueId("ci"), login, type: "creditIn", amount: 10_000, comment: "bonus" });
    for (const [symbol, side] of [
      ["EURUSD", "buy"],
      ["USDJPY", "sell"],
      ["XAUUSD", "buy"],
      ["GER40", "sell"],
    ] as const)
      await connector.placeOrder({ requestId: uniqueId("eq"), login, symbol, side, volume: 100 });
    await harness.advance(5_000);
    const account = await connector.getAccount(login);
    const positions = await connector.openPositions(login);
    expect(positions).toHaveLength(4);
    const floating = positions.reduce((sum, p) => sum + p.profit + p.swap, 0);
    expect(account.equity).toBe(account.balance + account.credit + floating);
    expect(account.freeMargin).toBe(account.equity - account.margin);
    expect(account.margin).toBeGreaterThan(0);
    expect(account.marginLevel).toBeCloseTo((account.equity / account.margin) * 100, 1);

    const stream = collect(connector.subscribe());
    const lowered = await connector.setLeverage(login, 50);
    expect(lowered.leverage).toBe(50);
    // Half the leverage, twice the margin (EURUSD, USDJPY, XAUUSD are not capped; GER40 is capped at 1:100).
    expect(lowered.margin).toBeGreaterThan(account.margin * 1.5);
    await settle(harness);
    await stream.stop();
    expect(stream.events.some((e) => e.type === "accountChanged" && e.account.leverage === 50)).toBe(true);
    await expectConnectorError(connector.setLeverage(login, 0), "invalidRequest");
  });

  it("keeps a journal that filters by time, level and text", async () => {
    const harness = h();
    const { connector } = harness;
    if (harness.noJournal) {
      const error = await expectConnectorError(connector.journal({ from: harness.now() - 60_000, to: harness.now() }), "invalidRequest");
      expect(error.message).toContain("plugin");
      return;
    }
    const from = harness.now();
    const login = await fundedAccount(connector);
    await connector.placeOrder({ requestId: uniqueId("j"), login, symbol: "EURUSD", side: "sell", volume: 100 });
    const to = harness.now();
    const all = await connector.journal({ from, to });
    expect(all.length).toBeGreaterThanOrEqual(2);
    expect(all.every((e) => e.time >= from && e.time <= to)).toBe(true);
    const trades = await connector.journal({ from, to, levels: ["trade"], login });
    expect(trades.length).toBeGreaterThanOrEqual(1);
    expect(trades.every((e) => e.level === "trade" && e.login === login)).toBe(true);
    const text = await connector.journal({ from, to, text: "EURUSD" });
    expect(text.every((e) => e.message.includes("EURUSD"))).toBe(true);
    expect(await connector.journal({ from, to, limit: 1 })).toHaveLength(1);
    expect(await connector.journal({ from: to + 60_000, to: to + 120_000 })).toEqual([]);
    await expectConnectorError(connector.journal({ from: to, to: from - 1 }), "invalidRequest");
  });
}
