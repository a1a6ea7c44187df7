import { useId } from "react";
import { cn } from "../cn";

interface SparklineProps {
  values: readonly number[];
  /** What the line shows, read by screen readers with its first, last, lowest and highest value. */
  label: string;
  className?: string;
  /** Tailwind text colour class; the line and the fill use currentColor. */
  tone?: string;
}

/** A small trend line that stretches to its box. No axes: context comes from the text around it. */
export function Sparkline({ values, label, className, tone = "text-primary" }: SparklineProps) {
  const gradientId = useId();
  if (values.length < 2) return <div className={cn("h-10", className)} role="img" aria-label={`${label}: not enough data`} />;
  const min = Math.min(...values);
  const max = Math.max(...values);
  const span = max - min || 1;
  const points = values.map((v, i) => [(i / (values.length - 1)) * 100, 28 - ((v - min) / span) * 26] as const);
  const line = points.map(([x, y], i) => `${i ? "L" : "M"}${x.toFixed(2)},${y.toFixed(2)}`).join(" ");
  const summary = `${label}: from ${values[0]} to ${values[values.length - 1]}, lowest ${min}, highest ${max}`;
  return (
    <svg viewBox="0 0 100 30" preserveAspectRatio="none" role="img" aria-label={summary} className={cn("h-10 w-full overflow-visible", tone, className)}>
      <defs>
        <linearGradient id={gradientId} x1="0" x2="0" y1="0" y2="1">
          <stop offset="0%" stopColor="currentColor" stopOpacity="0.25" />
          <stop offset="100%" stopColor="currentColor" stopOpacity="0" />
        </linearGradient>
      </defs>
      <path d={`${line} L100,30 L0,30 Z`} fill={`url(#${gradientId})`} stroke="none" />
      <path d={line} fill="none" stroke="currentColor" strokeWidth="1.75" vectorEffect="non-scaling-stroke" strokeLinejoin="round" />
    </svg>
  );
}
