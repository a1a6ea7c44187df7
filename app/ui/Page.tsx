import type { ReactNode } from "react";
import { cn } from "./cn";

interface PageProps {
  title: ReactNode;
  description?: ReactNode;
  /** Buttons on the right of the title. */
  actions?: ReactNode;
  /** Small line above the title (e.g. a breadcrumb or the area name). */
  eyebrow?: ReactNode;
  className?: string;
  children?: ReactNode;
}

/** Heading and body of a screen inside the layout; the title is the page's one h1. */
export function Page({ title, description, actions, eyebrow, className, children }: PageProps) {
  return (
    <section className={cn("mx-auto w-full max-w-7xl px-4 py-6 sm:px-6 lg:px-8", className)} aria-labelledby="page-title">
      <header className="mb-6 flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          {eyebrow ? <div className="mb-1 text-xs font-medium tracking-wide text-muted uppercase">{eyebrow}</div> : null}
          <h1 id="page-title" className="text-2xl font-semibold tracking-tight text-balance">
            {title}
          </h1>
          {description ? <p className="mt-1 max-w-prose text-sm text-muted">{description}</p> : null}
        </div>
        {actions ? <div className="flex flex-wrap items-center gap-2">{actions}</div> : null}
      </header>
      {children}
    </section>
  );
}
