import * as DialogPrimitive from "@radix-ui/react-dialog";
import { X } from "lucide-react";
import { useState } from "react";
import { useLocation } from "react-router";
import { Button } from "~/ui/Button";
import type { DeferredOverlayProps } from "~/ui/DeferredTrigger";
import { SidebarContent } from "./SidebarContent";

/** The sidebar as a drawer on narrow screens, loaded by MobileNav's button when first opened. */
export default function NavigationDrawer({ trigger, defaultOpen }: DeferredOverlayProps) {
  const { key } = useLocation();
  // Open on the page it was opened on: following a link in the drawer closes it.
  const [openOn, setOpenOn] = useState<string | null>(defaultOpen ? key : null);
  return (
    <DialogPrimitive.Root open={openOn === key} onOpenChange={(open) => setOpenOn(open ? key : null)}>
      <DialogPrimitive.Trigger asChild>{trigger}</DialogPrimitive.Trigger>
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
  );
}
