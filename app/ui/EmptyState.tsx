import type { LucideIcon } from "lucide-react";
import type { ReactNode } from "react";
import { cn } from "./cn";

interface EmptyStateProps {
  icon?: LucideIcon;
  title: ReactNode;
  description?: ReactNode;
  /** A call to action (a Button or a link). */
  action?: ReactNode;
  className?: string;
}

/** What a screen or section shows when it has nothing yet, and what to do about it. */
export function EmptyState({ icon: Icon, title, description, action, className }: EmptyStateProps) {
  return (
    <div className={cn("flex flex-col items-center rounded-lg border border-dashed border-border px-6 py-12 text-center", className)}>
      {Icon ? (
        <div className="mb-4 grid size-12 place-items-center rounded-full bg-primary/10 text-primary">
          <Icon aria-hidden className="size-6" />
        </div>
      ) : null}
      <h2 className="text-base font-semibold">{title}</h2>
      {description ? <div className="mt-1.5 max-w-prose text-sm text-muted">{description}</div> : null}
      {action ? <div className="mt-5 flex flex-wrap justify-center gap-2">{action}</div> : null}
    </div>
  );
}
