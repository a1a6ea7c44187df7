import { Building2, ChevronsUpDown, Settings2 } from "lucide-react";
import { Link } from "react-router";
import { useCurrentOrganization, useProfileStore, useSwitchOrganization } from "~/profile";
import { cn, focusRing } from "~/ui/cn";
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuRadioGroup,
  DropdownMenuRadioItem,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from "~/ui/DropdownMenu";
import { Badge } from "~/ui/Badge";

/** Which organization Toolbox works in; switching changes every screen's data. */
export function OrganizationSwitcher() {
  const current = useCurrentOrganization();
  const organizations = useProfileStore((s) => s.organizations);
  const switchTo = useSwitchOrganization();
  return (
    <DropdownMenu>
      <DropdownMenuTrigger
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
      </DropdownMenuTrigger>
      <DropdownMenuContent align="start" className="w-(--radix-dropdown-menu-trigger-width) min-w-60">
        <DropdownMenuLabel>Switch organization</DropdownMenuLabel>
        <DropdownMenuRadioGroup value={current?.id ?? ""} onValueChange={switchTo}>
          {organizations.map((o) => (
            <DropdownMenuRadioItem key={o.id} value={o.id}>
              <span className="min-w-0 flex-1 truncate">{o.name}</span>
              {o.isAdmin ? <Badge tone="outline">Admin</Badge> : null}
            </DropdownMenuRadioItem>
          ))}
        </DropdownMenuRadioGroup>
        <DropdownMenuSeparator />
        <DropdownMenuItem asChild>
          <Link to="/settings/organizations">
            <Settings2 aria-hidden />
            Manage organizations
          </Link>
        </DropdownMenuItem>
      </DropdownMenuContent>
    </DropdownMenu>
  );
}
