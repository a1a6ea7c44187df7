import { useCallback, useMemo } from "react";
import type uPlot from "uplot";
import { cn } from "../cn";
import { Chart, type ChartOptions } from "./Chart";
import type { ChartTone } from "./theme";

export interface BarDatum {
  label: string;
  value: number;
  /** The bar's colour; the primary green by default. */
  tone?: ChartTone;
}

interface BarChartProps {
  data: readonly BarDatum[];
  /** Names the chart for screen readers, which read it as a list of label/value pairs. */
  label: string;
  /** Formats values on the bars and for screen readers. */
  format?: (value: number) => string;
  /** Height of the drawing in CSS pixels. */
  height?: number;
  className?: string;
}

const COLOR = 3 as uPlot.Series.BarsPathBuilderFacetUnit.Color;

/** Vertical bars with their values on top and labels below (uPlot), and the same figures as a list for screen readers. */
export function BarChart({ data, label, format = String, height = 160, className }: BarChartProps) {
  // The drawing changes with the labels, tones and format; the values alone are new data.
  const shape = JSON.stringify(data.map((d) => ({ label: d.label, tone: d.tone ?? "primary" })));
  const bars = useMemo(() => JSON.parse(shape) as { label: string; tone: ChartTone }[], [shape]);
  const options = useCallback<ChartOptions>(
    (theme, UPlot) => {
      const font = `12px ${theme.fontFamily}`;
      return {
        legend: { show: false },
        cursor: { show: false },
        padding: [22, 8, 0, 8],
        scales: {
          x: { time: false, range: [-0.5, bars.length - 0.5] },
          y: { range: (_u, _min, max) => [0, Math.max(1, max)] },
        },
        axes: [
          {
            stroke: theme.muted,
            font,
            size: 24,
            gap: 4,
            grid: { show: false },
            ticks: { show: false },
            splits: () => bars.map((_, i) => i),
            values: (_u, splits) => splits.map((i) => bars[i]?.label ?? ""),
          },
          { show: false },
        ],
        series: [
          {},
          {
            label,
            // No outline: uPlot then fills each bar with its own colour (disp.fill).
            width: 0,
            fill: theme.tone("primary"),
            paths: UPlot.paths.bars!({
              size: [0.6, 48],
              radius: [0.08, 0],
              disp: { fill: { unit: COLOR, values: () => bars.map((b) => theme.tone(b.tone)) } },
            }),
            points: { show: false },
          },
        ],
        hooks: {
          // The value above each bar.
          draw: [
            (u) => {
              const ratio = UPlot.pxRatio;
              const values = u.data[1] ?? [];
              u.ctx.save();
              u.ctx.fillStyle = theme.fg;
              u.ctx.font = `500 ${Math.round(12 * ratio)}px ${theme.fontFamily}`;
              u.ctx.textAlign = "center";
              u.ctx.textBaseline = "bottom";
              values.forEach((value, i) => {
                if (value == null) return;
                u.ctx.fillText(format(value), u.valToPos(i, "x", true), u.valToPos(value, "y", true) - 4 * ratio);
              });
              u.ctx.restore();
            },
          ],
        },
      };
    },
    [bars, label, format],
  );
  const chartData = useMemo<uPlot.AlignedData>(() => [data.map((_, i) => i), data.map((d) => d.value)], [data]);
  return (
    <figure className={cn("grid", className)}>
      <figcaption className="sr-only">{label}</figcaption>
      <Chart options={options} data={chartData} height={height} />
      <ul className="sr-only" aria-label={label}>
        {data.map((d) => (
          <li key={d.label}>
            {d.label}: {format(d.value)}
          </li>
        ))}
      </ul>
    </figure>
  );
}
