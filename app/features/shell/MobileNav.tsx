import * as DialogPrimitive from "@radix-ui/react-dialog";
import { Menu, X } from "lucide-react";
import { useEffect, useState } from "react";
import { Link, useLocation } from "react-router";
import { useCurrentOrganization } from "~/profile";
import { Button } from "~/ui/Button";
import { ToolboxMark } from "~/ui/ToolboxMark";
import { SidebarContent } from "./SidebarContent";

/** Phones and narrow windows: a top bar whose menu button opens the sidebar as a drawer. */
export function MobileNav() {
  const [open, setOpen] = useState(false);
  const { key } = useLocation();
  const organization = useCurrentOrganization();
  // Following a link in the drawer closes it.
  useEffect(() => setOpen(false), [key]);
  return (
    <header className="sticky top-0 z-40 flex h-14 items-center gap-3 border-b border-border bg-surface/95 px-3 backdrop-blur lg:hidden">
      <DialogPrimitive.Root open={open} onOpenChange={setOpen}>
        <DialogPrimitive.Trigger asChild>
          <Button variant="ghost" size="icon" aria-label="Open navigation">
            <Menu aria-hidden />
          </Button>
        </DialogPrimitive.Trigger>
        <DialogPrimitive.Portal>
          <DialogPrimitive.Overlay className="tb-overlay fixed inset-0 z-50 bg-black/50" />
          <DialogPrimitive.Content
            className="tb-drawer fixed inset-y-0 left-0 z-50 w-72 max-w-[85vw] border-r border-border bg-surface shadow-xl outline-none"
            aria-describedby={undefined}
          >
            <DialogPrimitive.Title className="sr-only">Navigation</DialogPrimitive.Title>
            <SidebarContent />
            <DialogPrimitive.Close asChild>
              <Button variant="ghost" size="icon" className="absolute top-2.5 right-2" aria-label="Close navigation">
                <X aria-hidden />
              </Button>
            </DialogPrimitive.Close>
          </DialogPrimitive.Content>
        </DialogPrimitive.Portal>
      </DialogPrimitive.Root>
      <Link to="/" className="flex min-w-0 items-center gap-2" aria-label="Toolbox, overview">
        <ToolboxMark className="size-6" />
        <span className="truncate text-sm font-semibold">{organization?.name ?? "Toolbox"}</span>
      </Link>
    </header>
  );
}
