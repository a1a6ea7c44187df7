import { useEffect, useRef } from "react";
import { NavLink, useLocation } from "react-router";
import { cn, focusRing } from "./cn";

export interface NavTab {
  label: string;
  /** Relative to the layout's own path ("." for its index), or absolute. */
  to: string;
  /** Only active on an exact match (the index tab). */
  end?: boolean;
}

/**
 * Tabs that are links between child routes: each tab has its own URL, and the current one is
 * marked with aria-current="page" (links, not an ARIA tablist, because they navigate).
 */
export function NavTabs({ tabs, label, className }: { tabs: readonly NavTab[]; label: string; className?: string }) {
  const nav = useRef<HTMLElement>(null);
  const { pathname } = useLocation();
  // On a phone the tabs scroll sideways: keep the current one in sight.
  useEffect(() => {
    nav.current?.querySelector('[aria-current="page"]')?.scrollIntoView?.({ block: "nearest", inline: "nearest" });
  }, [pathname]);
  return (
    <nav ref={nav} aria-label={label} className={cn("-mx-1 overflow-x-auto border-b border-border", className)}>
      <ul className="flex min-w-max gap-1 px-1">
        {tabs.map((tab) => (
          <li key={tab.to}>
            <NavLink
              to={tab.to}
              end={tab.end}
              className={({ isActive }) =>
                cn(
                  "-mb-px inline-flex h-10 items-center border-b-2 px-3 text-sm font-medium transition-colors",
                  isActive ? "border-primary text-fg" : "border-transparent text-muted hover:border-border hover:text-fg",
                  focusRing,
                  "focus-visible:ring-offset-0 rounded-t-sm",
                )
              }
            >
              {tab.label}
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
