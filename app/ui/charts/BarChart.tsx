import { cn } from "../cn";

export interface BarDatum {
  label: string;
  value: number;
  /** Tailwind background class of this bar; the primary green by default. */
  tone?: string;
}

interface BarChartProps {
  data: readonly BarDatum[];
  /** Names the chart for screen readers, which read it as a list of label/value pairs. */
  label: string;
  /** Formats values on the bars and for screen readers. */
  format?: (value: number) => string;
  className?: string;
}

/** Vertical bars with their values on top and labels below; plain HTML so it stays crisp at any size. */
export function BarChart({ data, label, format = String, className }: BarChartProps) {
  const max = Math.max(1, ...data.map((d) => d.value));
  return (
    <figure className={cn("grid gap-2", className)}>
      <figcaption className="sr-only">{label}</figcaption>
      <ul className="flex h-40 items-end gap-3 border-b border-border" aria-label={label}>
        {data.map((d) => (
          <li key={d.label} className="flex h-full min-w-0 flex-1 flex-col items-center justify-end gap-1">
            <span aria-hidden className="text-xs font-medium tabular-nums text-fg">{format(d.value)}</span>
            <span
              aria-hidden
              className={cn("w-full max-w-12 rounded-t-sm transition-[height] duration-300", d.tone ?? "bg-primary")}
              // The value label above takes about 1.25rem of the column.
              style={{ height: `calc((100% - 1.25rem) * ${d.value / max})`, minHeight: d.value > 0 ? 2 : 0 }}
            />
            <span className="sr-only">
              {d.label}: {format(d.value)}
            </span>
          </li>
        ))}
      </ul>
      <div aria-hidden className="flex gap-3">
        {data.map((d) => (
          <span key={d.label} className="min-w-0 flex-1 truncate text-center text-xs text-muted">
            {d.label}
          </span>
        ))}
      </div>
    </figure>
  );
}
