/**
 * A simulated server that keeps its state (decision 0069): restored from its store, it is the same
 * server — every part of the engine's state, not a list of fields — and a change is seen only once
 * written, so a crash between the two never loses or doubles one.
 */
import { deserialize } from "node:v8";
import { describe, expect, it } from "vitest";
import { configVersion, holidaysVersion, TRADE_PLATFORM_TYPES, type TradePlatformType } from "../../../core/trading/index.ts";
import { ManualClock } from "../../../server/connectors/clock.ts";
import type { TradePlatformConnector } from "../../../server/connectors/connector.ts";
import { createSimulatedConnector } from "../../../server/connectors/simulated/connector.ts";
import type { RecordedCommand, SavedSimulation, SimulationStore } from "../../../server/connectors/simulated/persistence/recorder.ts";
import { SimulatedServer } from "../../../server/connectors/simulated/server.ts";
import { expectConnectorError, uniqueId } from "./contract/helpers.ts";

class MemoryStore implements SimulationStore {
  snapshot: { bytes: Uint8Array; seq: number } | null = null;
  commands: RecordedCommand[] = [];
  failAppends = false;
  writes = 0;

  load(): Promise<SavedSimulation | null> {
    const s = this.snapshot;
    return Promise.resolve(s && { snapshot: s.bytes, seq: s.seq, commands: structuredClone(this.commands) });
  }
  append(commands: readonly RecordedCommand[]): Promise<void> {
    if (this.failAppends) return Promise.reject(new Error("database away"));
    this.writes++;
    this.commands.push(...structuredClone(commands));
    return Promise.resolve();
  }
  saveSnapshot(snapshot: Uint8Array, seq: number): Promise<void> {
    this.snapshot = { bytes: snapshot, seq };
    this.commands = this.commands.filter((c) => c.seq > seq);
    return Promise.resolve();
  }
}

function server(platform: TradePlatformType, store: MemoryStore, clock: ManualClock, snapshotEveryCommands = 50) {
  return new SimulatedServer({ platform, clock, seed: 7, accounts: 40, tradeRate: 20, store, snapshotEveryCommands });
}

async function connected(s: SimulatedServer): Promise<TradePlatformConnector> {
  const connector = createSimulatedConnector(s);
  await connector.connect();
  return connector;
}

const state = (s: SimulatedServer) => deserialize(s.capture()) as unknown;

describe("simulated servers that keep their state", () => {
  it.each(TRADE_PLATFORM_TYPES)("%s: a restored server is the same server, and goes on the same way", async (platform) => {
    const store = new MemoryStore();
    const clock = new ManualClock();
    const first = server(platform, store, clock);
    await first.ready;
    first.start();
    const connector = await connected(first);
    const account = await connector.createAccount({
      group: (await connector.listGroups())[0]!.name,
      name: "Persisted",
      leverage: 100,
      password: "Secret123!",
      investorPassword: "Investor123!",
    });
    await connector.balanceOperation({ operationId: uniqueId("persist"), login: account.login, type: "deposit", amount: 1_000_000, comment: "in" } as never);
    const order = await connector.placeOrder({
      requestId: uniqueId("persist"),
      login: account.login,
      symbol: "EURUSD",
      side: "buy",
      volume: 100,
      reason: "dealer",
    } as never);
    // Configuration writes are changes like any other: recorded, and written again on a restore.
    const group = (await connector.listGroups())[0]!;
    await connector.updateGroup(group.name, { marginCall: 140, maxPositions: group.maxPositions }, configVersion(group));
    const eurusd = (await connector.listSymbols()).find((s) => s.name === "EURUSD")!;
    await connector.updateSymbol("EURUSD", { swapLong: -4.5, volumeMax: 50_000 }, configVersion(eurusd));
    if (platform !== "MatchTrader")
      await connector.updateHolidays([{ date: "2030-01-01", from: 0, to: 0, symbols: "*", description: "New year", enabled: true }], holidaysVersion([]));
    await clock.advance(3_000);
    await first.durable();
    // Passwords are never written: the call that carried one became a snapshot.
    expect(JSON.stringify(store.commands)).not.toContain("Secret123!");
    expect(store.commands.length).toBeGreaterThan(0);

    // A crash: nothing is stopped or saved on purpose; a new server starts from the store.
    const second = server(platform, store, clock);
    await second.ready;
    expect(state(second)).toEqual(state(first));
    const restored = await connected(second);
    expect(await restored.getAccount(account.login)).toEqual(await connector.getAccount(account.login));
    expect(await restored.listGroups()).toEqual(await connector.listGroups());
    expect((await restored.listGroups()).find((g) => g.name === group.name)?.marginCall).toBe(140);
    expect((await restored.listSymbols()).find((x) => x.name === "EURUSD")).toMatchObject({ swapLong: -4.5, volumeMax: 50_000 });
    if (platform !== "MatchTrader") expect(await restored.listHolidays()).toHaveLength(1);
    // The simulated traders may have closed the order's position by now: the restored server shows the same positions either way.
    const open = await connector.openPositions(account.login);
    expect(await restored.openPositions(account.login)).toEqual(open);
    expect(order.positionId).toBeTruthy();

    // From here both run the same calls: any state the store dropped (a counter in a closure, a
    // new part of the engine) shows as a difference.
    first.stop();
    const again = new MemoryStore();
    again.snapshot = { bytes: second.capture(), seq: 0 };
    const twin = server(platform, again, clock);
    await twin.ready;
    for (const s of [second, twin]) {
      s.traders.step(30);
      s.engine.tickPrices();
    }
    expect(state(twin)).toEqual(state(second));
    second.stop();
    twin.stop();
    await connector.disconnect();
    await restored.disconnect();
  });

  it("answers a change only once it is written: a change that is not written is not seen, and its retry happens once", async () => {
    const store = new MemoryStore();
    const clock = new ManualClock();
    const first = new SimulatedServer({ platform: "MT5", clock, seed: 3, accounts: 10, tradeRate: 0, store });
    await first.ready;
    const connector = await connected(first);
    const login = (await connector.listAccounts({ limit: 1 })).items[0]!.login;
    const deposit = { operationId: uniqueId("persist"), login, type: "deposit", amount: 12_345, comment: "once" } as never;
    const before = (await connector.getAccount(login)).balance;
    store.failAppends = true;
    // The engine applied it, the write failed: the server stops, the client never hears "done".
    await expect(connector.balanceOperation(deposit)).rejects.toThrow();
    await expect(first.durable()).rejects.toThrow();
    store.failAppends = false;

    const second = new SimulatedServer({ platform: "MT5", clock, seed: 3, accounts: 10, tradeRate: 0, store });
    await second.ready;
    const retry = await connected(second);
    expect((await retry.getAccount(login)).balance).toBe(before);
    await retry.balanceOperation(deposit);
    await retry.balanceOperation(deposit);
    expect((await retry.getAccount(login)).balance).toBe(before + 12_345);

    // Written, then a crash before the answer: restored, the retry gets the first result and moves no money.
    const third = new SimulatedServer({ platform: "MT5", clock, seed: 3, accounts: 10, tradeRate: 0, store });
    await third.ready;
    const afterCrash = await connected(third);
    await afterCrash.balanceOperation(deposit);
    expect((await afterCrash.getAccount(login)).balance).toBe(before + 12_345);
    await expectConnectorError(afterCrash.balanceOperation({ ...(deposit as object), amount: 1 } as never), "invalidRequest");
    for (const c of [connector, retry, afterCrash]) await c.disconnect().catch(() => {});
    for (const s of [first, second, third]) s.stop();
  });

  it("gathers the clockwork's calls for its window, but writes a request's change (and what was gathered) at once", async () => {
    const store = new MemoryStore();
    const clock = new ManualClock();
    const s = new SimulatedServer({ platform: "MT5", clock, seed: 5, accounts: 10, tradeRate: 0, store, gatherMs: 60_000 });
    await s.ready;
    const connector = await connected(s);
    const login = (await connector.listAccounts({ limit: 1 })).items[0]!.login;
    const writes = store.writes;
    const recorded = store.commands.length;
    s.start();
    await clock.advance(3_000);
    await new Promise((r) => setTimeout(r, 50));
    // Ticks ran (the engine moved), but nothing is written within the window, and nobody saw them.
    expect(store.writes).toBe(writes);
    expect(store.commands).toHaveLength(recorded);

    // A deposit is answered at once (not a minute later), written with the ticks before it, in order.
    const started = Date.now();
    await connector.balanceOperation({ operationId: uniqueId("gather"), login, type: "deposit", amount: 1_000, comment: "now" } as never);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(store.writes).toBe(writes + 1);
    const ops = store.commands.slice(recorded).map((c) => c.op);
    expect(ops.filter((op) => op === "tickPrices").length).toBeGreaterThan(0);
    expect(ops.at(-1)).toBe("balance");
    const seqs = store.commands.map((c) => c.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    s.stop();
    await connector.disconnect();
  });
});
