/**
 * Contract: configuration writes (docs/connectors.md, "Configuration writes"): a group or symbol
 * written and read back, values the platform's rules refuse and fields it cannot take refused
 * with nothing changed, a change made meanwhile refused with the server's version, and the
 * simulated server obeying what was written (volume limits, margin call and stop-out levels).
 */
import { expect, it } from "vitest";
import { configVersion, holidaysVersion, type Group, type Holiday, type TradeSymbol } from "../../../../core/trading/index.ts";
import { ConfigChangedError } from "../../../../server/connectors/errors.ts";
import type { ConnectorHarness } from "./harness.ts";
import { expectConnectorError, fundedAccount, uniqueId } from "./helpers.ts";

async function groupNamed(h: ConnectorHarness, name?: string): Promise<Group> {
  const groups = await h.connector.listGroups();
  const group = name === undefined ? groups.find((g) => g.currency === "USD" && g.marginLevelMode === "percent") : groups.find((g) => g.name === name);
  if (!group) throw new Error(`no group ${name ?? "in USD"}`);
  return group;
}

async function symbolNamed(h: ConnectorHarness, name: string): Promise<TradeSymbol> {
  const symbol = (await h.connector.listSymbols()).find((s) => s.name === name);
  if (!symbol) throw new Error(`no symbol ${name}`);
  return symbol;
}

/** The group as the simulation behind the server holds it, read apart from the connector. */
function simulatedGroup(h: ConnectorHarness, name: string): Group | undefined {
  return h.simulation.engine.groups().find((g) => g.name === name);
}

export function configContract(h: () => ConnectorHarness): void {
  it("writes a group and a symbol, answers them as the server now holds them, and reads them back under a new version", async () => {
    const harness = h();
    const { connector } = harness;
    const group = await groupNamed(harness);
    const written = await connector.updateGroup(
      group.name,
      { marginCall: 120.5, stopOut: 40, defaultLeverage: 300, commissionPerLot: 350 },
      configVersion(group),
    );
    expect(written).toEqual({ ...group, marginCall: 120.5, stopOut: 40, defaultLeverage: 300, commissionPerLot: 350 });
    const read = await groupNamed(harness, group.name);
    expect(read).toEqual(written);
    expect(configVersion(read)).not.toBe(configVersion(group));
    expect(simulatedGroup(harness, group.name)).toMatchObject({ marginCall: 120.5, stopOut: 40, defaultLeverage: 300 });
    // A new account without a leverage of its own takes the group's written default.
    expect((await connector.createAccount({ group: group.name, name: "Config Trader", password: "Contract1" })).leverage).toBe(300);

    const symbol = await symbolNamed(harness, "XAUUSD");
    const metaTrader = connector.platform !== "MatchTrader";
    const patch = {
      contractSize: 50,
      swapLong: -3.25,
      volumeMin: 1000,
      volumeStep: 500,
      volumeMax: 50_000,
      tradeMode: "closeOnly" as const,
      description: "Gold, written",
      // MetaTrader's spread balance and margin figures (Match-Trader has neither).
      ...(metaTrader ? { spreadBalance: -4, marginInitial: 1500, marginMaintenance: 1000, marginHedged: 750 } : {}),
    };
    const writtenSymbol = await connector.updateSymbol("XAUUSD", patch, configVersion(symbol));
    expect(writtenSymbol).toEqual({ ...symbol, ...patch });
    expect(await symbolNamed(harness, "XAUUSD")).toEqual(writtenSymbol);
    // The version read back is the one to write with next.
    const again = await connector.updateSymbol("XAUUSD", { tradeMode: "full" }, configVersion(writtenSymbol));
    expect(again.tradeMode).toBe("full");
  });

  it("refuses values the platform's rules refuse and fields it cannot take, with a plain sentence, and changes nothing", async () => {
    const harness = h();
    const { connector } = harness;
    const group = await groupNamed(harness);
    const version = configVersion(group);
    // Each write starts when checked (a refusal not yet awaited would be an unhandled rejection).
    const refusals: [() => Promise<unknown>, RegExp][] = [
      [
        () => connector.updateGroup(group.name, { marginCall: 30, stopOut: 50 }, version),
        /margin call level \(30 %\) must be above the stop-out level \(50 %\)/,
      ],
      [() => connector.updateGroup(group.name, { defaultLeverage: 0 }, version), /default leverage must be a whole number from 1 to 10000/],
      [() => connector.updateGroup(group.name, { currency: group.currency === "USD" ? "EUR" : "USD" }, version), /currency cannot be changed/],
      [() => connector.updateGroup(group.name, { name: "renamed" } as never, version), /name cannot be changed/],
    ];
    if (connector.platform === "MT4") refusals.push([() => connector.updateGroup(group.name, { marginMode: "netting" }, version), /always hedge/]);
    if (connector.platform === "MatchTrader")
      refusals.push([() => connector.updateGroup(group.name, { fifoClose: !group.fifoClose }, version), /no FIFO close rule/]);
    const symbol = await symbolNamed(harness, "EURUSD");
    const symbolVersion = configVersion(symbol);
    refusals.push(
      [() => connector.updateSymbol("EURUSD", { digits: 9 }, symbolVersion), /Digits must be a whole number from 0 to 8/],
      [
        () => connector.updateSymbol("EURUSD", { volumeMin: 20_000, volumeMax: 10_000 }, symbolVersion),
        /minimum volume \(2 lot\) must not be above the maximum \(1 lot\)/,
      ],
      [
        () => connector.updateSymbol("EURUSD", { volumeStep: 300, volumeMin: 1000 }, symbolVersion),
        /volume step \(0.03 lot\) must divide the minimum volume \(0.1 lot\)/,
      ],
    );
    if (connector.platform === "MatchTrader")
      refusals.push(
        [() => connector.updateSymbol("EURUSD", { spread: symbol.spread + 5 }, symbolVersion), /bid and ask markups/],
        [() => connector.updateSymbol("EURUSD", { marginInitial: 1000 }, symbolVersion), /no margin figures/],
      );
    else refusals.push([() => connector.updateSymbol("EURUSD", { marginHedged: -1 }, symbolVersion), /hedged margin must be an amount per lot/]);
    for (const [write, message] of refusals) {
      const error = await expectConnectorError(write(), "invalidRequest");
      expect(error.message).toMatch(message);
    }
    expect(configVersion(await groupNamed(harness, group.name))).toBe(version);
    expect(configVersion(await symbolNamed(harness, "EURUSD"))).toBe(symbolVersion);
    await expectConnectorError(connector.updateGroup("no-such-group", { maxPositions: 5 }, version), "notFound");
  });

  it("refuses a write when the server's object changed since it was read, with the server's version, and writes with that version", async () => {
    const harness = h();
    const { connector } = harness;
    const group = await groupNamed(harness);
    const read = configVersion(group);
    // Another manager (another connection) changes the group meanwhile.
    const other = await harness.restarted();
    const theirs = await other.updateGroup(group.name, { marginCall: 150 }, read);
    const error = await expectConnectorError(connector.updateGroup(group.name, { marginCall: 110, maxPositions: 20 }, read), "rejected");
    expect(error).toBeInstanceOf(ConfigChangedError);
    const conflict = error as ConfigChangedError<Group>;
    expect(conflict.current).toEqual(theirs);
    expect(conflict.currentVersion).toBe(configVersion(theirs));
    expect(conflict.message).toMatch(/changed on the trading server since it was read; nothing was sent/);
    expect(simulatedGroup(harness, group.name)).toMatchObject({ marginCall: 150, maxPositions: group.maxPositions });
    // Staged again on the server's version, it goes through.
    const mine = await connector.updateGroup(group.name, { marginCall: 110 }, conflict.currentVersion);
    expect(mine.marginCall).toBe(110);

    const symbol = await symbolNamed(harness, "GBPUSD");
    await other.updateSymbol("GBPUSD", { swapShort: 1.5 }, configVersion(symbol));
    const stale = await expectConnectorError(connector.updateSymbol("GBPUSD", { swapShort: 2 }, configVersion(symbol)), "rejected");
    expect((stale as ConfigChangedError<TradeSymbol>).current.swapShort).toBe(1.5);
  });

  it("the server obeys a written volume limit: orders outside it are refused, orders inside it fill", async () => {
    const harness = h();
    const { connector } = harness;
    const login = await fundedAccount(connector);
    const symbol = await symbolNamed(harness, "EURUSD");
    await connector.updateSymbol("EURUSD", { volumeMin: 1000, volumeMax: 5000, volumeStep: 1000 }, configVersion(symbol));
    const order = (volume: number) => ({ requestId: uniqueId("cfg"), login, symbol: "EURUSD", side: "buy" as const, volume });
    for (const volume of [10_000, 100]) {
      const refused = await expectConnectorError(connector.placeOrder(order(volume)), "rejected");
      expect(refused.reason).toBe("invalidVolume");
    }
    const filled = await connector.placeOrder(order(5000));
    expect(filled.volume).toBe(5000);
    expect(await connector.openPositions(login)).toHaveLength(1);
  });

  it("the server obeys written margin call and stop-out levels: the account's state follows them, and a stop out closes its positions", async () => {
    const harness = h();
    const { connector } = harness;
    const login = await fundedAccount(connector);
    const account = await connector.getAccount(login);
    await connector.placeOrder({ requestId: uniqueId("cfg"), login, symbol: "EURUSD", side: "buy", volume: 10_000 });
    const level = (await connector.getAccount(login)).marginLevel;
    if (level === null) throw new Error("no margin level with a position open");
    // About 900 % (1 lot of EURUSD at 1:100 on 10,000 USD): a margin call from 2000 %, a stop out from 1500 %.
    let group = await groupNamed(harness, account.group);
    group = await connector.updateGroup(account.group, { marginCall: 2000, stopOut: 50 }, configVersion(group));
    expect((await connector.getAccount(login)).marginState).toBe("marginCall");
    expect(await connector.openPositions(login)).toHaveLength(1);
    await connector.updateGroup(account.group, { stopOut: 1500 }, configVersion(group));
    await harness.advance(2000);
    expect(await connector.openPositions(login)).toHaveLength(0);
  });

  it("reads and writes the server's holidays (MetaTrader), refused when changed meanwhile, and the market shuts on one", async () => {
    const harness = h();
    const { connector } = harness;
    if (!harness.holidays) {
      const error = await expectConnectorError(connector.listHolidays(), "invalidRequest");
      expect(error.message).toMatch(/no server holidays|no command for the server's holidays/);
      await expectConnectorError(connector.updateHolidays([], "c1-0000000000000000"), "invalidRequest");
      return;
    }
    const login = await fundedAccount(connector);
    const order = (symbol: string) => ({ requestId: uniqueId("hol"), login, symbol, side: "buy" as const, volume: 1000 });
    const before = await connector.listHolidays();
    const { time, timeZoneOffsetMinutes } = await connector.serverTime();
    const today = new Date(time + timeZoneOffsetMinutes * 60_000).toISOString().slice(0, 10);
    const holiday: Holiday = { date: today, from: 0, to: 0, symbols: "EURUSD", description: "Contract day", enabled: true };
    const written = await connector.updateHolidays([...before, holiday], holidaysVersion(before));
    expect(written).toEqual([...before, holiday]);
    expect(await connector.listHolidays()).toEqual(written);
    expect(harness.simulation.engine.holidays()).toEqual(written);
    // The server obeys it: EURUSD is shut today, GBPUSD trades.
    const shut = await expectConnectorError(connector.placeOrder(order("EURUSD")), "rejected");
    expect(shut.reason).toBe("marketClosed");
    expect((await connector.placeOrder(order("GBPUSD"))).volume).toBe(1000);

    const invalid = await expectConnectorError(connector.updateHolidays([{ ...holiday, date: "2026-02-30" }], holidaysVersion(written)), "invalidRequest");
    expect(invalid.message).toMatch(/Holiday 1: the date must be a real day/);
    const other = await harness.restarted();
    await other.updateHolidays(before, holidaysVersion(written));
    const stale = await expectConnectorError(connector.updateHolidays([holiday], holidaysVersion(written)), "rejected");
    expect(stale).toBeInstanceOf(ConfigChangedError);
    expect((stale as ConfigChangedError<Holiday[]>).current).toEqual(before);
    // The other manager's change (the holiday taken out) opens the market again.
    expect((await connector.placeOrder(order("EURUSD"))).volume).toBe(1000);
  });
}
