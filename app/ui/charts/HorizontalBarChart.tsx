import { cn } from "../cn";
import type { ChartTone } from "./theme";

export interface HorizontalBarDatum {
  label: string;
  /** Signed: a negative value draws left of the zero line. */
  value: number;
  tone?: ChartTone;
}

const FILL: Record<ChartTone, string> = { primary: "bg-primary", success: "bg-primary", info: "bg-info", warning: "bg-warning", danger: "bg-danger" };

/** Where zero sits and how wide each bar is, in percent of the track: positive and negative values share one scale. */
export function barGeometry(values: readonly number[]): { zero: number; bars: { left: number; width: number }[] } {
  const max = Math.max(0, ...values);
  const min = Math.min(0, ...values);
  const span = max - min || 1;
  const zero = (-min / span) * 100;
  return {
    zero,
    bars: values.map((v) => {
      const width = (Math.abs(v) / span) * 100;
      return { left: v < 0 ? zero - width : zero, width };
    }),
  };
}

/**
 * One bar per row, label on the left and value on the right, drawn from a shared zero line: the
 * layout for signed figures with long labels (net exposure by symbol), where vertical bars would
 * crowd their labels and uPlot's bars leave out values below zero. Plain elements, not a canvas:
 * a few rows, and screen readers read the rows as they are.
 */
export function HorizontalBarChart({
  data,
  label,
  format = String,
  className,
}: {
  data: readonly HorizontalBarDatum[];
  label: string;
  format?: (value: number) => string;
  className?: string;
}) {
  const { zero, bars } = barGeometry(data.map((d) => d.value));
  return (
    <figure className={cn("grid gap-1", className)}>
      <figcaption className="text-xs text-muted">{label}</figcaption>
      <ul className="grid gap-1" aria-label={label}>
        {data.map((d, i) => (
          <li key={d.label} className="grid grid-cols-[5.5rem_1fr_4.5rem] items-center gap-2 text-xs">
            <span className="truncate" title={d.label}>
              {d.label}
            </span>
            <span className="relative h-3" aria-hidden>
              <span className="absolute inset-y-0 w-px bg-border" style={{ left: `${zero}%` }} />
              <span
                data-testid="bar"
                data-value={d.value}
                className={cn("absolute inset-y-0 rounded-sm", FILL[d.tone ?? (d.value < 0 ? "danger" : "primary")])}
                style={{ left: `${bars[i]!.left}%`, width: `${bars[i]!.width}%` }}
              />
            </span>
            <span className="text-right tabular-nums">
              <span className="sr-only">{d.label}: </span>
              {format(d.value)}
            </span>
          </li>
        ))}
      </ul>
    </figure>
  );
}
