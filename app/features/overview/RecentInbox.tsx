import { currentFormat } from "~/ui/format";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { AlertOctagon, AlertTriangle, ArrowRight, Info } from "lucide-react";
import { Link } from "react-router";
import { useCurrentOrganizationId } from "~/profile";
import { Card, CardContent, CardHeader, CardTitle } from "~/ui/Card";
import { cn, focusRing } from "~/ui/cn";
import { Skeleton } from "~/ui/Skeleton";
import { useInboxChanges } from "~/features/inbox";
import { overviewApi, recentInboxQueryKey } from "./overviewApi";

const SEVERITY_ICON = { info: Info, warning: AlertTriangle, error: AlertOctagon } as const;
const SEVERITY_CLASS = { info: "text-info", warning: "text-warning", error: "text-danger" } as const;

/** The five newest notifications of the signed-in member, each opening the inbox; live through the inbox's stream. */
export function RecentInbox() {
  const organizationId = useCurrentOrganizationId();
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: recentInboxQueryKey(organizationId),
    queryFn: ({ signal }) => overviewApi.recentInbox(signal),
  });
  // The inbox's live stream (the one the sidebar badge holds) says when something changed: a new
  // notification, or one read elsewhere. Read the items again then, never on a timer.
  const changes = useInboxChanges();
  useEffect(() => {
    if (changes > 0) void queryClient.invalidateQueries({ queryKey: recentInboxQueryKey(organizationId) });
  }, [changes, organizationId, queryClient]);
  const items = query.data?.items ?? [];
  return (
    <Card role="region" aria-labelledby="overview-inbox" className="flex flex-col">
      <CardHeader className="flex flex-row items-center justify-between gap-3">
        <CardTitle id="overview-inbox">Recent inbox</CardTitle>
        <Link to="/inbox" className={cn("flex items-center gap-1 rounded-sm text-sm font-medium text-primary hover:underline", focusRing)}>
          Open the inbox
          <ArrowRight aria-hidden className="size-4" />
        </Link>
      </CardHeader>
      <CardContent className="flex-1">
        {query.isPending ? (
          <div className="grid gap-2" role="status" aria-busy="true" aria-label="Loading notifications">
            {[0, 1, 2].map((i) => (
              <Skeleton key={i} className="h-10 w-full" />
            ))}
          </div>
        ) : items.length === 0 ? (
          <p className="text-sm text-muted">No notifications yet. Platform outages, large balance operations and security changes show here.</p>
        ) : (
          <ul className="grid gap-1" aria-label="Recent notifications">
            {items.map((n) => {
              const Icon = SEVERITY_ICON[n.severity];
              return (
                <li key={n.id}>
                  <Link to="/inbox" className={cn("flex gap-3 rounded-md p-2 hover:bg-subtle", focusRing)}>
                    <Icon aria-hidden className={cn("mt-0.5 size-4 shrink-0", SEVERITY_CLASS[n.severity])} />
                    <span className="grid min-w-0 flex-1">
                      <span className={cn("truncate text-sm", n.readAt === null ? "font-semibold" : "font-medium")}>
                        {n.readAt === null ? <span className="sr-only">Unread: </span> : null}
                        {n.title}
                      </span>
                      <time dateTime={n.createdAt} className="text-xs text-muted">
                        {currentFormat().dateTimeShort(n.createdAt)}
                      </time>
                    </span>
                  </Link>
                </li>
              );
            })}
          </ul>
        )}
      </CardContent>
    </Card>
  );
}
