/**
 * A large simulated server is built in slices that let the event loop run in between (the
 * platform runtime builds them so): other work is not held up while 100,000 accounts are made,
 * and the result is the same server as one built at once.
 */
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../server/connectors/clock.ts";
import { createSimulatedConnector } from "../../../server/connectors/simulated/connector.ts";
import { SimulatedServer } from "../../../server/connectors/simulated/server.ts";

describe("a simulated server built in slices", () => {
  it("lets the event loop run while it builds, accepts connections once built, and builds the same accounts", async () => {
    const clock = new ManualClock();
    const sliced = new SimulatedServer({ platform: "MT4", clock, seed: 9, accounts: 30_000, tradeRate: 0, populateInSlices: true });
    expect(sliced.engine.ctx.state.accounts.size).toBeLessThan(30_000);
    // Timers of the process get their turn meanwhile.
    let turns = 0;
    const timer = setInterval(() => turns++, 1);
    const connector = createSimulatedConnector(sliced, { clock });
    await connector.connect(); // waits for the build
    clearInterval(timer);
    expect(sliced.engine.ctx.state.accounts.size).toBe(30_000);
    expect(turns).toBeGreaterThan(3);

    const whole = new SimulatedServer({ platform: "MT4", clock, seed: 9, accounts: 30_000, tradeRate: 0 });
    const page = (s: SimulatedServer) => JSON.stringify(s.engine.listAccounts(null, 30_000, null));
    expect(page(sliced)).toBe(page(whole));
    await connector.disconnect();
  });

  it("starts trading only once built, and stops building when stopped", async () => {
    const clock = new ManualClock();
    const server = new SimulatedServer({ platform: "MT5", clock, seed: 2, accounts: 20_000, tradeRate: 50, populateInSlices: true });
    server.start();
    // Nothing on the clock yet: no feed, no traders until the accounts are in.
    expect(server.engine.populated).toBe(false);
    expect(clock.pendingTimers).toBe(0);
    await server.ready;
    expect(clock.pendingTimers).toBeGreaterThan(0);
    await clock.advance(1_000);
    expect(server.traders.attempted).toBe(50);

    const abandoned = new SimulatedServer({ platform: "MT5", clock, seed: 2, accounts: 50_000, tradeRate: 0, populateInSlices: true });
    abandoned.stop();
    await abandoned.ready;
    expect(abandoned.engine.ctx.state.accounts.size).toBeLessThan(50_000);
  });

  it("runs thousands of trading actions a second in several short tasks, at the same rate", async () => {
    const clock = new ManualClock();
    const server = new SimulatedServer({ platform: "MT5", clock, seed: 2, accounts: 500, tradeRate: 5_000 });
    server.start();
    const batches: number[] = [];
    const step = server.traders.step.bind(server.traders);
    server.traders.step = (actions: number) => {
      batches.push(actions);
      return step(actions);
    };
    await clock.advance(1_000);
    expect(server.traders.attempted).toBe(5_000);
    expect(Math.max(...batches)).toBeLessThanOrEqual(200);
    server.stop();
  });
});
