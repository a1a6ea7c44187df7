import { useId, type ReactNode } from "react";

/** The content of a tab under a tabbed layout (settings, copier): its own h2 below the layout's h1. */
export function Section({ title, description, actions, children }: { title: string; description?: ReactNode; actions?: ReactNode; children: ReactNode }) {
  // Several sections may share a page (Settings → Security): each heading has its own id.
  const titleId = useId();
  return (
    <section aria-labelledby={titleId} className="grid gap-5">
      <header className="flex flex-wrap items-start justify-between gap-3">
        <div>
          <h2 id={titleId} className="text-lg font-semibold tracking-tight">
            {title}
          </h2>
          {description ? <p className="mt-1 max-w-prose text-sm text-muted">{description}</p> : null}
        </div>
        {actions}
      </header>
      {children}
    </section>
  );
}
