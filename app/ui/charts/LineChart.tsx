import { useEffect, useRef, useState, type PointerEvent } from "react";
import { cn } from "../cn";
import type { ChartTone } from "./theme";

export interface LineSeries {
  label: string;
  tone: ChartTone;
  /** One value per time. */
  values: readonly number[];
}

interface LineChartProps {
  /** Evenly spaced bucket times (ms since 1970), ascending. */
  times: readonly number[];
  series: readonly LineSeries[];
  /** The x axis's label for a bucket time. */
  timeLabel: (ms: number) => string;
  /** Formats the y axis's values. */
  format: (value: number) => string;
  height: number;
  /** The bucket the cursor is on (pointer or keyboard), drawn as a line with its points. */
  active: number | null;
  /** The bucket under the pointer, or null once it leaves. */
  onCursor: (index: number | null) => void;
  className?: string;
}

const STROKE: Record<ChartTone, string> = {
  primary: "text-primary",
  success: "text-primary",
  info: "text-info",
  warning: "text-warning",
  danger: "text-danger",
};
const LEFT = 72;
const RIGHT = 8;
const TOP = 8;
const BOTTOM = 22;
/** The least room between two labels of the time axis, in CSS pixels. */
const LABEL_ROOM = 64;

/** Round steps (1, 2, 5 × 10ⁿ) from `min` to `max`, about `count` of them; the range always holds 0. */
export function niceTicks(min: number, max: number, count = 4): { ticks: number[]; low: number; high: number } {
  let lo = Math.min(0, min);
  let hi = Math.max(0, max);
  // No span (all zeros), or one too small to divide: a little room either side.
  if (hi - lo < 1e-9) {
    lo -= 1;
    hi += 1;
  }
  const raw = (hi - lo) / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw)!;
  const low = Math.floor(lo / step) * step;
  const high = Math.ceil(hi / step) * step;
  const ticks: number[] = [];
  for (let v = low; v <= high + step / 2; v += step) ticks.push(Math.abs(v) < step / 1e6 ? 0 : v);
  return { ticks, low, high };
}

/**
 * Lines over time, one per series, drawn with SVG elements: axes with round values and whole-bucket
 * time labels, a point per value, and a cursor line on the bucket under the pointer or chosen from
 * outside. No chart library: it is on the overview's first screen (issue 30), where uPlot alone was
 * a tenth of the JavaScript. Decoration for sighted readers (aria-hidden): the caller gives screen
 * readers the same figures. Drawn once its box's width is known (none on the server).
 */
export function LineChart({ times, series, timeLabel, format, height, active, onCursor, className }: LineChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    setWidth(element.clientWidth);
    if (typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(() => setWidth(element.clientWidth));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  const n = times.length;
  const plotWidth = Math.max(1, width - LEFT - RIGHT);
  const plotHeight = Math.max(1, height - TOP - BOTTOM);
  const all = series.flatMap((s) => s.values);
  const { ticks, low, high } = niceTicks(all.length ? Math.min(...all) : 0, all.length ? Math.max(...all) : 0);
  const x = (i: number) => LEFT + (n <= 1 ? plotWidth / 2 : (i / (n - 1)) * plotWidth);
  const y = (v: number) => TOP + ((high - v) / (high - low)) * plotHeight;
  const every = Math.max(1, Math.ceil(LABEL_ROOM / (n <= 1 ? plotWidth : plotWidth / (n - 1))));
  const labelled = times.map((_, i) => i).filter((i) => (n - 1 - i) % every === 0);

  const indexAt = (event: PointerEvent<SVGSVGElement>) => {
    if (n === 0) return null;
    const rect = event.currentTarget.getBoundingClientRect();
    const at = event.clientX - rect.left - LEFT;
    return Math.max(0, Math.min(n - 1, Math.round(n <= 1 ? 0 : (at / plotWidth) * (n - 1))));
  };

  return (
    // The drawing is out of the flow (absolute): its width never holds the box wider when the window narrows.
    <div ref={box} className={cn("relative w-full min-w-0 overflow-hidden", className)} style={{ height }} aria-hidden>
      {width > 0 && (
        <svg
          data-chart="line"
          width={width}
          height={height}
          className="absolute left-0 top-0 block touch-none select-none text-xs"
          onPointerMove={(e) => onCursor(indexAt(e))}
          onPointerDown={(e) => onCursor(indexAt(e))}
          onPointerLeave={() => onCursor(null)}
        >
          {ticks.map((v) => (
            <g key={v}>
              <line x1={LEFT} x2={LEFT + plotWidth} y1={y(v)} y2={y(v)} className="text-border" stroke="currentColor" strokeWidth={1} />
              <text x={LEFT - 8} y={y(v)} dy="0.32em" textAnchor="end" className="fill-muted tabular-nums">
                {format(v)}
              </text>
            </g>
          ))}
          {labelled.map((i) => (
            <text key={times[i]} x={x(i)} y={height - 6} textAnchor="middle" className="fill-muted">
              {timeLabel(times[i]!)}
            </text>
          ))}
          {active !== null && active < n && (
            <line x1={x(active)} x2={x(active)} y1={TOP} y2={TOP + plotHeight} className="text-muted" stroke="currentColor" strokeDasharray="3 3" />
          )}
          {series.map((s) => (
            <g key={s.label} className={STROKE[s.tone]}>
              <polyline fill="none" stroke="currentColor" strokeWidth={2} strokeLinejoin="round" points={s.values.map((v, i) => `${x(i)},${y(v)}`).join(" ")} />
              {s.values.map((v, i) => (
                <circle key={i} cx={x(i)} cy={y(v)} r={i === active ? 3.5 : 2} fill="currentColor" />
              ))}
            </g>
          ))}
        </svg>
      )}
    </div>
  );
}
