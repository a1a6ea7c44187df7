import { useQuery } from "@tanstack/react-query";
import type { ColDef, ICellRendererParams } from "ag-grid-community";
import { Gauge } from "lucide-react";
import { useMemo, useState } from "react";
import { Link } from "react-router";
import { api } from "~/api";
import { useAccess, useCurrentOrganizationId, useMemberPreferences } from "~/profile";
import { Badge, type BadgeTone } from "~/ui/Badge";
import { Button } from "~/ui/Button";
import { cn, focusRing } from "~/ui/cn";
import { EmptyState } from "~/ui/EmptyState";
import { ColumnPreferenceProvider, DataGrid, dateTimeColumn, integerColumn, moneyColumn, textColumn } from "~/ui/grid";
import { Section } from "~/ui/Section";
import { Select } from "~/ui/Select";
import { CopyEventsSection } from "./CopyEventsSection";
import { LatencyChart } from "./LatencyChart";
import { ResyncDialog, type ResyncTarget } from "./ResyncDialog";
import {
  DIVERGENCE_PATH,
  DIVERGENCE_REFRESH_MS,
  divergenceKey,
  FOLLOWERS_GRID_STATE_KEY,
  formatMs,
  STATUS_PATH,
  STATUS_REFRESH_MS,
  statusKey,
  type CopierDivergence,
  type CopierStatus,
  type FollowerDivergence,
  type FollowerStatus,
  type LinkStatus,
} from "./statusApi";

export const STATE_LABELS: Record<FollowerStatus["state"], { label: string; tone: BadgeTone }> = {
  running: { label: "Running", tone: "success" },
  paused: { label: "Paused", tone: "outline" },
  closeOnly: { label: "Close-only", tone: "info" },
  failing: { label: "Failing", tone: "danger" },
  suspended: { label: "Suspended", tone: "warning" },
};

interface FollowerRow extends FollowerStatus {
  id: string;
  link: LinkStatus;
  linkName: string;
  sourceText: string;
  followerText: string;
  totalP50: number | null;
  totalP99: number | null;
  eventP99: number | null;
  decisionP99: number | null;
  ackP99: number | null;
  divergence: FollowerDivergence | undefined;
  divergenceText: string;
  floatingProfit: string | null;
  realizedProfit: string | null;
  maxDrawdown: string | null;
}

const followerId = (linkId: string, a: { platformId: string; login: string }) => `${linkId}|${a.platformId}|${a.login}`;

function divergenceText(d: FollowerDivergence | undefined): string {
  if (!d) return "Reading…";
  if (!d.known) return `Unknown: ${d.error ?? "a platform could not be read"}`;
  if (d.items.length === 0) return "In sync";
  const missing = d.items.filter((i) => i.kind === "missing").length;
  const extra = d.items.length - missing;
  return [missing ? `${missing} missing` : "", extra ? `${extra} extra` : ""].filter(Boolean).join(", ");
}

/**
 * `/apps/trades-copier/status`: every link's followers with their state, today's copies, failures
 * and skips, latency per stage and divergence (read again every few seconds), a latency chart per
 * link, and the failed and skipped copies with their reasons (docs/trades-copier.md "Status").
 */
export function CopierStatusPage() {
  const canRead = useAccess().hasModule("tradesCopier", "read");
  const canWrite = useAccess().hasModule("tradesCopier", "write");
  const organizationId = useCurrentOrganizationId();
  const preferences = useMemberPreferences();
  const status = useQuery({
    queryKey: statusKey(organizationId),
    queryFn: ({ signal }) => api.get<CopierStatus>(STATUS_PATH, { signal }),
    refetchInterval: STATUS_REFRESH_MS,
    enabled: canRead,
  });
  const hasLinks = (status.data?.links.length ?? 0) > 0;
  const divergence = useQuery({
    queryKey: divergenceKey(organizationId),
    queryFn: ({ signal }) => api.get<CopierDivergence>(DIVERGENCE_PATH, { signal, silent: true }),
    refetchInterval: DIVERGENCE_REFRESH_MS,
    enabled: canRead && hasLinks,
  });
  const [chartLinkId, setChartLinkId] = useState<string | null>(null);
  const [resync, setResync] = useState<ResyncTarget | null>(null);

  const rows = useMemo<FollowerRow[]>(() => {
    const byFollower = new Map((divergence.data?.followers ?? []).map((d) => [followerId(d.linkId, d.account), d]));
    return (status.data?.links ?? []).flatMap((link) =>
      link.followers.map((f) => {
        const id = followerId(link.id, f.account);
        const d = divergence.isError ? undefined : byFollower.get(id);
        return {
          ...f,
          id,
          link,
          linkName: link.name,
          sourceText: `${link.source.platformName} · ${link.source.login}`,
          followerText: `${f.platformName} · ${f.account.login}`,
          totalP50: f.latency.total.p50,
          totalP99: f.latency.total.p99,
          eventP99: f.latency.eventToEngine.p99,
          decisionP99: f.latency.decision.p99,
          ackP99: f.latency.sendToAck.p99,
          divergence: d,
          divergenceText: divergence.isError ? "Could not be read" : divergenceText(d),
          floatingProfit: d?.floatingProfit ?? null,
          realizedProfit: d?.realizedProfit ?? null,
          maxDrawdown: d?.maxDrawdown ?? null,
        };
      }),
    );
  }, [status.data, divergence.data, divergence.isError]);

  const columns = useMemo<ColDef<FollowerRow>[]>(() => {
    const ms = (field: "totalP50" | "totalP99" | "eventP99" | "decisionP99" | "ackP99", headerName: string, headerTooltip: string): ColDef<FollowerRow> => ({
      field,
      headerName,
      headerTooltip,
      width: 120,
      type: "rightAligned",
      cellClass: "text-right tabular-nums",
      valueFormatter: (p) => formatMs(p.value as number | null),
    });
    return [
      textColumn({ field: "linkName", headerName: "Link", width: 170 }),
      textColumn({ field: "sourceText", headerName: "Source", width: 190 }),
      textColumn({ field: "followerText", headerName: "Follower", width: 190 }),
      textColumn({
        field: "state",
        headerName: "State",
        width: 130,
        cellRenderer: (p: ICellRendererParams<FollowerRow>) =>
          p.data ? <Badge tone={STATE_LABELS[p.data.state].tone}>{STATE_LABELS[p.data.state].label}</Badge> : null,
        tooltipValueGetter: (p) => p.data?.stateReason ?? "",
      }),
      textColumn({
        field: "divergenceText",
        headerName: "Divergence",
        width: 220,
        cellRenderer: (p: ICellRendererParams<FollowerRow>) => {
          const row = p.data;
          if (!row) return null;
          const items = row.divergence?.items.length ?? 0;
          return (
            <span className="flex items-center gap-2">
              <span className={cn(items > 0 && "font-medium text-danger")}>{row.divergenceText}</span>
              {items > 0 && canWrite ? (
                <Button
                  size="sm"
                  variant="secondary"
                  aria-label={`Resync ${row.followerText}`}
                  onClick={(e) => {
                    e.stopPropagation();
                    setResync({
                      linkId: row.link.id,
                      linkName: row.linkName,
                      platformId: row.account.platformId,
                      login: row.account.login,
                      followerText: row.followerText,
                    });
                  }}
                >
                  Resync
                </Button>
              ) : null}
            </span>
          );
        },
      }),
      textColumn({ field: "stateReason", headerName: "Why", width: 200, valueFormatter: (p) => (p.value as string | null) ?? "" }),
      dateTimeColumn({ field: "suspendedAt", headerName: "Suspended since" }),
      dateTimeColumn({ field: "suspendedUntil", headerName: "Suspended until" }),
      dateTimeColumn({ field: "lastCopyAt", headerName: "Last copy" }),
      integerColumn({ field: "copiesToday", headerName: "Copies today", width: 130 }),
      integerColumn({ field: "failedToday", headerName: "Failed today", width: 125 }),
      integerColumn({ field: "skippedToday", headerName: "Skipped today", width: 135 }),
      integerColumn({ field: "pending", headerName: "Pending", width: 105 }),
      ms("totalP50", "p50", "Whole copy, source event to acknowledgement, last 24 hours"),
      ms("totalP99", "p99", "Whole copy, source event to acknowledgement, last 24 hours"),
      ms("eventP99", "Event → engine p99", "Source event time to the engine receiving it"),
      ms("decisionP99", "Decision p99", "The engine's decision"),
      ms("ackP99", "Send → ack p99", "Sent to the follower's platform until it answered"),
      moneyColumn({
        field: "realizedProfit",
        headerName: "Copies' realised P/L",
        width: 170,
        headerTooltip: "Profit, swap and commission of every deal of the positions the copier made on the follower, in its account currency",
      }),
      moneyColumn({
        field: "floatingProfit",
        headerName: "Copies' floating P/L",
        width: 170,
        headerTooltip: "Profit and swap of the follower's open copied positions",
      }),
      moneyColumn({
        field: "maxDrawdown",
        headerName: "Max drawdown",
        width: 140,
        headerTooltip: "The deepest fall of the copies' P/L from a peak: realised deal by deal, then with the floating P/L now",
      }),
    ];
  }, [canWrite]);

  if (!canRead) {
    return (
      <Section title="Status">
        <EmptyState icon={Gauge} title="No access" description="Ask an administrator for Trades Copier access to see the copier's status." />
      </Section>
    );
  }
  if (status.data && !hasLinks) {
    return (
      <Section title="Status">
        <EmptyState
          icon={Gauge}
          title="No copy links yet"
          description="Each link's followers, copies, latency and divergence show here once a link exists."
          action={
            <Link to="/apps/trades-copier" className={cn("text-sm font-medium text-primary hover:underline", focusRing)}>
              Create a copy link
            </Link>
          }
        />
      </Section>
    );
  }
  const totals = status.data?.totals;
  const links = status.data?.links ?? [];
  const chartLink = links.find((l) => l.id === chartLinkId) ?? links[0];
  const diverged = rows.filter((r) => (r.divergence?.items.length ?? 0) > 0);
  return (
    <div className="grid gap-6">
      <Section
        title="Status"
        description={
          status.data
            ? `Read every ${STATUS_REFRESH_MS / 1000} s. Today is since midnight ${status.data.timeZone}; latencies are over the last 24 hours.`
            : "Loading the copier's status…"
        }
      >
        {status.isError ? (
          <p role="alert" className="mb-3 text-sm text-danger">
            The status could not be read; it is read again in a few seconds.
          </p>
        ) : null}
        {totals ? (
          <dl className="mb-4 grid grid-cols-2 gap-3 text-sm sm:grid-cols-5" aria-label="Copier totals" data-testid="copier-totals">
            {[
              ["Links", String(totals.links)],
              ["Followers", String(totals.followers)],
              ["Copies today", String(totals.copiesToday)],
              ["Failed today", String(totals.failedToday)],
              ["p99 latency", formatMs(totals.p99)],
            ].map(([term, value]) => (
              <div key={term} className="rounded-md border border-border p-3">
                <dt className="text-xs text-muted">{term}</dt>
                <dd className="text-lg font-semibold tabular-nums">{value}</dd>
              </div>
            ))}
          </dl>
        ) : null}
        <ColumnPreferenceProvider store={preferences}>
          <DataGrid<FollowerRow>
            label="Followers"
            stateKey={FOLLOWERS_GRID_STATE_KEY}
            columnDefs={columns}
            rowData={rows}
            getRowId={(p) => p.data.id}
            emptyText={status.isPending ? "Loading…" : "No follower."}
            tooltipShowDelay={300}
            // A few rows and every column in the DOM: the divergence and its Resync button stay reachable whatever the width.
            suppressColumnVirtualisation
            className="h-[22rem]"
          />
        </ColumnPreferenceProvider>
      </Section>
      {diverged.length ? (
        <Section
          title="Divergence"
          description="Copies the follower no longer holds while the source does (missing), and copies it still holds of closed source positions (extra)."
        >
          <ul className="grid gap-3" aria-label="Followers that diverge">
            {diverged.map((r) => (
              <li key={r.id} className="rounded-md border border-border p-3 text-sm">
                <p className="font-medium">
                  {r.followerText} <span className="font-normal text-muted">on {r.linkName}</span>
                </p>
                <ul className="mt-1 grid gap-0.5">
                  {r.divergence!.items.map((i) => (
                    <li key={`${i.kind}:${i.sourceId}`}>
                      <Badge tone={i.kind === "missing" ? "danger" : "warning"}>{i.kind === "missing" ? "Missing" : "Extra"}</Badge> {i.side} {i.volume}{" "}
                      {i.symbol} — source {i.sourceId}
                      {i.followerPositionId ? `, follower position ${i.followerPositionId}` : ""}
                    </li>
                  ))}
                </ul>
              </li>
            ))}
          </ul>
        </Section>
      ) : null}
      {chartLink && status.data ? (
        <Section
          title="Latency"
          actions={
            links.length > 1 ? (
              <Select
                aria-label="Link shown in the chart"
                className="w-56"
                value={chartLink.id}
                onValueChange={setChartLinkId}
                options={links.map((l) => ({ value: l.id, label: l.name }))}
              />
            ) : null
          }
        >
          <LatencyChart link={chartLink} since={status.data.since} asOf={status.data.asOf} bucketSeconds={status.data.bucketSeconds} />
        </Section>
      ) : null}
      {status.data ? <CopyEventsSection links={links} /> : null}
      <ResyncDialog target={resync} onClose={() => setResync(null)} />
    </div>
  );
}
