import { NavLink } from "react-router";
import { useAccess } from "~/profile";
import { cn, focusRing } from "~/ui/cn";
import { UnreadBadge } from "~/features/inbox";
import { AREA_GROUPS } from "./areas";

/** The sidebar's navigation; the current area is marked for sight and for screen readers. */
export function AreaNav() {
  const { hasModule } = useAccess();
  return (
    <nav aria-label="Areas" className="grid gap-4">
      {AREA_GROUPS.map((group, index) => {
        const areas = group.areas.filter((a) => !a.module || hasModule(a.module, "read"));
        if (!areas.length) return null;
        // Group names label their lists rather than being headings: the page's h1 comes first in the outline.
        const labelId = group.label ? `area-group-${index}` : undefined;
        return (
          <div key={index} className="grid gap-0.5">
            {group.label ? (
              <p id={labelId} className="px-2 pb-1 text-[11px] font-semibold tracking-wider text-muted uppercase">
                {group.label}
              </p>
            ) : null}
            <ul className="grid gap-0.5" aria-labelledby={labelId}>
              {areas.map(({ label, to, icon: Icon, end }) => (
                <li key={to}>
                  <NavLink
                    to={to}
                    end={end}
                    className={({ isActive }) =>
                      cn(
                        "flex h-8 items-center gap-2.5 rounded-md px-2 text-sm font-medium transition-colors",
                        isActive ? "bg-primary/10 text-primary" : "text-fg/80 hover:bg-subtle hover:text-fg",
                        focusRing,
                        "focus-visible:ring-offset-0",
                      )
                    }
                  >
                    <Icon aria-hidden className="size-4 shrink-0" />
                    {label}
                    {to === "/inbox" ? <UnreadBadge /> : null}
                  </NavLink>
                </li>
              ))}
            </ul>
          </div>
        );
      })}
    </nav>
  );
}
