import { Skeleton } from "../Skeleton";
import { cn } from "../cn";

/** What a table shows before the browser can draw it (server render, hydration, saved columns loading). */
export function GridSkeleton({ rows = 8, className, label }: { rows?: number; className?: string; label: string }) {
  return (
    <div role="status" aria-label={`${label}: loading`} className={cn("overflow-hidden rounded-lg border border-border bg-surface", className)}>
      <div className="flex h-9 items-center gap-6 border-b border-border bg-subtle px-3">
        {Array.from({ length: 5 }, (_, i) => (
          <Skeleton key={i} className="h-3 w-20" />
        ))}
      </div>
      <div className="divide-y divide-border">
        {Array.from({ length: rows }, (_, i) => (
          <div key={i} className="flex h-9 items-center gap-6 px-3">
            <Skeleton className="h-3 w-16" />
            <Skeleton className="h-3 w-28" />
            <Skeleton className="h-3 w-24" />
            <Skeleton className="ml-auto h-3 w-20" />
          </div>
        ))}
      </div>
    </div>
  );
}
