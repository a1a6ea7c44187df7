import { cn } from "../cn";
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

const FILL: Record<ChartTone, string> = { primary: "bg-primary", success: "bg-primary", info: "bg-info", warning: "bg-warning", danger: "bg-danger" };

/**
 * Vertical bars from zero with their values on top and labels below, and the same figures as a list
 * for screen readers. Plain elements, not a canvas (like HorizontalBarChart): a handful of bars, on
 * the overview's first screen, which then needs no chart library (issue 30: uPlot is a fifth of
 * that screen's JavaScript). Values below zero draw no bar.
 */
export function BarChart({ data, label, format = String, height = 160, className }: BarChartProps) {
  const max = Math.max(1, ...data.map((d) => d.value));
  return (
    <figure className={cn("grid", className)}>
      <figcaption className="sr-only">{label}</figcaption>
      <div aria-hidden className="flex w-full gap-2 px-2" style={{ height }}>
        {data.map((d) => {
          const share = `${(Math.max(0, d.value) / max) * 100}%`;
          return (
            <div key={d.label} className="flex min-w-0 flex-1 flex-col">
              <div className="flex flex-1 flex-col pt-5">
                <div className="relative flex-1">
                  <span className="absolute inset-x-0 text-center text-xs font-medium tabular-nums" style={{ bottom: `calc(${share} + 4px)` }}>
                    {format(d.value)}
                  </span>
                  <span
                    data-testid="bar"
                    data-value={d.value}
                    className={cn("absolute bottom-0 left-1/2 w-3/5 max-w-12 -translate-x-1/2 rounded-t-sm", FILL[d.tone ?? "primary"])}
                    style={{ height: share }}
                  />
                </div>
              </div>
              <span className="truncate pt-1 text-center text-xs text-muted" title={d.label}>
                {d.label}
              </span>
            </div>
          );
        })}
      </div>
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
