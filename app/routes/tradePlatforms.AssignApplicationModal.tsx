import { useLocation, useNavigate, useSearchParams } from "react-router";
import { AssignApplicationForm } from "~/features/trade-platforms/apps/AssignApplicationForm";
import type { PlatformApp } from "~/features/trade-platforms/platformApi";
import { OverviewPage } from "~/features/overview/OverviewPage";
import type { ScrollHandle } from "~/features/routing/ScrollManager";
import { useAccess } from "~/profile";
import { Button } from "~/ui/Button";
import { DialogClose, DialogContent, DialogRoot } from "~/ui/Dialog";

export const meta = () => [{ title: "Assign application · Toolbox" }];

// A modal over the page the person came from: opening it must not scroll that page.
export const handle: ScrollHandle = { scroll: false };

/**
 * Addressable as a route, shown as a modal over the overview; closing it goes back where it was
 * opened from (or to the overview when the URL was opened directly). `?app=tradesCopier` preselects.
 */
export default function AssignApplicationModal() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const { hasModule } = useAccess();
  const opened = useLocation().key !== "default";
  const close = () => (opened ? navigate(-1) : navigate("/"));
  const asked = params.get("app");
  const initialApp: PlatformApp = asked === "tradesCopier" || asked === "quotesMonitor" ? asked : "tradesBlotter";
  const canWrite = hasModule("tradePlatforms", "write");
  return (
    <>
      <OverviewPage />
      <DialogRoot open onOpenChange={(open) => (open ? undefined : close())}>
        <DialogContent
          title="Assign an application"
          description="Run the Trades Blotter, the Trades Copier or the Quotes Monitor on one or more trade platforms."
          className="max-w-xl"
        >
          {canWrite ? (
            <AssignApplicationForm
              initialApp={initialApp}
              onDone={close}
              footer={({ formId, pending, count }) => (
                <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
                  <DialogClose asChild>
                    <Button variant="secondary">Cancel</Button>
                  </DialogClose>
                  <Button type="submit" form={formId} loading={pending} disabled={count === 0}>
                    Assign{count ? ` to ${count} platform${count === 1 ? "" : "s"}` : ""}
                  </Button>
                </div>
              )}
            />
          ) : (
            <>
              <p className="text-sm text-muted">Assigning applications needs write access to trade platforms. Ask an administrator of this organization.</p>
              <div className="flex justify-end">
                <DialogClose asChild>
                  <Button variant="secondary">Close</Button>
                </DialogClose>
              </div>
            </>
          )}
        </DialogContent>
      </DialogRoot>
    </>
  );
}
