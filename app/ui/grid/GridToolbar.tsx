import type { ReactNode } from "react";
import { cn } from "../cn";

/**
 * Above a table: filters on the left, actions (columns, export) on the right; wraps on narrow
 * screens. A labelled group, not an ARIA toolbar: text inputs need their arrow keys.
 */
export function GridToolbar({ filters, actions, label, className }: { filters?: ReactNode; actions?: ReactNode; label: string; className?: string }) {
  return (
    <div role="group" aria-label={label} className={cn("flex flex-wrap items-end justify-between gap-3", className)}>
      {/* Grows, but from its own width: squeezed to its longest word, "0 rows Live" stood one word a line beside the actions on a phone. */}
      <div className="flex grow flex-wrap items-center gap-2">{filters}</div>
      {actions ? <div className="flex flex-wrap items-center gap-2">{actions}</div> : null}
    </div>
  );
}
