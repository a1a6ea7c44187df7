// @vitest-environment node
/**
 * Configuration writes, the pure part (core/trading/configVersion.ts, configRules.ts): the version
 * of an object ignores key order and the platform's ids and changes with any field; the platforms'
 * rules for groups and symbols over generated values (fast-check, fixed seed; FC_SEED=<n> explores
 * others); what each platform cannot take.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  configVersion,
  groupProblems,
  holidayProblems,
  holidayShuts,
  holidaysProblems,
  holidaysVersion,
  patchGroup,
  patchSymbol,
  symbolProblems,
  TRADE_PLATFORM_TYPES,
  type Group,
  type Holiday,
  type TradeSymbol,
} from "../../core/trading/index.ts";

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 20_261_128), numRuns: 300 });

const group: Group = {
  name: "real\\retail-usd",
  currency: "USD",
  defaultLeverage: 100,
  marginLevelMode: "percent",
  marginCall: 100,
  stopOut: 50,
  marginMode: "hedging",
  hedgingProhibited: false,
  fifoClose: false,
  maxPositions: 200,
  symbols: "*",
  commissionPerLot: 0,
  native: { platform: "MT5" },
};

const symbol: TradeSymbol = {
  name: "EURUSD",
  description: "Euro vs US Dollar",
  class: "forex",
  path: "Forex\\Majors\\EURUSD",
  digits: 5,
  contractSize: 100_000,
  baseCurrency: "EUR",
  profitCurrency: "USD",
  executionMode: "instant",
  tradeMode: "full",
  spread: 12,
  spreadBalance: 0,
  stopsLevel: 10,
  freezeLevel: 0,
  swapLong: -2.5,
  swapShort: 0.8,
  volumeMin: 100,
  volumeMax: 1_000_000,
  volumeStep: 100,
  maxLeverage: null,
  marginInitial: 0,
  marginMaintenance: 0,
  marginHedged: 0,
  sessions: [{ day: 1, from: 5, to: 1440 }],
};

const problemsOf = <T>(check: { ok: true; value: T } | { ok: false; problems: string[] }) => (check.ok ? [] : check.problems);

describe("configVersion", () => {
  it("is the same whatever the key order and the platform's ids, and differs with any field", () => {
    const reversed = Object.fromEntries(Object.entries(group).reverse()) as unknown as Group;
    expect(configVersion(reversed)).toBe(configVersion(group));
    expect(configVersion({ ...group, native: { platform: "MatchTrader", offerId: "x", branch: "Demo" } })).toBe(configVersion(group));
    expect(configVersion(group)).toMatch(/^c1-[0-9a-f]{16}$/);
    fc.assert(
      fc.property(fc.constantFrom(...(Object.keys(group).filter((k) => k !== "native") as (keyof Group)[])), fc.anything(), (field, value) => {
        fc.pre(JSON.stringify(value) !== JSON.stringify(group[field]) && value !== undefined);
        expect(configVersion({ ...group, [field]: value })).not.toBe(configVersion(group));
      }),
    );
  });

  it("tells apart values whose JSON differs only inside nested lists", () => {
    const moved = { ...symbol, sessions: [{ day: 1, from: 6, to: 1440 }] };
    expect(configVersion(moved)).not.toBe(configVersion(symbol));
  });
});

describe("group rules", () => {
  it("wants the margin call above the stop out, both percentages of at most two decimals", () => {
    const level = fc.integer({ min: 0, max: 1_000_000 }).map((n) => n / 100);
    fc.assert(
      fc.property(level, level, (marginCall, stopOut) => {
        const problems = groupProblems({ ...group, marginCall, stopOut });
        expect(problems.length === 0).toBe(marginCall > stopOut);
        if (marginCall <= stopOut) expect(problems.join(" ")).toMatch(/must be above the stop-out level/);
      }),
    );
    expect(groupProblems({ ...group, marginCall: 100.555 }).join(" ")).toMatch(/at most two decimals/);
    expect(groupProblems({ ...group, marginLevelMode: "money", marginCall: 50_000, stopOut: 60_000 }).join(" ")).toMatch(
      /margin call level \(500.00 USD\) must be above the stop-out level \(600.00 USD\)/,
    );
    expect(groupProblems({ ...group, marginLevelMode: "money", marginCall: 100.5, stopOut: 0 }).join(" ")).toMatch(/amount of equity in cents/);
  });

  it("wants a leverage from 1 to 10000, a position limit, masks and a commission", () => {
    fc.assert(
      fc.property(fc.integer({ min: -10, max: 20_000 }), (leverage) => {
        expect(groupProblems({ ...group, defaultLeverage: leverage }).length === 0).toBe(leverage >= 1 && leverage <= 10_000);
      }),
    );
    expect(groupProblems({ ...group, maxPositions: -1 }).join(" ")).toMatch(/maximum of open positions/);
    expect(groupProblems({ ...group, symbols: "Forex\\*,,!Crypto\\*" }).join(" ")).toMatch(/empty mask/);
    expect(groupProblems({ ...group, symbols: "" })).toEqual([]);
    expect(groupProblems({ ...group, commissionPerLot: 1.5 }).join(" ")).toMatch(/commission per lot/);
  });

  it("refuses a field the platform cannot take, unless it is sent unchanged, and a name or unknown field anywhere", () => {
    expect(problemsOf(patchGroup("MT4", group, { marginMode: "netting" }))).toEqual([
      "MetaTrader 4 accounts always hedge: a group cannot be switched to netting.",
    ]);
    expect(patchGroup("MT4", group, { marginMode: "hedging", marginCall: 120 })).toMatchObject({ ok: true, value: { marginCall: 120 } });
    expect(patchGroup("MT5", group, { marginMode: "netting" })).toMatchObject({ ok: true, value: { marginMode: "netting" } });
    expect(problemsOf(patchGroup("MatchTrader", group, { fifoClose: true, maxPositions: 3 })).join(" ")).toMatch(
      /no FIFO close rule.*no limit on open positions/,
    );
    expect(problemsOf(patchGroup("MatchTrader", group, { marginLevelMode: "money", marginCall: 10_000, stopOut: 5_000 })).join(" ")).toMatch(
      /percentages of margin/,
    );
    for (const platform of TRADE_PLATFORM_TYPES) {
      expect(problemsOf(patchGroup(platform, group, { currency: "EUR" })).join(" ")).toMatch(/currency cannot be changed/);
      expect(problemsOf(patchGroup(platform, group, { name: "other" } as never)).join(" ")).toMatch(/name cannot be changed/);
      expect(problemsOf(patchGroup(platform, group, { leverage: 5 } as never)).join(" ")).toMatch(/"leverage" is not a field of a group/);
      expect(problemsOf(patchGroup(platform, group, null as never))).toHaveLength(1);
    }
  });
});

describe("symbol rules", () => {
  it("wants volumes whose step divides the minimum and the maximum, the minimum not above the maximum", () => {
    const volume = fc.integer({ min: 1, max: 200 }).map((n) => n * 50);
    fc.assert(
      fc.property(volume, volume, volume, (volumeMin, volumeMax, volumeStep) => {
        const problems = symbolProblems({ ...symbol, volumeMin, volumeMax, volumeStep }, "MT5");
        const valid = volumeMin <= volumeMax && volumeMin % volumeStep === 0 && volumeMax % volumeStep === 0;
        expect(problems.length === 0).toBe(valid);
      }),
    );
    expect(symbolProblems({ ...symbol, volumeMin: 50, volumeStep: 50 }, "MT5")).toEqual([]);
    expect(symbolProblems({ ...symbol, volumeMin: 50, volumeStep: 50 }, "MT4").join(" ")).toMatch(/finer than MetaTrader 4 trades: use steps of 0.01 lot/);
    expect(symbolProblems({ ...symbol, volumeMin: 0 }, "MT5").join(" ")).toMatch(/minimum volume must be a positive volume/);
  });

  it("wants digits 0 to 8, a positive contract size, whole points and sessions that do not overlap", () => {
    fc.assert(
      fc.property(fc.integer({ min: -2, max: 12 }), (digits) => {
        expect(symbolProblems({ ...symbol, digits }, "MT5").length === 0).toBe(digits >= 0 && digits <= 8);
      }),
    );
    expect(symbolProblems({ ...symbol, contractSize: 0 }, "MT5").join(" ")).toMatch(/contract size must be a positive number/);
    expect(symbolProblems({ ...symbol, spread: 1.5 }, "MT5").join(" ")).toMatch(/spread must be a whole number of points/);
    expect(symbolProblems({ ...symbol, maxLeverage: 0 }, "MT5").join(" ")).toMatch(/maximum leverage/);
    const overlapping = [
      { day: 2, from: 0, to: 600 },
      { day: 2, from: 599, to: 1440 },
    ];
    expect(symbolProblems({ ...symbol, sessions: overlapping }, "MT5").join(" ")).toMatch(/Two Tuesday sessions overlap/);
    expect(symbolProblems({ ...symbol, sessions: [{ day: 7, from: 0, to: 10 }] }, "MT5").join(" ")).toMatch(/weekday \(0 Sunday to 6 Saturday\)/);
    expect(symbolProblems({ ...symbol, sessions: [{ day: 3, from: 600, to: 600 }] }, "MT5")).toHaveLength(1);
  });

  it("refuses what Match-Trader's instruments cannot take, and what no platform lets change", () => {
    expect(problemsOf(patchSymbol("MatchTrader", symbol, { spread: 20, executionMode: "market" })).join(" ")).toMatch(/bid and ask markups.*no execution mode/);
    expect(patchSymbol("MT4", symbol, { spread: 20 })).toMatchObject({ ok: true, value: { spread: 20 } });
    for (const platform of TRADE_PLATFORM_TYPES)
      expect(problemsOf(patchSymbol(platform, symbol, { profitCurrency: "EUR" })).join(" ")).toMatch(/profit currency cannot be changed/);
    expect(patchSymbol("MT5", symbol, { volumeMax: 5000, sessions: [] })).toMatchObject({ ok: true, value: { volumeMax: 5000, sessions: [] } });
  });
});

describe("holidays", () => {
  const holiday: Holiday = { date: "2026-12-25", from: 0, to: 0, symbols: "Forex\\*", description: "Christmas", enabled: true };
  const at = (date: string, minute: number) => Date.parse(`${date}T00:00:00Z`) + minute * 60_000;

  it("shut the symbols they apply to on their day, outside their trading window, when enabled", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1440 }), fc.integer({ min: 0, max: 1440 }), fc.integer({ min: 0, max: 1439 }), (a, b, minute) => {
        const [from, to] = a <= b ? [a, b] : [b, a];
        const h = { ...holiday, from, to };
        const eurusd = { name: "EURUSD", path: "Forex\\Majors\\EURUSD" };
        expect(holidayShuts([h], eurusd, at("2026-12-25", minute))).toBe(!(minute >= from && minute < to));
        expect(holidayShuts([h], eurusd, at("2026-12-24", minute))).toBe(false);
        expect(holidayShuts([{ ...h, enabled: false }], eurusd, at("2026-12-25", minute))).toBe(false);
        expect(holidayShuts([h], { name: "BTCUSD", path: "Crypto\\Spot\\BTCUSD" }, at("2026-12-25", minute))).toBe(false);
      }),
    );
    expect(holidayShuts([{ ...holiday, symbols: "BTCUSD" }], { name: "BTCUSD", path: "Crypto\\Spot\\BTCUSD" }, at("2026-12-25", 600))).toBe(true);
  });

  it("want a real date, a window with its start before its end (or 0 to 0), what they apply to; one per date and symbols", () => {
    expect(holidayProblems(holiday)).toEqual([]);
    expect(holidayProblems({ ...holiday, date: "2026-02-30" }).join(" ")).toMatch(/real day/);
    expect(holidayProblems({ ...holiday, from: 600, to: 600 }).join(" ")).toMatch(/start before its end/);
    expect(holidayProblems({ ...holiday, symbols: " " }).join(" ")).toMatch(/what it applies to/);
    expect(holidaysProblems([holiday, { ...holiday, description: "again" }]).join(" ")).toMatch(/Two holidays on 2026-12-25/);
    expect(holidaysVersion([holiday])).not.toBe(holidaysVersion([{ ...holiday, to: 60 }]));
    expect(holidaysVersion([])).toBe(configVersion({ holidays: [] }));
  });
});
