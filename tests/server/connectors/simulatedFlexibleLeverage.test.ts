/**
 * The simulated servers' Flexible Leverage plugin at work (server/connectors/simulated/engine/
 * flexibleLeverage.ts): saved rules (as `Rules.1…N` parameters) set the leverages they call for at
 * once, each change an `accountChanged` event and a journal line with the reason; on the server's
 * clock a weekend window applies when the server's clock reaches it and lifts after; nothing runs
 * while the plugin is disabled, with no active rule, or with rules it cannot read (said once in the
 * journal); a server that keeps its state comes back with the plugin's changes and its rules' change
 * time; both flavours, MT4's 127-character values included.
 */
import { deserialize } from "node:v8";
import { describe, expect, it } from "vitest";
import { FlexibleLeverageSettingsSchema, type FlexibleLeverageSettingsInput } from "../../../core/flexibleLeverage/index.ts";
import { encodeSettingsParameters } from "../../../core/flexibleLeverage/parameters.ts";
import { ManualClock } from "../../../server/connectors/clock.ts";
import { FLEXIBLE_LEVERAGE } from "../../../server/connectors/simulated/engine/plugins.ts";
import type { RecordedCommand, SavedSimulation, SimulationStore } from "../../../server/connectors/simulated/persistence/recorder.ts";
import { SimulatedServer } from "../../../server/connectors/simulated/server.ts";

class MemoryStore implements SimulationStore {
  snapshot: { bytes: Uint8Array; seq: number } | null = null;
  commands: RecordedCommand[] = [];
  load(): Promise<SavedSimulation | null> {
    const s = this.snapshot;
    return Promise.resolve(s && { snapshot: s.bytes, seq: s.seq, commands: structuredClone(this.commands) });
  }
  append(commands: readonly RecordedCommand[]): Promise<void> {
    this.commands.push(...structuredClone(commands));
    return Promise.resolve();
  }
  saveSnapshot(snapshot: Uint8Array, seq: number): Promise<void> {
    this.snapshot = { bytes: snapshot, seq };
    this.commands = this.commands.filter((c) => c.seq > seq);
    return Promise.resolve();
  }
}

const HOUR = 3_600_000;
// Friday 12 January 2024, 22:59:30 on the server's clock (UTC+2): half a minute before a 23:00 window.
const FRIDAY = Date.UTC(2024, 0, 12, 20, 59, 30);

function setUp(platform: "MT4" | "MT5") {
  const clock = new ManualClock(FRIDAY);
  const server = new SimulatedServer({ platform, clock, accounts: 10, tradeRate: 0, timeZoneOffsetMinutes: 120 });
  const engine = server.engine;
  const group = engine.groups().find((g) => g.defaultLeverage >= 100)!;
  const open = (name: string, deposit: number) => {
    const account = engine.createAccount({ group: group.name, name, password: "Secret123", leverage: group.defaultLeverage });
    engine.balance({ operationId: `dep-${name}`, login: account.login, type: "deposit", amount: deposit * 100, comment: "" });
    return account.login;
  };
  const rich = open("Rich", 60_000);
  const modest = open("Modest", 1_000);
  const id = FLEXIBLE_LEVERAGE[platform].id;
  const save = (settings: FlexibleLeverageSettingsInput, enabled = true) =>
    engine.updatePlugin({
      ...engine.plugins().find((p) => p.id === id)!,
      enabled,
      parameters: encodeSettingsParameters(FlexibleLeverageSettingsSchema.parse(settings)),
    });
  const leverageOf = (login: string) => engine.getAccount(login).leverage;
  return { clock, server, engine, group, rich, modest, save, leverageOf, id };
}

const rules = (groupName: string) => ({
  managers: ["1000"],
  rules: [
    {
      name: "Weekend",
      groups: groupName,
      mode: "equity" as const,
      windows: [{ kind: "weekend" as const, from: { day: "friday" as const, time: "23:00" }, to: { day: "sunday" as const, time: "23:00" }, leverage: 10 }],
    },
    {
      name: "Equity ladder",
      groups: groupName,
      mode: "equity" as const,
      tiers: [
        { threshold: 0, leverage: 100 },
        { threshold: 50_000, leverage: 50 },
      ],
    },
  ],
});

describe.each(["MT4", "MT5"] as const)("the %s simulated server's Flexible Leverage plugin", (platform) => {
  it("applies saved rules at once, each change on the event stream and in the journal with its reason", () => {
    const { engine, group, rich, modest, save, leverageOf } = setUp(platform);
    const before = engine.ctx.log.lastSequence;
    save(rules(group.name));
    expect(leverageOf(rich)).toBe(50);
    expect(leverageOf(modest)).toBe(100);
    const events = engine.ctx.log.since(before, 1000).transactions.flatMap((t) => t.events);
    expect(events.filter((e) => e.type === "accountChanged" && e.login === rich).map((e) => (e.type === "accountChanged" ? e.account.leverage : 0))).toEqual([
      50,
    ]);
    const lines = engine.journal(0, Number.MAX_SAFE_INTEGER, {}, 10_000).map((e) => e.message);
    expect(lines).toContain(
      `'${rich}': leverage 1:${group.defaultLeverage} → 1:50 by plugin '${FLEXIBLE_LEVERAGE[platform].id}.dll': rule 'Equity ladder', tier ≥ 50,000 ${group.currency} equity → 1:50`,
    );
    // Nothing more is due: a round changes nothing.
    expect(engine.flexibleLeverageDue()).toBe(0);
  });

  it("opens a weekend window when the server's clock reaches it, on its rounds", async () => {
    const { clock, server, group, rich, modest, save, leverageOf } = setUp(platform);
    save(rules(group.name));
    server.start();
    await clock.advance(20_000); // 22:59:50, before the window
    expect([leverageOf(rich), leverageOf(modest)]).toEqual([50, 100]);
    await clock.advance(20_000); // 23:00:10 on Friday: the window is open
    expect([leverageOf(rich), leverageOf(modest)]).toEqual([10, 10]);
    server.setServerClock(FRIDAY + 48 * HOUR + 40_000); // Sunday 23:00:10 on the server's clock
    await clock.advance(5_000); // its next round: closed again
    expect([leverageOf(rich), leverageOf(modest)]).toEqual([50, 100]);
    server.stop();
  });

  it("does nothing while disabled, with no active rule, or with rules it cannot read (said once)", () => {
    const { engine, group, rich, save, leverageOf, id } = setUp(platform);
    save(rules(group.name), false);
    expect(leverageOf(rich)).toBe(group.defaultLeverage);
    save({ rules: rules(group.name).rules.map((r) => ({ ...r, active: false })) });
    expect(leverageOf(rich)).toBe(group.defaultLeverage);
    const plugin = engine.plugins().find((p) => p.id === id)!;
    engine.updatePlugin({
      ...plugin,
      parameters: [
        { name: "Managers", value: "1000" },
        { name: "Rules.1", value: "[{" },
      ],
    });
    expect(engine.flexibleLeverageDue()).toBe(0);
    expect(engine.journal(0, Number.MAX_SAFE_INTEGER, {}, 10_000).filter((e) => /rules not applied: .*not JSON/.test(e.message))).toHaveLength(1);
  });

  it("comes back from its store with the plugin's changes, its rounds replayed", async () => {
    const store = new MemoryStore();
    const clock = new ManualClock(FRIDAY);
    const options = { platform, clock, seed: 3, accounts: 10, tradeRate: 0, timeZoneOffsetMinutes: 120, store, snapshotEveryCommands: 1_000 };
    const first = new SimulatedServer(options);
    await first.ready;
    const groupName = first.engine.groups().find((g) => g.defaultLeverage >= 100)!.name;
    const id = FLEXIBLE_LEVERAGE[platform].id;
    first.engine.updatePlugin({
      ...first.engine.plugins().find((p) => p.id === id)!,
      parameters: encodeSettingsParameters(FlexibleLeverageSettingsSchema.parse(rules(groupName))),
    });
    first.start();
    await clock.advance(40_000); // past 23:00 on Friday: a round sets the window's leverage
    await first.durable();
    expect(store.commands.map((c) => c.op)).toContain("runFlexibleLeverage");
    const inGroup = first.engine.listAccounts(null, 1000, groupName);
    expect(inGroup.length).toBeGreaterThan(0);
    expect(inGroup.every((a) => a.leverage === 10)).toBe(true);
    first.stop();

    const again = new SimulatedServer(options);
    await again.ready;
    expect(deserialize(again.capture())).toEqual(deserialize(first.capture()));
    expect(again.engine.flexibleLeverage.rulesChangedAt).toBe(first.engine.flexibleLeverage.rulesChangedAt);
    expect(again.engine.flexibleLeverageDue()).toBe(0);
    again.stop();
  });
});
