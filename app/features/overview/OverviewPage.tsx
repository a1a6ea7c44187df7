import { AppWindow, ChartLine, Plus } from "lucide-react";
import { Link } from "react-router";
import { useAccess, useCurrentOrganization, useTradePlatforms } from "~/profile";
import { Button } from "~/ui/Button";
import { EmptyState } from "~/ui/EmptyState";
import { Page } from "~/ui/Page";
import { FirstRun } from "./FirstRun";
import { PlatformCard } from "./PlatformCard";
import { PlatformSummary } from "./PlatformSummary";

/** `/`: the current organization at a glance (PRODUCT.md). */
export function OverviewPage() {
  const organization = useCurrentOrganization();
  const platforms = useTradePlatforms();
  const canWrite = useAccess().hasModule("tradePlatforms", "write");
  const connect = canWrite ? (
    <>
      <Button asChild variant="ghost">
        <Link to="/tradePlatforms/AssignApplicationModal">
          <AppWindow aria-hidden />
          Assign an application
        </Link>
      </Button>
      <Button asChild variant="secondary">
        <Link to="/tradePlatforms/new">
          <Plus aria-hidden />
          Connect a platform
        </Link>
      </Button>
    </>
  ) : null;
  if (!platforms.length) {
    return (
      <Page title="Overview" eyebrow={organization?.name}>
        <FirstRun />
      </Page>
    );
  }
  return (
    <Page title="Overview" eyebrow={organization?.name} actions={connect}>
      <div className="grid gap-8">
        <PlatformSummary platforms={platforms} />
        <section aria-labelledby="overview-platforms" className="grid gap-3">
          <h2 id="overview-platforms" className="text-base font-semibold">
            Trade platforms
          </h2>
          <ul className="grid gap-4 sm:grid-cols-2 xl:grid-cols-3">
            {platforms.map((p) => (
              <li key={p.id}>
                <PlatformCard platform={p} />
              </li>
            ))}
          </ul>
        </section>
        <EmptyState
          icon={ChartLine}
          title="Volume, P/L and copier health arrive with the next releases"
          description="Open positions, today's volume and P/L per platform, copier links and latency, and recent inbox items will show here as those areas go live."
        />
      </div>
    </Page>
  );
}
