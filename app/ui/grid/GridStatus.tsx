import type { ReactNode } from "react";
import { cn } from "../cn";
import { formatInteger } from "./format";

/**
 * Below a table: how many rows match (announced politely when it changes, so a screen-reader
 * user hears what a filter did) and anything else worth a line.
 */
export function GridStatus({
  total,
  noun,
  loading,
  children,
  className,
}: {
  total: number | null;
  noun: [string, string];
  loading?: boolean;
  children?: ReactNode;
  className?: string;
}) {
  const text = total === null ? (loading ? "Counting…" : "") : `${formatInteger(total)} ${total === 1 ? noun[0] : noun[1]}`;
  return (
    <div className={cn("flex flex-wrap items-center justify-between gap-2 text-xs text-muted", className)}>
      <p role="status" aria-live="polite" className="tabular-nums">
        {text}
      </p>
      {children}
    </div>
  );
}
