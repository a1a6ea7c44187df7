import { cleanup, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import fc from "fast-check";
import { BarChart } from "~/ui/charts/BarChart";
import { niceTicks } from "~/ui/charts/LineChart";
import { Sparkline } from "~/ui/charts/Sparkline";
import { withAlpha } from "~/ui/charts/theme";

describe("charts (bars as elements, lines with uPlot on a canvas; the figures in text for screen readers)", () => {
  afterEach(cleanup);

  it("a bar chart reads as a named list of label and value, its drawing hidden from screen readers", () => {
    const { container } = render(
      <BarChart
        label="Platforms by type"
        format={(v) => `${v} servers`}
        data={[
          { label: "MT4", value: 2, tone: "info" },
          { label: "MT5", value: 5 },
        ]}
      />,
    );
    const list = screen.getByRole("list", { name: "Platforms by type" });
    expect(
      within(list)
        .getAllByRole("listitem")
        .map((li) => li.textContent),
    ).toEqual(["MT4: 2 servers", "MT5: 5 servers"]);
    expect(container.querySelector("figcaption")?.textContent).toBe("Platforms by type");
    const drawing = container.querySelector("[aria-hidden]") as HTMLElement;
    expect(drawing.style.height).toBe("160px");
    // Drawn with plain elements (no chart library on the overview's first screen): each bar's height is its share of the largest.
    const bars = [...drawing.querySelectorAll<HTMLElement>("[data-testid=bar]")];
    expect(bars.map((b) => [b.dataset.value, b.style.height])).toEqual([
      ["2", "40%"],
      ["5", "100%"],
    ]);
    expect(drawing.textContent).toBe("2 servers" + "MT4" + "5 servers" + "MT5");
  });

  it("a sparkline is one image whose name summarises the series", () => {
    render(<Sparkline label="Equity" values={[102, 99, 124, 120]} format={(v) => `$${v}`} />);
    expect(screen.getByRole("img").getAttribute("aria-label")).toBe("Equity: from $102 to $120, lowest $99, highest $124");
    cleanup();
    render(<Sparkline label="Equity" values={[102]} />);
    expect(screen.getByRole("img").getAttribute("aria-label")).toBe("Equity: not enough data");
  });

  it("fades theme colours for the area under a line", () => {
    expect(withAlpha("oklch(0.52 0.14 152)", 0.25)).toBe("oklch(0.52 0.14 152 / 0.25)");
    expect(withAlpha("rgb(1, 2, 3)", 0.5)).toBe("transparent");
  });
  it("a line chart's axis takes round steps over a range that holds zero and every value", () => {
    expect(niceTicks(0, 7.3)).toEqual({ ticks: [0, 2, 4, 6, 8], low: 0, high: 8 });
    expect(niceTicks(0, 0).ticks).toContain(0);
    fc.assert(
      // Lots and money: hundredths.
      fc.property(fc.integer({ min: -1e9, max: 1e9 }), fc.integer({ min: -1e9, max: 1e9 }), (x, y) => {
        const [min, max] = x < y ? [x / 100, y / 100] : [y / 100, x / 100];
        const { ticks, low, high } = niceTicks(min, max);
        expect(low).toBeLessThanOrEqual(Math.min(0, min));
        expect(high).toBeGreaterThanOrEqual(Math.max(0, max));
        expect(ticks).toContain(0);
        expect(ticks.length).toBeGreaterThanOrEqual(2);
        expect(ticks.length).toBeLessThanOrEqual(12);
      }),
    );
  });
});
