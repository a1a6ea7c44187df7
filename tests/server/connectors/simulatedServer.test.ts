/** What the simulated servers promise beyond the connector contract: determinism, scale, rate, server-side trading rules. */
import fc from "./propertyTesting.ts";
import { describe, expect, it } from "vitest";
import { balanceEffect, TRADE_PLATFORM_TYPES, type TradePlatformType } from "../../../core/trading/index.ts";
import { ManualClock } from "../../../server/connectors/clock.ts";
import { connectorConfigSchema, simulatedConnectorConfigSchema } from "../../../server/connectors/config.ts";
import { createConnector } from "../../../server/connectors/factory.ts";
import { createSimulatedConnector } from "../../../server/connectors/simulated/connector.ts";
import { SimulatedServerRegistry } from "../../../server/connectors/simulated/registry.ts";
import { SimulatedServer } from "../../../server/connectors/simulated/server.ts";
import { collect, uniqueId } from "./contract/helpers.ts";

function run(platform: TradePlatformType, seed: number) {
  const server = new SimulatedServer({ platform, clock: new ManualClock(), seed, accounts: 80, tradeRate: 0 });
  for (let i = 0; i < 20; i++) {
    server.traders.step(20);
    server.engine.tickPrices();
  }
  return server;
}

describe("simulated servers", () => {
  it.each(TRADE_PLATFORM_TYPES)("%s is deterministic from its seed", (platform) => {
    const a = run(platform, 11);
    const b = run(platform, 11);
    const c = run(platform, 12);
    const txs = (s: SimulatedServer) => JSON.stringify(s.engine.ctx.log.since(0, 1_000_000).transactions);
    expect(JSON.stringify(a.engine.listAccounts(null, 1000, null))).toBe(JSON.stringify(b.engine.listAccounts(null, 1000, null)));
    expect(txs(a)).toBe(txs(b));
    expect(txs(a)).not.toBe(txs(c));
  });

  // How fast is for `npm run bench` (never a timed test): here, that 100,000 accounts exist and page in login order.
  it.each(TRADE_PLATFORM_TYPES)("%s creates 100,000 accounts and pages them in login order", async (platform) => {
    const clock = new ManualClock();
    const server = new SimulatedServer({ platform, clock, accounts: 100_000, tradeRate: 0 });
    const connector = createSimulatedConnector(server);
    await connector.connect();
    const page = await connector.listAccounts({ limit: 1000 });
    const last = await connector.listAccounts({ limit: 1000, cursor: page.nextCursor });
    expect(page.items).toHaveLength(1000);
    expect(Number(last.items[0]?.login)).toBe(Number(page.items.at(-1)?.login) + 1);
    await connector.disconnect();
  });

  it("refuses more than 100,000 accounts, in config and in the server", () => {
    expect(() => new SimulatedServer({ platform: "MT5", accounts: 100_001 })).toThrow(/100000/);
    expect(connectorConfigSchema.safeParse({ kind: "simulated", platform: "MT5", serverKey: "x", server: { accounts: 100_001 } }).success).toBe(false);
    expect(connectorConfigSchema.safeParse({ kind: "simulated", platform: "MT6", serverKey: "x" }).success).toBe(false);
  });

  it("trades at the configured rate on the clock, and not at all at rate 0", async () => {
    const clock = new ManualClock();
    const busy = new SimulatedServer({ platform: "MT5", clock, accounts: 200, tradeRate: 37 });
    const idle = new SimulatedServer({ platform: "MT5", clock, accounts: 200, tradeRate: 0 });
    busy.start();
    idle.start();
    await clock.advance(10_000);
    expect(busy.traders.attempted).toBe(370);
    expect(busy.engine.ctx.log.lastSequence).toBeGreaterThan(200);
    expect(idle.traders.attempted).toBe(0);
    busy.stop();
    idle.stop();
    const before = busy.traders.attempted;
    await clock.advance(10_000);
    expect(busy.traders.attempted).toBe(before);
  });

  it.each(TRADE_PLATFORM_TYPES)("%s keeps every account's books exact: equity, balance and credit from its deals", async (platform) => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 50, max: 400 }), async (seed, actions) => {
        const clock = new ManualClock();
        const server = new SimulatedServer({ platform, clock, seed, accounts: 40, tradeRate: 0 });
        server.start();
        const connector = createSimulatedConnector(server, { clock });
        await connector.connect();
        for (let i = 0; i < 5; i++) {
          server.traders.step(Math.ceil(actions / 5));
          await clock.advance(700);
        }
        const accounts = (await connector.listAccounts({ limit: 1000 })).items;
        for (const account of accounts) {
          const positions = await connector.openPositions(account.login);
          expect(account.equity).toBe(account.balance + account.credit + positions.reduce((s, p) => s + p.profit + p.swap, 0));
          const deals = await connector.dealHistory({ login: account.login, from: 0, to: clock.now() });
          expect(account.balance).toBe(deals.reduce((s, d) => s + balanceEffect(d), 0));
          expect(account.credit).toBe(deals.filter((d) => d.action === "credit").reduce((s, d) => s + d.profit, 0));
          const entered = deals.filter((d) => d.entry === "in").reduce((s, d) => s + d.volume, 0);
          const exited = deals.filter((d) => d.entry === "out").reduce((s, d) => s + d.volume, 0);
          expect(entered - exited).toBe(positions.reduce((s, p) => s + p.volume, 0));
        }
        server.stop();
      }),
      { numRuns: 4 },
    );
  });

  it("closes positions at stop out, on the server's own initiative", async () => {
    const clock = new ManualClock();
    const server = new SimulatedServer({ platform: "MT5", clock, accounts: 10, tradeRate: 0 });
    server.start();
    const connector = createSimulatedConnector(server, { clock });
    await connector.connect();
    const [group] = await connector.listGroups();
    const { login } = await connector.createAccount({ group: group?.name ?? "", name: "Risky", password: "Risky1234", leverage: 20 });
    await connector.balanceOperation({ operationId: uniqueId("r"), login, type: "deposit", amount: 10_000, comment: "" });
    await connector.placeOrder({ requestId: uniqueId("btc"), login, symbol: "BTCUSD", side: "buy", volume: 400 });
    const stream = collect(connector.subscribe());
    await connector.setLeverage(login, 1);
    await clock.advance(600);
    await stream.stop();
    expect(await connector.openPositions(login)).toEqual([]);
    const closed = stream.events.find((e) => e.type === "positionClosed");
    expect(closed?.type === "positionClosed" && closed.position.closeReason).toBe("stopOut");
    const attention = await connector.journal({ from: 0, to: clock.now(), levels: ["attention"], login });
    expect(attention[0]?.message).toMatch(/stop out/);
  });

  it("refuses forex when its market is closed and still trades crypto at the weekend", async () => {
    const saturday = new ManualClock(Date.UTC(2024, 0, 13, 12));
    const server = new SimulatedServer({ platform: "MatchTrader", clock: saturday, accounts: 10, tradeRate: 0 });
    const connector = createSimulatedConnector(server);
    await connector.connect();
    const [group] = await connector.listGroups();
    const { login } = await connector.createAccount({ group: group?.name ?? "", name: "Weekend", password: "Weekend12" });
    await connector.balanceOperation({ operationId: uniqueId("w"), login, type: "deposit", amount: 1_000_000, comment: "" });
    const refused = await connector.placeOrder({ requestId: uniqueId("fx"), login, symbol: "EURUSD", side: "buy", volume: 100 }).catch((e: Error) => e);
    expect(refused).toMatchObject({ code: "rejected", reason: "marketClosed" });
    await expect(connector.placeOrder({ requestId: uniqueId("btc"), login, symbol: "BTCUSD", side: "buy", volume: 100 })).resolves.toBeTruthy();
  });

  it("tells a consumer to resync when the server no longer holds the events it missed", async () => {
    const clock = new ManualClock();
    const server = new SimulatedServer({ platform: "MT4", clock, accounts: 50, tradeRate: 0, retainedTransactions: 20 });
    const connector = createSimulatedConnector(server, { clock });
    await connector.connect();
    const stream = collect(connector.subscribe());
    server.traders.step(10);
    await clock.advance(0);
    server.faults.disconnect();
    await clock.advance(0);
    server.traders.step(300);
    await connector.connect();
    await clock.advance(0);
    await stream.stop();
    expect(stream.error()).toMatchObject({ code: "resyncRequired" });
    // A fresh subscriber after the gap gets what happens from now on.
    const fresh = collect(connector.subscribe());
    server.traders.step(20);
    await clock.advance(0);
    await fresh.stop();
    expect(fresh.error()).toBeUndefined();
    expect(fresh.events.length).toBeGreaterThan(0);
  });

  it("serves one in-process server per key through the factory", async () => {
    const clock = new ManualClock();
    const registry = new SimulatedServerRegistry(clock);
    const config = simulatedConnectorConfigSchema.parse({
      kind: "simulated",
      platform: "MT5",
      serverKey: "org-1/demo-mt5",
      server: { accounts: 20, tradeRate: 0 },
    });
    const a = createConnector(config, { clock, simulatedServers: registry });
    const b = createConnector(config, { clock, simulatedServers: registry });
    await Promise.all([a.connect(), b.connect()]);
    const [group] = await a.listGroups();
    const created = await a.createAccount({ group: group?.name ?? "", name: "Shared", password: "Shared123" });
    expect((await b.getAccount(created.login)).name).toBe("Shared");
    expect(() => createConnector({ ...config, platform: "MT4" }, { clock, simulatedServers: registry })).toThrow(/is MT5/);
    registry.stopAll();
    await Promise.all([a.disconnect(), b.disconnect()]);
  });
});
