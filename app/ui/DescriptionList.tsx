import type { ReactNode } from "react";
import { cn } from "./cn";

export interface DescriptionItem {
  term: string;
  value: ReactNode;
}

/** Term/value pairs (a <dl>), terms on the left from small screens up. */
export function DescriptionList({ items, className }: { items: readonly DescriptionItem[]; className?: string }) {
  return (
    <dl className={cn("grid gap-x-4 gap-y-2.5 text-sm sm:grid-cols-[minmax(7rem,auto)_1fr]", className)}>
      {items.map(({ term, value }) => (
        <div key={term} className="contents">
          <dt className="text-muted">{term}</dt>
          <dd className="min-w-0 break-words">{value}</dd>
        </div>
      ))}
    </dl>
  );
}
