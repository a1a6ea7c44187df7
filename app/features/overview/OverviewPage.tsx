import { useMemo } from "react";
import { useQuery } from "@tanstack/react-query";
import { AppWindow, Copy, Plus } from "lucide-react";
import { Link } from "react-router";
import { useAccess, useCurrentOrganization, useCurrentOrganizationId, useTradePlatforms } from "~/profile";
import { Badge } from "~/ui/Badge";
import { Button } from "~/ui/Button";
import { Card, CardContent, CardHeader, CardTitle } from "~/ui/Card";
import { cn, focusRing } from "~/ui/cn";
import { Page } from "~/ui/Page";
import { Skeleton } from "~/ui/Skeleton";
import { FirstRun } from "./FirstRun";
import { OverviewCharts } from "./OverviewCharts";
import { formatMs } from "~/features/trades-copier";
import { OVERVIEW_REFRESH_MS, overviewApi, overviewQueryKey, type Overview } from "./overviewApi";
import { PlatformCard } from "./PlatformCard";
import { PlatformSummary } from "./PlatformSummary";
import { RecentInbox } from "./RecentInbox";

/**
 * `/`: the current organization at a glance (docs/requirements.md#r-areas): each platform's live connection state and
 * today's figures, volume and P/L charts, recent inbox items and the copier's place. The figures
 * come from GET /api/overview (docs/overview.md), read again every 5 s while the page is in view;
 * connection states come from the platforms' live stream.
 */
export function OverviewPage() {
  const organization = useCurrentOrganization();
  const organizationId = useCurrentOrganizationId();
  const platforms = useTradePlatforms();
  const canWrite = useAccess().hasModule("tradePlatforms", "write");
  const overview = useQuery({
    queryKey: overviewQueryKey(organizationId),
    queryFn: ({ signal }) => overviewApi.get(signal),
    refetchInterval: OVERVIEW_REFRESH_MS,
    enabled: platforms.length > 0,
  });
  const figures = useMemo(() => new Map((overview.data?.platforms ?? []).map((p) => [p.platformId, p])), [overview.data]);
  const recorded = useMemo(
    () => (overview.data?.platforms ?? []).filter((p) => p.tradeHistory).map((p) => ({ id: p.platformId, name: p.name })),
    [overview.data],
  );
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
            Trade platforms{" "}
            <span className="text-sm font-normal text-muted" data-testid="overview-today">
              · today since 00:00 {overview.data?.timeZone ?? "UTC"}
            </span>
          </h2>
          {overview.isError ? (
            <p role="alert" className="text-sm text-danger">
              The figures could not be loaded; they are read again in a few seconds.
            </p>
          ) : null}
          <ul className="grid gap-4 sm:grid-cols-2 xl:grid-cols-3">
            {platforms.map((p) => (
              <li key={p.id}>
                <PlatformCard platform={p} figures={figures.get(p.id)} />
              </li>
            ))}
          </ul>
        </section>
        {!overview.data ? (
          <div role="status" aria-busy="true" aria-label="Loading charts">
            <Skeleton className="h-72 w-full" />
          </div>
        ) : recorded.length ? (
          <OverviewCharts overview={overview.data} platforms={recorded} />
        ) : (
          <Card>
            <CardContent className="p-6 text-sm text-muted">
              Volume and P/L charts need the trade history of at least one platform.{" "}
              <Link to="/tradePlatforms/AssignApplicationModal?app=tradesBlotter" className={cn("font-medium text-primary hover:underline", focusRing)}>
                Assign the Trades Blotter to record volume and P/L
              </Link>
            </CardContent>
          </Card>
        )}
        <div className="grid gap-4 lg:grid-cols-2">
          <RecentInbox />
          {overview.data?.copier ? <CopierTile copier={overview.data.copier} /> : null}
        </div>
      </div>
    </Page>
  );
}

/** The Trades Copier at a glance (the overview's `copier`, for members with copier access): links, followers, copies and failures today, p99 latency. */
function CopierTile({ copier }: { copier: NonNullable<Overview["copier"]> }) {
  const figures: [string, string][] = [
    ["Links", String(copier.links)],
    ["Followers", String(copier.followers)],
    ["Copies today", String(copier.copiesToday)],
    ["Failed today", String(copier.failedToday)],
    ["p99 latency", formatMs(copier.p99)],
  ];
  return (
    <Card role="region" aria-labelledby="overview-copier" data-testid="copier-tile">
      <CardHeader className="flex flex-row items-center justify-between gap-3">
        <CardTitle id="overview-copier" className="flex items-center gap-2">
          <Copy aria-hidden className="size-4 text-muted" />
          Trades Copier
        </CardTitle>
        {copier.failedToday > 0 ? <Badge tone="danger">{copier.failedToday} failed today</Badge> : null}
      </CardHeader>
      <CardContent className="grid gap-3 text-sm">
        {copier.links === 0 ? (
          <p className="text-muted">No copy link yet.</p>
        ) : (
          <dl className="grid grid-cols-2 gap-x-4 gap-y-2 sm:grid-cols-3">
            {figures.map(([term, value]) => (
              <div key={term}>
                <dt className="text-xs text-muted">{term}</dt>
                <dd className="font-semibold tabular-nums">{value}</dd>
              </div>
            ))}
          </dl>
        )}
        <Link
          to={copier.links === 0 ? "/apps/trades-copier" : "/apps/trades-copier/status"}
          className={cn("font-medium text-primary hover:underline", focusRing)}
        >
          {copier.links === 0 ? "Create a copy link" : "Open the copier's status"}
        </Link>
      </CardContent>
    </Card>
  );
}
