/**
 * A large simulated server is built in slices that let the event loop run in between (the
 * platform runtime builds them so): other work is not held up while 100,000 accounts are made,
 * and the result is the same server as one built at once.
 */
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../server/connectors/clock.ts";
import { createSimulatedConnector } from "../../../server/connectors/simulated/connector.ts";
import { NO_POSITIONS } from "../../../server/connectors/simulated/engine/state.ts";
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

  it("keeps each account's open positions exactly, with no set for an account that holds none, through opening and closing", () => {
    const clock = new ManualClock();
    const server = new SimulatedServer({ platform: "MT5", clock, seed: 4, accounts: 400, tradeRate: 0 });
    const { state } = server.engine.ctx;
    const check = () => {
      // The shared empty set of accounts without positions never holds any.
      expect(NO_POSITIONS.size).toBe(0);
      const byLogin = new Map<string, string[]>();
      for (const position of state.positions.values()) byLogin.set(position.login, [...(byLogin.get(position.login) ?? []), position.id]);
      for (const account of state.accounts.values()) {
        expect([...account.positions].sort()).toEqual((byLogin.get(account.login) ?? []).sort());
        expect(account.positions === NO_POSITIONS).toBe(!byLogin.has(account.login));
      }
      // Read a page of accounts at a time (as the history backfill does), the positions cover every open one exactly once.
      const paged: string[] = [];
      for (let i = 0; i < state.logins.length; i += 37) paged.push(...server.engine.positionsOf(state.logins.slice(i, i + 37).map(String)).map((p) => p.id));
      expect(paged.length).toBe(state.positions.size);
      expect(new Set(paged)).toEqual(new Set(state.positions.keys()));
    };
    expect(state.positions.size).toBeGreaterThan(0);
    check();
    // Trading opens, changes and closes positions; accounts whose last position closed hold none again.
    server.traders.step(3_000);
    const emptied = [...state.accounts.values()].filter((a) => a.positions === NO_POSITIONS).length;
    expect(emptied).toBeGreaterThan(0);
    check();
  });
});
