import type { ReactNode } from "react";

/**
 * Shows the same blocks forced light and forced dark side by side (app.css: a `.light`/`.dark`
 * subtree carries its own tokens), whatever the page's own colour mode.
 */
export function ThemePanels({ children }: { children: ReactNode }) {
  return (
    <div className="grid gap-4 xl:grid-cols-2">
      {(["light", "dark"] as const).map((theme) => (
        <div key={theme} className={`${theme} rounded-lg border border-border p-5`}>
          <p className="mb-4 text-xs font-semibold tracking-wider text-muted uppercase">{theme}</p>
          <div className="grid gap-6">{children}</div>
        </div>
      ))}
    </div>
  );
}

/** One named group of blocks inside a panel. */
export function Sample({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="grid gap-3">
      <h3 className="text-sm font-semibold">{title}</h3>
      {children}
    </div>
  );
}
