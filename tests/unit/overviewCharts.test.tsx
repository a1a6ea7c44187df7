import { cleanup, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import type { Overview } from "@core/schemas/overview";
import { OverviewCharts, seriesOf } from "~/features/overview/OverviewCharts";
import { useDisplayStore } from "~/ui/format";

const platforms = [
  { id: "p1", name: "Alpha MT5" },
  { id: "p2", name: "Beta MT4" },
];
const overview: Overview = {
  asOf: "2026-11-23T05:20:31.000Z",
  timeZone: "UTC",
  dayStart: "2026-11-23T00:00:00.000Z",
  platforms: [],
  copier: null,
  hourly: [
    { platformId: "p1", at: "2026-11-23T05:00:00.000Z", volume: "1.5", profit: "-20.25" },
    { platformId: "p2", at: "2026-11-22T06:00:00.000Z", volume: "0.1", profit: "3.00" },
    // Outside the 24 hours, and an unknown platform: left out.
    { platformId: "p1", at: "2026-11-22T05:00:00.000Z", volume: "9", profit: "9.00" },
    { platformId: "zz", at: "2026-11-23T04:00:00.000Z", volume: "9", profit: "9.00" },
  ],
  daily: [
    { platformId: "p1", at: "2026-11-17T00:00:00.000Z", volume: "2", profit: "1250.50" },
    { platformId: "p1", at: "2026-11-23T00:00:00.000Z", volume: "1.5", profit: "-20.25" },
  ],
};

describe("the overview's volume and P/L charts", () => {
  afterEach(cleanup);

  it("fills every hour of the last 24 and every day of the last 7, 0 where the API left a bucket out", () => {
    const hourly = seriesOf(overview, platforms, "24h");
    expect(hourly.times).toHaveLength(24);
    expect(new Date(hourly.times[0]!).toISOString()).toBe("2026-11-22T06:00:00.000Z");
    expect(new Date(hourly.times[23]!).toISOString()).toBe("2026-11-23T05:00:00.000Z");
    expect(hourly.volume[0]![23]).toBe(1.5);
    expect(hourly.profit[0]![23]).toBe(-20.25);
    expect(hourly.volume[1]![0]).toBe(0.1);
    expect(hourly.volume.flat().reduce((a, b) => a + b, 0)).toBeCloseTo(1.6);

    const daily = seriesOf(overview, platforms, "7d");
    expect(daily.times.map((t) => new Date(t).toISOString().slice(0, 10))).toEqual([
      "2026-11-17",
      "2026-11-18",
      "2026-11-19",
      "2026-11-20",
      "2026-11-21",
      "2026-11-22",
      "2026-11-23",
    ]);
    expect(daily.profit[0]).toEqual([1250.5, 0, 0, 0, 0, 0, -20.25]);
    expect(daily.profit[1]).toEqual([0, 0, 0, 0, 0, 0, 0]);
  });

  it("gives screen readers a table per chart and a total per platform", () => {
    render(<OverviewCharts overview={overview} platforms={platforms} />);
    const table = screen.getByRole("table", { name: /^P\/L by platform, the last 24 hours/ });
    expect(within(table).getAllByRole("row")).toHaveLength(25);
    expect(
      within(table)
        .getAllByRole("columnheader")
        .map((h) => h.textContent),
    ).toEqual(["Hour", "Alpha MT5", "Beta MT4"]);
    expect(screen.getByText(/Total: Alpha MT5 -20\.25, Beta MT4 3\.00/)).toBeTruthy();
    expect(screen.getByText(/Total: Alpha MT5 1\.50, Beta MT4 0\.10/)).toBeTruthy();
    expect(screen.getByRole("radio", { name: "24 h" }).getAttribute("aria-checked")).toBe("true");
  });

  it("reads the values at a time from the keyboard: focus shows the latest bucket, the arrows move through them, hours in the zone the API counted in", async () => {
    // The API counted in India's time (UTC+05:30): its hours start at :30 UTC, and the one
    // starting 04:30 UTC reads 10:00, named; 05:20 UTC is in it.
    useDisplayStore.getState().setPreference({ locale: "en-GB" });
    onTestFinished(() => useDisplayStore.getState().setPreference({}));
    const india: Overview = {
      ...overview,
      timeZone: "Asia/Kolkata",
      dayStart: "2026-11-22T18:30:00.000Z",
      hourly: [
        { platformId: "p1", at: "2026-11-23T04:30:00.000Z", volume: "1.5", profit: "-20.25" },
        { platformId: "p2", at: "2026-11-22T05:30:00.000Z", volume: "0.1", profit: "3.00" },
      ],
    };
    const user = userEvent.setup();
    render(<OverviewCharts overview={india} platforms={platforms} />);
    const slider = screen.getByRole("slider", { name: "Volume (lots) at a time" });
    const readout = () => within(slider.closest("figure")!).getByTestId("chart-readout").textContent;
    expect(readout()).toMatch(/^Point at the chart/);

    await user.tab(); // the period's radio group
    while (document.activeElement !== slider) await user.tab();
    expect(readout()).toBe("10:00 (Asia/Kolkata)Alpha MT5: 1.50Beta MT4: 0.00");
    expect(slider.getAttribute("aria-valuetext")).toBe("10:00 (Asia/Kolkata): Alpha MT5 1.50, Beta MT4 0.00");
    await user.keyboard("{ArrowLeft}");
    expect(readout()).toBe("09:00 (Asia/Kolkata)Alpha MT5: 0.00Beta MT4: 0.00");
    await user.keyboard("{Home}");
    expect(readout()).toBe("11:00 (Asia/Kolkata)Alpha MT5: 0.00Beta MT4: 0.10");
    expect(slider.getAttribute("aria-valuenow")).toBe("0");

    // The P/L chart reads its own figures; leaving a chart clears its readout.
    await user.tab();
    const profit = screen.getByRole("slider", { name: "P/L at a time" });
    expect(document.activeElement).toBe(profit);
    expect(readout()).toMatch(/^Point at the chart/);
    expect(within(profit.closest("figure")!).getByTestId("chart-readout").textContent).toBe("10:00 (Asia/Kolkata)Alpha MT5: -20.25Beta MT4: 0.00");

    // Its 7 days are India's days: each starts at 18:30 UTC the day before.
    const days = seriesOf(india, platforms, "7d").times.map((t) => new Date(t).toISOString());
    expect(days[0]).toBe("2026-11-16T18:30:00.000Z");
    expect(days[6]).toBe("2026-11-22T18:30:00.000Z");
  });
});
