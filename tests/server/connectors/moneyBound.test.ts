/**
 * The one bound of money (core/trading/money.ts) on the simulated servers: they refuse what would
 * take a balance, credit or equity past it, or move more than one operation may, the way MT5
 * answers 4005 TRADE_MAX_MONEY; trading never computes a figure past it; and a failure to
 * deliver an event never fails the operation that made it nor escapes into the event loop.
 */
import { describe, expect, it } from "vitest";
import { MAX_ACCOUNT_MONEY, MAX_OPERATION_AMOUNT, TRADE_PLATFORM_TYPES, lotsToVolume, type TradePlatformType } from "../../../core/trading/index.ts";
import { ManualClock } from "../../../server/connectors/clock.ts";
import type { TradePlatformConnector } from "../../../server/connectors/connector.ts";
import { ConnectorError } from "../../../server/connectors/errors.ts";
import { createSimulatedConnector } from "../../../server/connectors/simulated/connector.ts";
import { SimulatedServer } from "../../../server/connectors/simulated/server.ts";
import { uniqueId } from "./contract/helpers.ts";

async function setUp(platform: TradePlatformType, options: { onFault?: (error: unknown) => void } = {}) {
  const clock = new ManualClock();
  const server = new SimulatedServer({ platform, clock, seed: 5, accounts: 5, tradeRate: 0, ...options });
  server.start();
  const connector = createSimulatedConnector(server, { clock });
  await connector.connect();
  const group = server.engine.groups().find((g) => g.currency === "USD")!.name;
  const account = server.engine.createAccount({ group, name: "Whale", password: "Whale-Pass-1" });
  return { clock, server, connector, login: account.login };
}

async function refusal(promise: Promise<unknown>): Promise<ConnectorError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConnectorError);
  expect((error as ConnectorError).code).toBe("rejected");
  return error as ConnectorError;
}

/** Deposits the largest single amount until the balance is `target` (a multiple of it). */
async function fill(connector: TradePlatformConnector, login: string, target: number, type: "deposit" | "creditIn" = "deposit") {
  for (let moved = 0; moved < target; moved += MAX_OPERATION_AMOUNT)
    await connector.balanceOperation({ operationId: uniqueId("fill"), login, type, amount: MAX_OPERATION_AMOUNT, comment: "fill" });
}

describe.each(TRADE_PLATFORM_TYPES)("%s simulated server and the money bound", (platform) => {
  // MT5 has a code of its own (4005 TRADE_MAX_MONEY); MT4 and Match-Trader carry it as a plain rejection.
  const reason = platform === "MT5" ? "maxMoney" : "other";

  it("refuses one operation over 1,000,000,000.00 and moves nothing", async () => {
    const { connector, login } = await setUp(platform);
    const error = await refusal(
      connector.balanceOperation({ operationId: uniqueId("big"), login, type: "deposit", amount: MAX_OPERATION_AMOUNT + 1, comment: "" }),
    );
    expect(error.reason).toBe(reason);
    expect(error.message).toBe("The server refuses this amount: one operation may move at most 1,000,000,000.00 USD.");
    expect((await connector.getAccount(login)).balance).toBe(0);
    const ok = await connector.balanceOperation({ operationId: uniqueId("max"), login, type: "deposit", amount: MAX_OPERATION_AMOUNT, comment: "" });
    expect(ok.balance).toBe(MAX_OPERATION_AMOUNT);
  });

  it("refuses a deposit or credit that would take balance, credit or equity past 1,000,000,000,000.00", async () => {
    const { connector, login } = await setUp(platform);
    await fill(connector, login, MAX_ACCOUNT_MONEY);
    expect((await connector.getAccount(login)).balance).toBe(MAX_ACCOUNT_MONEY);
    const balance = await refusal(connector.balanceOperation({ operationId: uniqueId("over"), login, type: "deposit", amount: 1, comment: "" }));
    expect(balance.reason).toBe(reason);
    expect(balance.message).toBe("The server refuses this amount: an account's balance may not exceed 1,000,000,000,000.00 USD.");
    // Credit alone is within its bound, but balance + credit (the equity) would not be.
    const equity = await refusal(connector.balanceOperation({ operationId: uniqueId("credit"), login, type: "creditIn", amount: 100, comment: "" }));
    expect(equity.message).toBe("The server refuses this amount: an account's equity may not exceed 1,000,000,000,000.00 USD.");
    const after = await connector.getAccount(login);
    expect([after.balance, after.credit, after.equity]).toEqual([MAX_ACCOUNT_MONEY, 0, MAX_ACCOUNT_MONEY]);
    // Taking money out is always possible.
    const out = await connector.balanceOperation({ operationId: uniqueId("out"), login, type: "withdrawal", amount: MAX_OPERATION_AMOUNT, comment: "" });
    expect(out.balance).toBe(MAX_ACCOUNT_MONEY - MAX_OPERATION_AMOUNT);
  });

  it("refuses credit past the bound on its own", async () => {
    const { connector, login } = await setUp(platform);
    await fill(connector, login, MAX_ACCOUNT_MONEY, "creditIn");
    const error = await refusal(connector.balanceOperation({ operationId: uniqueId("c"), login, type: "creditIn", amount: 1, comment: "" }));
    expect(error.message).toBe("The server refuses this amount: an account's credit may not exceed 1,000,000,000,000.00 USD.");
  });

  it("refuses an order whose positions would be worth more than the bound", async () => {
    const { server, connector, login } = await setUp(platform);
    await fill(connector, login, 10 * MAX_OPERATION_AMOUNT);
    // A contract worth more than the bound at any price (no such symbol in the catalog: made so here).
    const symbol = server.engine.ctx.state.symbol("EURUSD");
    symbol.contractSize = 1e15;
    const error = await refusal(connector.placeOrder({ requestId: uniqueId("o"), login, symbol: "EURUSD", side: "buy", volume: lotsToVolume(0.01) }));
    expect(error.reason).toBe(reason);
    expect(error.message).toMatch(/^The server refuses this order: account \d+'s open positions would be worth more than 1,000,000,000,000\.00 USD/);
    expect(await connector.openPositions(login)).toEqual([]);
  });

  it("refuses to close a position whose profit would take the balance past the bound; the position stays open", async () => {
    const { server, connector, login } = await setUp(platform);
    await fill(connector, login, MAX_ACCOUNT_MONEY);
    // Room for 500.00 of profit only.
    await connector.balanceOperation({ operationId: uniqueId("w"), login, type: "withdrawal", amount: 50_000, comment: "" });
    for (const side of ["buy", "sell"] as const)
      await connector.placeOrder({ requestId: uniqueId("o"), login, symbol: "EURUSD", side, volume: lotsToVolume(1) });
    // Let the price move until one of the two is well in profit.
    let best = (await connector.openPositions(login))[0]!;
    for (let i = 0; i < 20_000 && best.profit <= 60_000; i++) {
      server.engine.tickPrices();
      best = (await connector.openPositions(login)).sort((a, b) => b.profit - a.profit)[0]!;
    }
    expect(best.profit).toBeGreaterThan(60_000);
    const error = await refusal(connector.closePosition({ requestId: uniqueId("c"), positionId: best.id }));
    expect(error.message).toBe(`The server refuses closing #${best.id}: an account's balance may not exceed 1,000,000,000,000.00 USD.`);
    expect(await connector.openPositions(login)).toHaveLength(2);
    expect((await connector.getAccount(login)).balance).toBeLessThanOrEqual(MAX_ACCOUNT_MONEY);
  });

  it("keeps trading at the bound without ever booking a figure past it", async () => {
    const { clock, server, connector, login } = await setUp(platform);
    await fill(connector, login, MAX_ACCOUNT_MONEY);
    // Only the whale trades: every action of the simulated traders is on the account at the bound.
    server.engine.ctx.state.logins.splice(0, server.engine.ctx.state.logins.length, Number(login));
    for (let i = 0; i < 200; i++) {
      server.traders.step(10);
      await clock.advance(500); // the feed moves; stops and stop out are enforced
    }
    const account = await connector.getAccount(login);
    expect(account.balance).toBeLessThanOrEqual(MAX_ACCOUNT_MONEY);
    expect(Number.isSafeInteger(account.equity)).toBe(true);
    expect(server.traders.attempted).toBe(2000);
    await connector.disconnect();
  });
});

describe("an event the server cannot deliver", () => {
  it("drops the client's connection and goes to the supervisor; the operation itself is done", async () => {
    const faults: unknown[] = [];
    const { server, connector, login } = await setUp("MT5", { onFault: (error) => faults.push(error) });
    // A balance past the exact-integer range cannot be encoded (how the reported crash began).
    server.engine.ctx.state.account(login).balance = 2 ** 60;
    const changed = server.engine.updateAccount(login, { comment: "still done" });
    expect(changed.comment).toBe("still done");
    expect(faults).toHaveLength(1);
    expect(faults[0]).toBeInstanceOf(RangeError);
    await new Promise((r) => setImmediate(r));
    expect(connector.state).toBe("reconnecting");
  });

  it("is thrown where it happens when nothing supervises the server", async () => {
    const { server, login } = await setUp("MT5");
    server.engine.ctx.state.account(login).balance = 2 ** 60;
    expect(() => server.engine.updateAccount(login, { comment: "x" })).toThrow(RangeError);
  });
});
