/** Contract: balance and credit operations, exactly once, and nothing done when refused. */
import { expect, it } from "vitest";
import type { TradeEvent } from "../../../../core/trading/index.ts";
import type { ConnectorHarness } from "./harness.ts";
import { collect, expectConnectorError, fundedAccount, settle, uniqueId } from "./helpers.ts";

export function moneyContract(h: () => ConnectorHarness): void {
  it("deposits once per operation id: a retry returns the first result and moves nothing", async () => {
    const harness = h();
    const { connector } = harness;
    const login = await fundedAccount(connector);
    const before = await connector.getAccount(login);
    const stream = collect(connector.subscribe());
    const request = { operationId: uniqueId("dep"), login, type: "deposit" as const, amount: 10_000, comment: "Deposit 100" };
    const first = await connector.balanceOperation(request);
    expect(first).toMatchObject({ operationId: request.operationId, login, type: "deposit", amount: 10_000, balance: before.balance + 10_000 });
    const retry = await connector.balanceOperation(request);
    expect(retry).toEqual(first);
    expect((await connector.getAccount(login)).balance).toBe(before.balance + 10_000);
    await settle(harness);
    await stream.stop();
    const deals = stream.events.filter((e: TradeEvent) => e.type === "dealAdded" && e.deal.id === first.dealId);
    expect(deals).toHaveLength(1);
    const history = await connector.dealHistory({ login, from: before.registration, to: harness.now() });
    expect(history.filter((d) => d.id === first.dealId)).toHaveLength(1);
  });

  it("moves money once when the same operation is sent ten times at once", async () => {
    const { connector } = h();
    const login = await fundedAccount(connector);
    const before = await connector.getAccount(login);
    const request = { operationId: uniqueId("burst"), login, type: "deposit" as const, amount: 12_345, comment: "burst" };
    const results = await Promise.all(Array.from({ length: 10 }, () => connector.balanceOperation(request)));
    expect(new Set(results.map((r) => JSON.stringify(r))).size).toBe(1);
    expect((await connector.getAccount(login)).balance).toBe(before.balance + 12_345);
  });

  it("refuses the same operation id for a different request", async () => {
    const { connector } = h();
    const login = await fundedAccount(connector);
    const operationId = uniqueId("same");
    await connector.balanceOperation({ operationId, login, type: "deposit", amount: 100, comment: "a" });
    const error = await expectConnectorError(connector.balanceOperation({ operationId, login, type: "deposit", amount: 200, comment: "a" }), "invalidRequest");
    expect(error.message).toMatch(/already used/i);
  });

  it("leaves the balance unchanged when the platform rejects, and lets the same id succeed later", async () => {
    const harness = h();
    const { connector } = harness;
    const login = await fundedAccount(connector);
    const before = await connector.getAccount(login);
    const request = { operationId: uniqueId("rej"), login, type: "deposit" as const, amount: 5_000, comment: "rejected first" };
    harness.faults.rejectNext(1);
    await expectConnectorError(connector.balanceOperation(request), "rejected");
    expect((await connector.getAccount(login)).balance).toBe(before.balance);
    const history = await connector.dealHistory({ login, from: before.registration, to: harness.now() });
    expect(history.filter((d) => d.profit === 5_000)).toHaveLength(0);
    await connector.balanceOperation(request);
    await connector.balanceOperation(request);
    expect((await connector.getAccount(login)).balance).toBe(before.balance + 5_000);
  });

  it("applies an operation once when its answer timed out and it is retried", async () => {
    const harness = h();
    const { connector } = harness;
    const login = await fundedAccount(connector);
    const before = await connector.getAccount(login);
    const request = { operationId: uniqueId("slow"), login, type: "deposit" as const, amount: 777, comment: "slow" };
    harness.faults.slowAnswers(harness.requestTimeoutMs * 2);
    const outcome = expectConnectorError(connector.balanceOperation(request), "timeout");
    await harness.advance(harness.requestTimeoutMs + 1);
    await outcome;
    harness.faults.restore();
    await harness.advance(harness.requestTimeoutMs * 2);
    await connector.balanceOperation(request);
    expect((await connector.getAccount(login)).balance).toBe(before.balance + 777);
  });

  it("withdraws only free money and takes out only existing credit", async () => {
    const { connector } = h();
    const login = await fundedAccount(connector, 50_000);
    await expectConnectorError(
      connector.balanceOperation({ operationId: uniqueId("w"), login, type: "withdrawal", amount: 50_001, comment: "too much" }),
      "rejected",
    );
    await expectConnectorError(connector.balanceOperation({ operationId: uniqueId("c"), login, type: "creditOut", amount: 1, comment: "none" }), "rejected");
    const credit = await connector.balanceOperation({ operationId: uniqueId("ci"), login, type: "creditIn", amount: 2_500, comment: "bonus" });
    expect(credit.credit).toBe(2_500);
    const out = await connector.balanceOperation({ operationId: uniqueId("co"), login, type: "creditOut", amount: 2_500, comment: "bonus off" });
    expect(out.credit).toBe(0);
    const withdrawal = await connector.balanceOperation({ operationId: uniqueId("wd"), login, type: "withdrawal", amount: 50_000, comment: "all" });
    expect(withdrawal.balance).toBe(0);
    const account = await connector.getAccount(login);
    expect([account.balance, account.credit, account.equity]).toEqual([0, 0, 0]);
  });

  it("refuses amounts that are not positive whole cents", async () => {
    const { connector } = h();
    const login = await fundedAccount(connector);
    for (const amount of [0, -5, 1.5])
      await expectConnectorError(connector.balanceOperation({ operationId: uniqueId("bad"), login, type: "deposit", amount, comment: "" }), "invalidRequest");
  });
}
