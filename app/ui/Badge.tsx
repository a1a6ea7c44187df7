import type { ComponentProps } from "react";
import { cn } from "./cn";

const tones = {
  neutral: "border-border bg-subtle text-fg",
  primary: "border-primary/25 bg-primary/10 text-primary",
  success: "border-success/25 bg-success/10 text-success",
  warning: "border-warning/30 bg-warning/15 text-fg",
  danger: "border-danger/25 bg-danger/10 text-danger",
  info: "border-info/25 bg-info/10 text-info",
  outline: "border-border bg-transparent text-muted",
} as const;

export type BadgeTone = keyof typeof tones;

/** A short label: a state, a type, a count. */
export function Badge({ tone = "neutral", className, ...props }: ComponentProps<"span"> & { tone?: BadgeTone }) {
  return (
    <span
      className={cn("inline-flex h-5 items-center gap-1 rounded-full border px-2 text-xs font-medium whitespace-nowrap [&_svg]:size-3", tones[tone], className)}
      {...props}
    />
  );
}
