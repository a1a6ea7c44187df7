/**
 * The copy rules' volume figures against hand computations (each test says its arithmetic):
 * every volume mode, contract-size alignment, step rounding, limits and force minimum, and
 * partial closes.
 */
import { describe, expect, it } from "vitest";
import { decide, fitVolume, partialCloseVolume, type Decision } from "../../../core/copier/index.ts";
import { context, position, settings, symbol } from "./fixtures.ts";

function openedVolume(decision: Decision): number {
  if (decision.kind !== "copy" || decision.action.type !== "open") throw new Error(`not an open: ${JSON.stringify(decision)}`);
  return decision.action.volume;
}

describe("volume modes", () => {
  it("same: 0.10 lot stays 0.10 lot (1,000)", () => {
    expect(openedVolume(decide({ type: "open", time: 1_000_000, position: position({ volume: 1000 }) }, settings(), context()))).toBe(1000);
  });

  it("multiplier 2: 0.10 lot → 0.20 lot (2,000)", () => {
    const s = settings({ volume: { mode: "multiplier", multiplier: 2 } });
    expect(openedVolume(decide({ type: "open", time: 1_000_000, position: position({ volume: 1000 }) }, s, context()))).toBe(2000);
  });

  it("multiplier 0.3 of 0.10 lot: 0.03 exactly, not 0.02 from float noise (0.1 × 0.3 = 0.030000000000000002)", () => {
    const s = settings({ volume: { mode: "multiplier", multiplier: 0.3 } });
    expect(openedVolume(decide({ type: "open", time: 1_000_000, position: position({ volume: 1000 }) }, s, context()))).toBe(300);
    const s7 = settings({ volume: { mode: "multiplier", multiplier: 0.7 } });
    // 0.7 × 1,000 = 700.0000000000001 in floats, and 0.07 lot must come out.
    expect(openedVolume(decide({ type: "open", time: 1_000_000, position: position({ volume: 1000 }) }, s7, context()))).toBe(700);
  });

  it("fixed 0.05 lot whatever the source's volume", () => {
    const s = settings({ volume: { mode: "fixed", lots: "0.05" } });
    expect(openedVolume(decide({ type: "open", time: 1_000_000, position: position({ volume: 70_000 }) }, s, context()))).toBe(500);
  });

  it("equity: 1.00 lot × 2,500.00 ÷ 10,000.00 = 0.25 lot", () => {
    const s = settings({ volume: { mode: "equity", factor: 1 } });
    const ctx = context({ follower: { balance: 1, equity: 250_000 }, source: { balance: 1, equity: 1_000_000 } });
    expect(openedVolume(decide({ type: "open", time: 1_000_000, position: position({ volume: 10_000 }) }, s, ctx))).toBe(2500);
  });

  it("balance × factor 1.5: 0.33 lot × 1,000 ÷ 3,000 × 1.5 = 0.165, rounded down to 0.16", () => {
    const s = settings({ volume: { mode: "balance", factor: 1.5 } });
    const ctx = context({ follower: { balance: 100_000, equity: 1 }, source: { balance: 300_000, equity: 1 } });
    expect(openedVolume(decide({ type: "open", time: 1_000_000, position: position({ volume: 3300 }) }, s, ctx))).toBe(1600);
  });

  it("a source without equity gives nothing to scale: volumeZero, even with force minimum", () => {
    const s = settings({ volume: { mode: "equity", factor: 1 }, forceMinimum: true });
    const ctx = context({ source: { balance: 0, equity: 0 } });
    expect(decide({ type: "open", time: 1_000_000, position: position() }, s, ctx)).toEqual({ kind: "skip", reason: "volumeZero" });
  });

  it("risk 1% of 10,000.00 with a 50-pip stop on EURUSD (100,000 a lot, USD account): 100 ÷ (100,000 × 0.0050) = 0.20 lot", () => {
    const s = settings({ volume: { mode: "riskPercent", percent: 1 } });
    const p = position({ openPrice: 1.1, sl: 1.095 });
    expect(openedVolume(decide({ type: "open", time: 1_000_000, position: p }, s, context()))).toBe(2000);
  });

  it("risk 1% on USDJPY with a 50-yen-sen stop, 150 JPY a dollar: 100 ÷ (100,000 × 0.50 ÷ 150) = 0.30 lot", () => {
    const jpy = symbol("USDJPY", { digits: 3 });
    const s = settings({ volume: { mode: "riskPercent", percent: 1 } });
    const p = position({ symbol: "USDJPY", openPrice: 150, sl: 149.5 });
    const ctx = context({ sourceSymbol: jpy, profitRate: 1 / 150 }, [jpy]);
    expect(openedVolume(decide({ type: "open", time: 1_000_000, position: p }, s, ctx))).toBe(3000);
  });

  it("risk percent without a stop loss, or without a rate, is skipped with the reason", () => {
    const s = settings({ volume: { mode: "riskPercent", percent: 1 } });
    expect(decide({ type: "open", time: 1_000_000, position: position({ sl: null }) }, s, context())).toEqual({ kind: "skip", reason: "noStopLossForRisk" });
    const p = position({ sl: 1.09 });
    expect(decide({ type: "open", time: 1_000_000, position: p }, s, context({ profitRate: undefined }))).toEqual({ kind: "skip", reason: "noConversionRate" });
  });
});

describe("contract-size alignment", () => {
  const gold100 = symbol("XAUUSD", { contractSize: 100, digits: 2 });
  const gold10 = symbol("GOLD", { contractSize: 10, digits: 2 });
  const s = (align: boolean) => settings({ alignContractSize: align, symbols: { pairs: [{ source: "XAUUSD", follower: "GOLD" }] } });
  const ctx = context({ sourceSymbol: gold100 }, [gold10]);
  const open = { type: "open" as const, time: 1_000_000, position: position({ symbol: "XAUUSD", volume: 500, openPrice: 2000 }) };

  it("0.05 lot of 100 oz is 5 oz: 0.50 lot of the follower's 10 oz", () => {
    expect(openedVolume(decide(open, s(true), ctx))).toBe(5000);
  });

  it("off: the same lots (0.05)", () => {
    expect(openedVolume(decide(open, s(false), ctx))).toBe(500);
  });
});

describe("fitting to the follower's symbol", () => {
  const eurusd = symbol("EURUSD", { volumeMin: 1000, volumeMax: 1_000_000, volumeStep: 100 });

  it("rounds down to the step, never up: 0.179 lot → 0.17", () => {
    expect(fitVolume(1790, settings(), eurusd)).toEqual({ volume: 1700 });
  });

  it("caps at the symbol's maximum (100 lots) and at the follower's (5 lots)", () => {
    expect(fitVolume(1_200_000, settings(), eurusd)).toEqual({ volume: 1_000_000 });
    expect(fitVolume(1_200_000, settings({ maxLots: "5" }), eurusd)).toEqual({ volume: 50_000 });
  });

  it("below the minimum (0.10): skipped, or the minimum with force minimum", () => {
    expect(fitVolume(500, settings(), eurusd)).toEqual({ skip: "volumeBelowMinimum" });
    expect(fitVolume(500, settings({ forceMinimum: true }), eurusd)).toEqual({ volume: 1000 });
    expect(fitVolume(40, settings(), eurusd)).toEqual({ skip: "volumeZero" });
  });

  it("the follower's own minimum (0.30) is above the symbol's", () => {
    expect(fitVolume(2000, settings({ minLots: "0.3" }), eurusd)).toEqual({ skip: "volumeBelowMinimum" });
    expect(fitVolume(2000, settings({ minLots: "0.3", forceMinimum: true }), eurusd)).toEqual({ volume: 3000 });
  });

  it("a forced minimum above the maximum is skipped, never sent above the maximum", () => {
    expect(
      fitVolume(100, settings({ minLots: "0.5", maxLots: "0.5", forceMinimum: true }), symbol("X", { volumeMin: 100, volumeMax: 3000, volumeStep: 100 })),
    ).toEqual({
      skip: "volumeBelowMinimum",
    });
  });
});

describe("partial closes", () => {
  const eurusd = symbol("EURUSD", { volumeMin: 100, volumeStep: 100 });

  it("source closes 0.50 of 1.00: a follower of 0.30 closes 0.15", () => {
    expect(partialCloseVolume(3000, 10_000, 5000, eurusd)).toEqual({ volume: 1500, whole: false });
  });

  it("source closes half: a follower of 0.03 closes 0.01 (0.015 rounded down)", () => {
    expect(partialCloseVolume(300, 10_000, 5000, eurusd)).toEqual({ volume: 100, whole: false });
  });

  it("a share that rounds to zero closes nothing: 0.01 × ½", () => {
    expect(partialCloseVolume(100, 10_000, 5000, eurusd)).toEqual({ skip: "volumeZero" });
  });

  it("a remainder below the minimum (0.10) closes all: 0.15 × ½ = 0.07 leaves 0.08", () => {
    expect(partialCloseVolume(1500, 10_000, 5000, symbol("EURUSD", { volumeMin: 1000, volumeStep: 100 }))).toEqual({ volume: 1500, whole: true });
  });

  it("through decide: the source's remaining 0.60 and closed 0.40 of 1.00 close 0.40 × 0.20 ÷ 1.00 = 0.08 of the follower", () => {
    const copied = { positionId: "9", symbol: "EURUSD", side: "buy" as const, volume: 2000, openPrice: 1.1 };
    const d = decide({ type: "partialClose", time: 1, position: position({ volume: 6000 }), closedVolume: 4000 }, settings(), context({ copied }));
    expect(d).toMatchObject({ kind: "copy", action: { type: "close", positionId: "9", volume: 800, whole: false } });
    expect(
      decide(
        { type: "partialClose", time: 1, position: position({ volume: 6000 }), closedVolume: 4000 },
        settings({ copyPartialCloses: false }),
        context({ copied }),
      ),
    ).toEqual({
      kind: "skip",
      reason: "partialClosesOff",
    });
  });
});
