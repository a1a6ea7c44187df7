// @vitest-environment node
/** The Quotes Monitor's symbol map and comparison (core/schemas/quoteComparison.ts), with the test's own arithmetic. */
import { describe, expect, it } from "vitest";
import {
  compareQuotes,
  defaultInstrument,
  EMPTY_SYMBOL_MAP,
  instrumentResolver,
  isOverThreshold,
  type ComparedQuote,
} from "../../core/schemas/quoteComparison.ts";

const q = (platformId: string, symbol: string, bid: number, ask: number, digits = 5, session: ComparedQuote["session"] = "open"): ComparedQuote => ({
  platformId,
  symbol,
  digits,
  bid,
  ask,
  session,
  lastTickAt: 1,
});

describe("the symbol map", () => {
  it("strips what follows a separator and separators in front by default, and the organization's own prefixes and suffixes", () => {
    const name = (s: string) => defaultInstrument(s, EMPTY_SYMBOL_MAP);
    expect(["EURUSD", "eurusd", "EURUSD.pro", "EURUSD_i", "EURUSD#", "#EURUSD", "EURUSD-ecn", "EURUSD+"].map(name)).toEqual(Array(8).fill("EURUSD"));
    expect(name("EURUSDm")).toBe("EURUSDM");
    expect(name("#")).toBe("#");
    const map = { ...EMPTY_SYMBOL_MAP, prefixes: ["fx"], suffixes: ["m", "micro"] };
    expect(["EURUSDm", "EURUSDmicro", "fxEURUSD", "FXEURUSDm.r"].map((s) => defaultInstrument(s, map))).toEqual(Array(4).fill("EURUSD"));
    // A name that is only the affix stays itself.
    expect(defaultInstrument("m", map)).toBe("M");
    expect(defaultInstrument("EURUSD.pro", { ...EMPTY_SYMBOL_MAP, stripAfterSeparator: false })).toBe("EURUSD.PRO");
  });

  it("takes an explicit pair over the default, for that platform only", () => {
    const of = instrumentResolver({ ...EMPTY_SYMBOL_MAP, pairs: [{ platformId: "A", symbol: "GOLD", instrument: "xauusd" }] });
    expect(of("a", "GOLD")).toBe("XAUUSD");
    expect(of("b", "GOLD")).toBe("GOLD");
    expect(of("b", "XAUUSD.r")).toBe("XAUUSD");
  });
});

describe("the comparison", () => {
  const of = instrumentResolver(EMPTY_SYMBOL_MAP);

  it("measures the highest minus the lowest open mid, one quote per platform, in points of the fewest digits", () => {
    const rows = compareQuotes(
      [
        q("a", "EURUSD", 1.1, 1.1002), // mid 1.1001
        q("b", "EURUSD.pro", 1.10025, 1.10035), // mid 1.1003
        q("c", "EURUSD", 1.0995, 1.0997, 4), // mid 1.0996, four digits
        q("a", "EURUSD.x", 2, 2.1), // a second EURUSD on a: the one named as the instrument is measured
        q("d", "EURUSD", 1.2, 1.2, 5, "closed"), // closed: not measured
        q("a", "GBPUSD", 1.27, 1.2702), // on one platform only: no row
      ],
      of,
    );
    expect(rows.map((r) => r.instrument)).toEqual(["EURUSD"]);
    const [row] = rows;
    // (1.1003 − 1.0996) × 10^4 = 7 points.
    expect(row).toMatchObject({ highPlatformId: "b", lowPlatformId: "c", differencePoints: 7, threshold: null });
    expect(row!.quotes).toHaveLength(5);
  });

  it("has no difference with fewer than two open platforms, and applies the threshold given", () => {
    const [row] = compareQuotes([q("a", "US30", 37_500, 37_502, 1), q("b", "US30", 37_600, 37_602, 1, "holiday")], of, () => 50);
    expect(row).toMatchObject({ differencePoints: null, threshold: 50 });
    expect(isOverThreshold(row!)).toBe(false);
    const [wide] = compareQuotes([q("a", "US30", 37_500, 37_502, 1), q("b", "US30", 37_506, 37_508, 1)], of, () => 50);
    expect(wide!.differencePoints).toBe(60);
    expect(isOverThreshold(wide!)).toBe(true);
    expect(isOverThreshold(wide!, 60)).toBe(false);
    expect(isOverThreshold({ ...wide!, threshold: null })).toBe(false);
  });
});
