import { Link } from "react-router";
import { cn, focusRing } from "~/ui/cn";
import { ToolboxMark } from "~/ui/ToolboxMark";
import { AreaNav } from "./AreaNav";
import { OrganizationSwitcher } from "./OrganizationSwitcher";
import { PlatformList } from "./PlatformList";
import { UserMenu } from "./UserMenu";

/** What the sidebar holds, the same on a wide screen and in the phone drawer. */
export function SidebarContent() {
  return (
    <div className="flex h-full flex-col">
      <div className="flex h-14 shrink-0 items-center px-4">
        <Link to="/" className={cn("flex items-center gap-2 rounded-md", focusRing)} aria-label="Toolbox, overview">
          <ToolboxMark className="size-7" />
          <span className="text-base font-semibold tracking-tight">Toolbox</span>
        </Link>
      </div>
      <div className="px-3 pb-3">
        <OrganizationSwitcher />
      </div>
      <div className="grid flex-1 content-start gap-5 overflow-y-auto px-3 pb-4">
        <AreaNav />
        <PlatformList />
      </div>
      <div className="shrink-0 border-t border-border p-2">
        <UserMenu />
      </div>
    </div>
  );
}
