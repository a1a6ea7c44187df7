/**
 * Net exposure as the blotter's side panel draws it: every symbol in the organization's currency
 * through the servers' own rates (app/features/trades-blotter/exposureCurrency.ts), ranked in that
 * currency, never guessed without a rate; and a chart that draws shorts (negative bars) with its
 * labels in rows of their own (app/ui/charts/HorizontalBarChart.tsx).
 */
import { cleanup, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { ExposureRates } from "@core/schemas/tradesBlotter";
import { convertExposure } from "~/features/trades-blotter/exposureCurrency";
import type { SymbolExposure } from "~/features/trades-blotter/blotterTotals";
import { barGeometry, HorizontalBarChart } from "~/ui/charts/HorizontalBarChart";

const P = "00000000-0000-4000-8000-000000000001";
const USDJPY = 154.2;
const rates: ExposureRates = {
  currency: "USD",
  asOf: "2026-11-27T08:00:00.000Z",
  unavailable: [],
  symbols: [
    { platformId: P, symbol: "USDJPY", contractSize: 100_000, quoteCurrency: "JPY", rate: 1 / USDJPY },
    { platformId: P, symbol: "XAUUSD", contractSize: 100, quoteCurrency: "USD", rate: 1 },
    { platformId: P, symbol: "EURSEK", contractSize: 100_000, quoteCurrency: "SEK", rate: null },
  ],
};
const exposure = (symbol: string, netLots: number, price: number, contractSize: number | null): SymbolExposure => ({
  symbol,
  netLots,
  notional: contractSize === null ? null : netLots * contractSize * price,
  lotPrice: netLots * price,
});

describe("net exposure in one currency", () => {
  afterEach(cleanup);

  it("converts each quote currency with the servers' rate and ranks by the converted notional", () => {
    // The case: USDJPY -9.69 lots is -149M in JPY, and topped the chart above 2 lots of gold.
    const list = [exposure("USDJPY", -9.69, USDJPY, 100_000), exposure("XAUUSD", 2, 2650, 100)];
    expect(Math.abs(list[0]!.notional!)).toBeGreaterThan(Math.abs(list[1]!.notional!));
    const converted = convertExposure(list, rates);
    // Expected by hand: lots × contract size in USD (USDJPY's base is USD), gold at 2650 USD × 100 oz.
    expect(converted.map((e) => e.symbol)).toEqual(["USDJPY", "XAUUSD"]);
    expect(converted[0]!.value).toBeCloseTo(-969_000, 6);
    expect(converted[1]!.value).toBeCloseTo(530_000, 6);
    const ranked = convertExposure([exposure("USDJPY", -3, USDJPY, 100_000), exposure("XAUUSD", 2, 2650, 100)], rates);
    expect(ranked.map((e) => [e.symbol, Math.round(e.value!)])).toEqual([
      ["XAUUSD", 530_000],
      ["USDJPY", -300_000],
    ]);
  });

  it("takes the contract size from the servers for rows without one, and says why a symbol cannot be converted", () => {
    const [gold] = convertExposure([exposure("XAUUSD", -1.5, 2000, null)], rates);
    expect(gold!.value).toBeCloseTo(-300_000, 6);
    const [sek, unknown] = convertExposure([exposure("EURSEK", 1, 11.5, 100_000), exposure("US30", 1, 44_000, 1)], rates);
    expect(sek).toMatchObject({ value: null, missing: "No quote on the servers converts SEK to USD" });
    expect(unknown).toMatchObject({ value: null, missing: "No connected server lists this symbol" });
    expect(convertExposure([exposure("XAUUSD", 1, 2000, 100)], null)[0]).toMatchObject({ value: null });
  });

  it("draws shorts left of the zero line and longs right of it, on one scale", () => {
    const g = barGeometry([-969_000, 530_000]);
    expect(g.zero).toBeCloseTo((969_000 / 1_499_000) * 100, 9);
    expect(g.bars[0]!.width).toBeGreaterThan(0);
    expect(g.bars[0]!.left + g.bars[0]!.width).toBeCloseTo(g.zero, 9);
    expect(g.bars[1]!.left).toBeCloseTo(g.zero, 9);
    expect(g.bars[0]!.width / g.bars[1]!.width).toBeCloseTo(969_000 / 530_000, 9);
    // Only shorts: zero at the right edge, the bars still drawn.
    expect(barGeometry([-5, -1])).toEqual({
      zero: 100,
      bars: [
        { left: 0, width: 100 },
        { left: 80, width: 20 },
      ],
    });

    render(
      <HorizontalBarChart
        label="Net notional by symbol, USD"
        data={[
          { label: "USDJPY", value: -969_000 },
          { label: "XAUUSD", value: 530_000 },
        ]}
        format={(v) => `${Math.round(v / 1000)}K`}
      />,
    );
    const list = screen.getByRole("list", { name: "Net notional by symbol, USD" });
    expect(
      within(list)
        .getAllByRole("listitem")
        .map((li) => li.textContent),
    ).toEqual(["USDJPYUSDJPY: -969K", "XAUUSDXAUUSD: 530K"]);
    const bars = screen.getAllByTestId("bar");
    expect(bars.map((b) => Number.parseFloat(b.style.width))).toEqual([expect.closeTo(64.64, 1), expect.closeTo(35.36, 1)]);
    expect(bars[0]!.className).toContain("bg-danger");
  });
});
