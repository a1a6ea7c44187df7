import { Building2, ChevronsUpDown } from "lucide-react";
import { useCurrentOrganization } from "~/profile";
import { cn, focusRing } from "~/ui/cn";
import { DeferredTrigger } from "~/ui/DeferredTrigger";

const loadMenu = () => import("./OrganizationMenu");

/** Which organization Toolbox works in; switching changes every screen's data (the menu loads when it is about to open). */
export function OrganizationSwitcher() {
  const current = useCurrentOrganization();
  return (
    <DeferredTrigger
      load={loadMenu}
      popup="menu"
      className={cn(
        "flex w-full items-center gap-2.5 rounded-md border border-border bg-surface px-2.5 py-2 text-left shadow-xs hover:bg-subtle",
        focusRing,
        "focus-visible:ring-offset-0",
      )}
      aria-label={`Organization: ${current?.name ?? "none"}. Switch organization`}
    >
      <span className="grid size-7 shrink-0 place-items-center rounded-md bg-primary/10 text-primary">
        <Building2 aria-hidden className="size-4" />
      </span>
      <span className="grid min-w-0 flex-1 leading-tight">
        <span className="text-[11px] text-muted">Organization</span>
        <span className="truncate text-sm font-semibold">{current?.name ?? "No organization"}</span>
      </span>
      <ChevronsUpDown aria-hidden className="size-4 shrink-0 text-muted" />
    </DeferredTrigger>
  );
}
