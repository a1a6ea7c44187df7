import { useCallback, useMemo } from "react";
import type uPlot from "uplot";
import { cn } from "../cn";
import { Chart, type ChartOptions } from "./Chart";
import { withAlpha, type ChartTone } from "./theme";

interface SparklineProps {
  values: readonly number[];
  /** When each value was taken (ms since 1970), for a live series; evenly spaced when left out. */
  times?: readonly number[];
  /** What the line shows, read by screen readers with its first, last, lowest and highest value. */
  label: string;
  format?: (value: number) => string;
  tone?: ChartTone;
  /** Height of the drawing in CSS pixels. */
  height?: number;
  className?: string;
}

/** A small trend line (uPlot) that stretches to its box. No axes: context comes from the text around it. */
export function Sparkline({ values, times, label, format = String, tone = "primary", height = 40, className }: SparklineProps) {
  const options = useCallback<ChartOptions>(
    (theme) => {
      const color = theme.tone(tone);
      return {
        legend: { show: false },
        cursor: { show: false },
        padding: [4, 1, 2, 1],
        scales: { x: { time: false } },
        axes: [{ show: false }, { show: false }],
        series: [
          {},
          {
            label,
            stroke: color,
            width: 1.75,
            points: { show: false },
            fill: (u) => {
              const gradient = u.ctx.createLinearGradient(0, u.bbox.top, 0, u.bbox.top + u.bbox.height);
              gradient.addColorStop(0, withAlpha(color, 0.25));
              gradient.addColorStop(1, withAlpha(color, 0));
              return gradient;
            },
          },
        ],
      };
    },
    [tone, label],
  );
  const data = useMemo<uPlot.AlignedData>(() => [times ? [...times] : values.map((_, i) => i), [...values]], [values, times]);
  if (values.length < 2) return <div className={cn(className)} style={{ height }} role="img" aria-label={`${label}: not enough data`} />;
  const first = values[0]!;
  const last = values[values.length - 1]!;
  const summary = `${label}: from ${format(first)} to ${format(last)}, lowest ${format(Math.min(...values))}, highest ${format(Math.max(...values))}`;
  return (
    <div role="img" aria-label={summary} className={cn("w-full", className)}>
      <Chart options={options} data={data} height={height} />
    </div>
  );
}
