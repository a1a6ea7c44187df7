import { AppWindow } from "lucide-react";
import { useLocation, useNavigate } from "react-router";
import type { ScrollHandle } from "~/features/routing/ScrollManager";
import { ComingLater } from "~/features/placeholder/ComingLater";
import { Button } from "~/ui/Button";
import { DialogClose, DialogContent, DialogRoot } from "~/ui/Dialog";

export const meta = () => [{ title: "Assign application · Toolbox" }];

// A modal over the page the person came from: opening it must not scroll that page.
export const handle: ScrollHandle = { scroll: false };

/** Addressable as a route, shown as a modal; closing it goes back where it was opened from. */
export default function AssignApplicationModal() {
  const navigate = useNavigate();
  // Opened from a link: go back to that page. Opened directly (key "default"): go to the overview.
  const opened = useLocation().key !== "default";
  const close = () => (opened ? navigate(-1) : navigate("/"));
  return (
    <DialogRoot open onOpenChange={(open) => (open ? undefined : close())}>
      <DialogContent
        title="Assign an application"
        description="Give one or more trade platforms the Trades Blotter or the Trades Copier."
        footer={
          <DialogClose asChild>
            <Button variant="secondary">Close</Button>
          </DialogClose>
        }
      >
        <ComingLater icon={AppWindow} what="Pick the application and the platforms it should run on." />
      </DialogContent>
    </DialogRoot>
  );
}
