import { cn } from "./cn";

/** A grey block standing in for content that is still loading (hidden from screen readers). */
export function Skeleton({ className }: { className?: string }) {
  return <div aria-hidden className={cn("tb-shimmer rounded-md bg-subtle", className)} />;
}
