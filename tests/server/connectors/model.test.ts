/** The normalized model's maths: money, volume, masks, margin. */
import fc from "./propertyTesting.ts";
import { describe, expect, it } from "vitest";
import {
  accountFigures,
  compileMask,
  conversionRate,
  formatLots,
  lotsToVolume,
  marginRequired,
  moneyFromDecimal,
  moneyToDecimal,
  moneyToNumber,
  positionProfit,
  roundToMinor,
  shareOfMoney,
  volumeToLots,
} from "../../../core/trading/index.ts";

const money = fc.integer({ min: -1e13, max: 1e13 });

describe("money in integer cents", () => {
  it("round-trips through decimal strings and platform doubles", () => {
    fc.assert(
      fc.property(money, (m) => {
        expect(moneyFromDecimal(moneyToDecimal(m))).toBe(m);
        expect(roundToMinor(moneyToNumber(m))).toBe(m);
      }),
    );
  });

  it("sums without float drift where doubles would drift", () => {
    const cents = Array.from({ length: 10 }, () => moneyFromDecimal("0.10"));
    expect(cents.reduce((a, b) => a + b, 0)).toBe(100);
    expect(Array.from({ length: 10 }, () => 0.1).reduce((a, b) => a + b, 0)).not.toBe(1);
  });

  it("rounds half away from zero, past binary noise", () => {
    expect(roundToMinor(1.005)).toBe(101);
    expect(roundToMinor(-1.005)).toBe(-101);
    expect(roundToMinor(2.675)).toBe(268);
    expect(roundToMinor(-0.001)).toBe(0);
    expect(Object.is(roundToMinor(-0.001), -0)).toBe(false);
  });

  it("refuses amounts it cannot hold exactly", () => {
    expect(() => moneyFromDecimal("1.005")).toThrow(/decimal places/);
    expect(() => moneyFromDecimal("12,50")).toThrow(/Not a decimal/);
    expect(moneyFromDecimal("-0.50")).toBe(-50);
    expect(moneyFromDecimal("7")).toBe(700);
    expect(moneyToDecimal(-5)).toBe("-0.05");
  });

  it("splits an amount into parts that always add up", () => {
    fc.assert(
      fc.property(money, fc.integer({ min: 1, max: 1e6 }), fc.integer({ min: 1, max: 1e6 }), (total, a, b) => {
        const whole = a + b;
        const part = shareOfMoney(total, a, whole);
        expect(Number.isSafeInteger(part)).toBe(true);
        expect(part + (total - part)).toBe(total);
        expect(Math.abs(part)).toBeLessThanOrEqual(Math.abs(total));
      }),
    );
  });
});

describe("volume in 1/10000 lots", () => {
  it("round-trips lots with up to four decimals", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e9 }), (v) => {
        expect(lotsToVolume(volumeToLots(v))).toBe(v);
        expect(lotsToVolume(Number(formatLots(v)))).toBe(v);
      }),
    );
    expect(lotsToVolume(0.07)).toBe(700);
    expect(lotsToVolume(0.1 + 0.2)).toBe(3000);
  });
});

describe("group masks", () => {
  it("matches wildcards, checks exclusions first, and ignores case", () => {
    const mask = compileMask("demo*,real\\*,!real\\test*");
    expect(mask("demo-usd")).toBe(true);
    expect(mask("real\\retail")).toBe(true);
    expect(mask("REAL\\Retail")).toBe(true);
    expect(mask("real\\test-1")).toBe(false);
    expect(mask("contest")).toBe(false);
    expect(compileMask("")("anything")).toBe(true);
    expect(compileMask("!demo*")("real")).toBe(true);
    expect(compileMask("!demo*")("demo1")).toBe(false);
    expect(compileMask("a.b")("axb")).toBe(false);
  });
});

describe("profit, margin and account figures", () => {
  it("keeps equity = balance + credit + profit + swap to the cent, and free margin = equity − margin", () => {
    const exposure = fc.record({
      profit: fc.integer({ min: -1e9, max: 1e9 }),
      swap: fc.integer({ min: -1e6, max: 1e6 }),
      margin: fc.integer({ min: 0, max: 1e9 }),
    });
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e11 }), fc.integer({ min: 0, max: 1e8 }), fc.array(exposure, { maxLength: 30 }), (balance, credit, positions) => {
        const f = accountFigures(balance, credit, positions, { marginLevelMode: "percent", marginCall: 100, stopOut: 50 });
        const floating = positions.reduce((s, p) => s + p.profit + p.swap, 0);
        expect(f.equity).toBe(balance + credit + floating);
        expect(f.freeMargin).toBe(f.equity - f.margin);
        if (f.margin === 0) expect([f.marginLevel, f.marginState]).toEqual([null, "ok"]);
        else if (f.marginLevel !== null && f.marginLevel <= 50) expect(f.marginState).toBe("stopOut");
      }),
    );
  });

  it("computes profit from prices, contract size and conversion", () => {
    // 1 lot EURUSD bought at 1.10000, closed at 1.10123: 12.3 pips × $10.
    expect(positionProfit({ side: "buy", volume: 10_000, openPrice: 1.1, closePrice: 1.10123, contractSize: 100_000, rateToAccount: 1 })).toBe(12_300);
    // 0.5 lot USDJPY sold at 145.500, bought back at 145.000, in USD at 145.
    expect(positionProfit({ side: "sell", volume: 5_000, openPrice: 145.5, closePrice: 145, contractSize: 100_000, rateToAccount: 1 / 145 })).toBe(17_241);
    // 0.1 lot EURUSD at 1.1 with 1:100: 11,000 USD notional, 110 USD margin.
    expect(marginRequired({ volume: 1_000, price: 1.1, contractSize: 100_000, rateToAccount: 1, leverage: 100, maxLeverage: null })).toBe(11_000);
    expect(marginRequired({ volume: 10_000, price: 46_000, contractSize: 1, rateToAccount: 1, leverage: 500, maxLeverage: 20 })).toBe(230_000);
  });

  it("converts currencies directly, inversely or through USD", () => {
    const mids: Record<string, number> = { EURUSD: 1.1, USDJPY: 150 };
    const mid = (s: string) => mids[s];
    expect(conversionRate("USD", "USD", mid)).toBe(1);
    expect(conversionRate("EUR", "USD", mid)).toBe(1.1);
    expect(conversionRate("JPY", "USD", mid)).toBeCloseTo(1 / 150, 12);
    expect(conversionRate("JPY", "EUR", mid)).toBeCloseTo(1 / 150 / 1.1, 12);
    expect(conversionRate("CHF", "EUR", mid)).toBeUndefined();
  });
});
