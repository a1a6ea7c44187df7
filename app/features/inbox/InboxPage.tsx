import { currentFormat } from "~/ui/format";
import { useEffect, useState } from "react";
import { Link } from "react-router";
import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { AlertOctagon, AlertTriangle, CheckCheck, Inbox, Info } from "lucide-react";
import { NOTIFICATION_SEVERITIES, NOTIFICATION_TYPE_LABELS, NOTIFICATION_TYPES, type NotificationSeverity } from "@core/notifications";
import { useCurrentOrganizationId } from "~/profile";
import { Badge, type BadgeTone } from "~/ui/Badge";
import { Button } from "~/ui/Button";
import { cn, focusRing } from "~/ui/cn";
import { EmptyState } from "~/ui/EmptyState";
import { Page } from "~/ui/Page";
import { Select } from "~/ui/Select";
import { Skeleton } from "~/ui/Skeleton";
import { inboxApi, inboxQueryKey, type InboxFilters, type Notification } from "./inboxApi";
import { acquireUnreadCount, useUnreadStore } from "./unreadCount";

const ANY = "any";
const SEVERITY_TONE: Record<NotificationSeverity, BadgeTone> = { info: "info", warning: "warning", error: "danger" };
const SEVERITY_ICON = { info: Info, warning: AlertTriangle, error: AlertOctagon } as const;
const SEVERITY_LABEL: Record<NotificationSeverity, string> = { info: "Info", warning: "Warning", error: "Error" };

/** When a notification came, in the member's format and zone. */
const when = (iso: string): string => currentFormat().dateTimeShort(iso);

/** /inbox: the signed-in member's notifications in this organization, newest first, live. */
export function InboxPage() {
  const organizationId = useCurrentOrganizationId();
  const queryClient = useQueryClient();
  const [filters, setFilters] = useState<InboxFilters>({ status: "all" });
  useEffect(() => acquireUnreadCount(), []);
  const changes = useUnreadStore((s) => s.changes);
  const unread = useUnreadStore((s) => s.unread);

  const query = useInfiniteQuery({
    queryKey: inboxQueryKey(organizationId, filters),
    queryFn: ({ pageParam, signal }) => inboxApi.list(filters, pageParam, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next ?? undefined,
  });
  // Something changed in the inbox (here, in another tab, a new notification): read it again.
  useEffect(() => {
    if (changes > 0) void queryClient.invalidateQueries({ queryKey: inboxQueryKey(organizationId) });
  }, [changes, organizationId, queryClient]);

  const refresh = () => queryClient.invalidateQueries({ queryKey: inboxQueryKey(organizationId) });
  const markRead = useMutation({ mutationFn: inboxApi.markRead, onSuccess: refresh });
  const markAll = useMutation({ mutationFn: inboxApi.markAllRead, onSuccess: refresh });
  const items = query.data?.pages.flatMap((p) => p.items) ?? [];
  const unreadNow = unread ?? query.data?.pages[0]?.unread ?? 0;

  return (
    <Page
      title="Inbox"
      description="Notifications for you in this organization"
      actions={
        <Button variant="secondary" onClick={() => markAll.mutate()} loading={markAll.isPending} disabled={unreadNow === 0}>
          <CheckCheck aria-hidden className="size-4" />
          Mark all read
        </Button>
      }
    >
      <div className="mb-4 flex flex-wrap items-end gap-3" role="group" aria-label="Filters">
        <div className="inline-flex rounded-md border border-border p-0.5" role="radiogroup" aria-label="Show">
          {(["all", "unread", "read"] as const).map((status) => (
            <button
              key={status}
              type="button"
              role="radio"
              aria-checked={filters.status === status}
              onClick={() => setFilters((f) => ({ ...f, status }))}
              className={cn(
                "h-8 rounded px-3 text-sm font-medium",
                filters.status === status ? "bg-primary/10 text-primary" : "text-fg/80 hover:bg-subtle",
                focusRing,
              )}
            >
              {status === "all" ? "All" : status === "unread" ? `Unread${unreadNow ? ` (${unreadNow})` : ""}` : "Read"}
            </button>
          ))}
        </div>
        <Select
          aria-label="Severity"
          className="w-40"
          value={filters.severity ?? ANY}
          onValueChange={(v) => setFilters((f) => ({ ...f, severity: v === ANY ? undefined : (v as NotificationSeverity) }))}
          options={[{ value: ANY, label: "Any severity" }, ...NOTIFICATION_SEVERITIES.map((s) => ({ value: s, label: SEVERITY_LABEL[s] }))]}
        />
        <Select
          aria-label="Type"
          className="w-64"
          value={filters.type ?? ANY}
          onValueChange={(v) => setFilters((f) => ({ ...f, type: v === ANY ? undefined : (v as InboxFilters["type"]) }))}
          options={[{ value: ANY, label: "Any type" }, ...NOTIFICATION_TYPES.map((t) => ({ value: t, label: NOTIFICATION_TYPE_LABELS[t] }))]}
        />
      </div>

      {query.isPending ? (
        <div className="grid gap-2" aria-busy="true" aria-label="Loading notifications">
          {[0, 1, 2].map((i) => (
            <Skeleton key={i} className="h-16 w-full" />
          ))}
        </div>
      ) : items.length === 0 ? (
        <EmptyState
          icon={Inbox}
          title={filters.status === "unread" ? "Nothing unread" : "No notifications"}
          description="Platform outages, large balance operations, copier trouble, member and security changes appear here as they happen."
        />
      ) : (
        <ul className="grid gap-2" aria-label="Notifications">
          {items.map((n) => (
            <NotificationItem key={n.id} notification={n} onRead={() => markRead.mutate(n.id)} />
          ))}
        </ul>
      )}
      {query.hasNextPage ? (
        <div className="mt-4 flex justify-center">
          <Button variant="secondary" onClick={() => void query.fetchNextPage()} loading={query.isFetchingNextPage}>
            Load more
          </Button>
        </div>
      ) : null}
    </Page>
  );
}

function NotificationItem({ notification: n, onRead }: { notification: Notification; onRead: () => void }) {
  const Icon = SEVERITY_ICON[n.severity];
  const unread = n.readAt === null;
  return (
    <li
      className={cn("flex gap-3 rounded-lg border border-border bg-surface p-3", unread && "border-l-4 border-l-primary")}
      aria-label={`${unread ? "Unread: " : ""}${n.title}`}
    >
      <Icon
        aria-hidden
        className={cn("mt-0.5 size-5 shrink-0", n.severity === "error" ? "text-danger" : n.severity === "warning" ? "text-warning" : "text-info")}
      />
      <div className="grid min-w-0 flex-1 gap-1">
        <div className="flex flex-wrap items-center gap-2">
          <p className={cn("text-sm", unread ? "font-semibold" : "font-medium")}>{n.title}</p>
          <Badge tone={SEVERITY_TONE[n.severity]}>{SEVERITY_LABEL[n.severity]}</Badge>
          <Badge tone="outline">{NOTIFICATION_TYPE_LABELS[n.type]}</Badge>
        </div>
        <p className="text-sm text-muted">{n.body}</p>
        <div className="flex flex-wrap items-center gap-3 text-xs text-muted">
          <time dateTime={n.createdAt}>{when(n.createdAt)}</time>
          {n.link ? (
            <Link to={n.link} onClick={unread ? onRead : undefined} className={cn("font-medium text-primary hover:underline", focusRing)}>
              Open
            </Link>
          ) : null}
        </div>
      </div>
      {unread ? (
        <Button variant="ghost" size="sm" onClick={onRead} aria-label={`Mark "${n.title}" read`}>
          Mark read
        </Button>
      ) : null}
    </li>
  );
}
