import { Settings2 } from "lucide-react";
import { Link } from "react-router";
import { useCurrentOrganization, useProfileStore, useSwitchOrganization } from "~/profile";
import { Badge } from "~/ui/Badge";
import type { DeferredOverlayProps } from "~/ui/DeferredTrigger";
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

/** The organization menu itself, loaded by OrganizationSwitcher's button when it is about to open. */
export default function OrganizationMenu({ trigger, defaultOpen }: DeferredOverlayProps) {
  const current = useCurrentOrganization();
  const organizations = useProfileStore((s) => s.organizations);
  const switchTo = useSwitchOrganization();
  return (
    <DropdownMenu defaultOpen={defaultOpen}>
      <DropdownMenuTrigger asChild>{trigger}</DropdownMenuTrigger>
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
