import { Menu } from "lucide-react";
import { Link } from "react-router";
import { useCurrentOrganization } from "~/profile";
import { buttonClasses } from "~/ui/Button";
import { DeferredTrigger } from "~/ui/DeferredTrigger";
import { ToolboxMark } from "~/ui/ToolboxMark";

const loadDrawer = () => import("./NavigationDrawer");

/** Phones and narrow windows: a top bar whose menu button opens the sidebar as a drawer (loaded when first opened). */
export function MobileNav() {
  const organization = useCurrentOrganization();
  return (
    <header className="sticky top-0 z-40 flex h-14 items-center gap-3 border-b border-border bg-surface/95 px-3 backdrop-blur lg:hidden">
      <DeferredTrigger load={loadDrawer} popup="dialog" className={buttonClasses("ghost", "icon")} aria-label="Open navigation">
        <Menu aria-hidden />
      </DeferredTrigger>
      <Link to="/" className="flex min-w-0 items-center gap-2" aria-label="Toolbox, overview">
        <ToolboxMark className="size-6" />
        <span className="truncate text-sm font-semibold">{organization?.name ?? "Toolbox"}</span>
      </Link>
    </header>
  );
}
