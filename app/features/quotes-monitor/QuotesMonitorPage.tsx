import { useQuery } from "@tanstack/react-query";
import type { GridApi, IRowNode } from "ag-grid-community";
import { Download, Gauge, ShieldOff } from "lucide-react";
import { useCallback, useEffect, useId, useMemo, useRef, useState } from "react";
import { Link, useSearchParams } from "react-router";
import type { QuotePlatform } from "@core/schemas/quotesMonitor";
import { compileMask } from "@core/trading/mask";
import { api } from "~/api";
import type { StreamStatus } from "~/api/liveStream";
import { useAccess, useCurrentOrganizationId, useMemberPreferences } from "~/profile";
import { Badge } from "~/ui/Badge";
import { Button } from "~/ui/Button";
import { EmptyState } from "~/ui/EmptyState";
import { Field } from "~/ui/Field";
import { Input } from "~/ui/Input";
import { Label } from "~/ui/Label";
import { Select } from "~/ui/Select";
import { Switch } from "~/ui/Switch";
import { buildCsv, ColumnPreferenceProvider, ColumnsMenu, csvFileName, DataGrid, GridSkeleton, GridToolbar, saveCsv } from "~/ui/grid";
import { Page } from "~/ui/Page";
import { AlertRulesSection } from "./AlertRulesSection";
import { ComparisonView } from "./ComparisonView";
import { quoteColumns, quoteCsvColumns, FLASH_MS, type MonitorRow } from "./quoteColumns";
import { openQuoteStream } from "./quoteStream";
import { SymbolDetail } from "./SymbolDetail";
import { groupPathOf, inGroup, learnGroups } from "./symbolGroups";
import { Tabs } from "~/ui/Tabs";

export const QUOTES_GRID_STATE_KEY = "quotesMonitor.grid.columns";
const ALL = "all";
const rowIdOf = (p: { data: MonitorRow }) => p.data.key;
const TITLE = "Quotes Monitor";
const DESCRIPTION = "Every symbol of the monitor's platforms, live: spreads, gaps in the feed and alerts.";

/** The server's clock as of the last frame, running on with the page's own (time without ticks grows between frames). */
function createServerClock() {
  let at = 0;
  let local = 0;
  return {
    now: () => at + (performance.now() - local),
    set: (serverNow: number) => {
      at = serverNow;
      local = performance.now();
    },
  };
}

/** `/apps/quotes-monitor`: every symbol of the monitor's platforms, live (docs/quotes-monitor.md). */
export function QuotesMonitorPage() {
  const { hasModule } = useAccess();
  const organizationId = useCurrentOrganizationId();
  const preferences = useMemberPreferences();
  const canRead = hasModule("quotesMonitor", "read");
  const platformsQuery = useQuery({
    queryKey: ["quotesMonitor", organizationId, "platforms"],
    queryFn: ({ signal }) => api.get<QuotePlatform[]>("/api/quotesMonitor/platforms", { signal }),
    enabled: canRead,
    // While no platform uses it, asked again now and then: one assigned meanwhile (another tab, a colleague) shows up.
    refetchInterval: (query) => (query.state.data?.length === 0 ? 10_000 : false),
  });

  if (!canRead) {
    return (
      <Page title={TITLE}>
        <EmptyState
          icon={ShieldOff}
          title="You can't see the Quotes Monitor"
          description="The Quotes Monitor needs read access to its module. Ask an administrator of this organization."
        />
      </Page>
    );
  }
  if (platformsQuery.isPending) {
    return (
      <Page title={TITLE} description={DESCRIPTION} className="max-w-none">
        <GridSkeleton label="Quotes" className="h-[calc(100dvh-24rem)] min-h-[24rem]" />
      </Page>
    );
  }
  if ((platformsQuery.data ?? []).length === 0) {
    return (
      <Page title={TITLE} description={DESCRIPTION}>
        <EmptyState
          icon={Gauge}
          title="No platform uses the Quotes Monitor yet"
          description="Assign the Quotes Monitor to one or more trade platforms and their symbols show here, live."
          action={
            hasModule("tradePlatforms", "write") ? (
              <Button asChild>
                <Link to="/tradePlatforms/AssignApplicationModal?app=quotesMonitor">Assign the Quotes Monitor</Link>
              </Button>
            ) : (
              <p className="text-sm text-muted">Ask someone who manages trade platforms to assign it.</p>
            )
          }
        />
      </Page>
    );
  }
  return (
    <ColumnPreferenceProvider store={preferences}>
      <Page title={TITLE} description={DESCRIPTION} className="max-w-none">
        <MonitorViews key={organizationId ?? ""} platforms={platformsQuery.data ?? []} canWrite={hasModule("quotesMonitor", "write")} />
      </Page>
    </ColumnPreferenceProvider>
  );
}

type View = "quotes" | "comparison";

/** The monitor's two views, the choice in the URL (`view=comparison`): every row live, and the same instruments across servers. */
function MonitorViews({ platforms, canWrite }: { platforms: QuotePlatform[]; canWrite: boolean }) {
  const [params, setParams] = useSearchParams();
  const view: View = params.get("view") === "comparison" ? "comparison" : "quotes";
  const select = (next: View) =>
    setParams(
      (p) => {
        const out = new URLSearchParams(p);
        if (next === "quotes") out.delete("view");
        else out.set("view", next);
        return out;
      },
      { replace: true },
    );
  return (
    <Tabs<View>
      label="Quotes Monitor views"
      selected={view}
      onSelect={select}
      tabs={[
        {
          id: "quotes",
          label: "Quotes",
          content: () => (
            <div className="grid gap-6">
              <LiveQuotes initialPlatforms={platforms} />
              <AlertRulesSection platforms={platforms} canWrite={canWrite} />
            </div>
          ),
        },
        { id: "comparison", label: "Comparison across servers", content: () => <ComparisonView platforms={platforms} canWrite={canWrite} /> },
      ]}
    />
  );
}

function LiveQuotes({ initialPlatforms }: { initialPlatforms: QuotePlatform[] }) {
  const [params, setParams] = useSearchParams();
  const platform = params.get("platform") ?? ALL;
  const mask = params.get("symbol") ?? "";
  const group = params.get("group") ?? ALL;
  const problemsOnly = params.get("problems") === "1";
  const setParam = (key: string, value: string | null) =>
    setParams(
      (p) => {
        const next = new URLSearchParams(p);
        if (value === null || value === "") next.delete(key);
        else next.set(key, value);
        return next;
      },
      { replace: true },
    );
  const [platforms, setPlatforms] = useState(initialPlatforms);
  const [status, setStatus] = useState<StreamStatus>("connecting");
  const [gridApi, setGridApi] = useState<GridApi<MonitorRow> | null>(null);
  const [detail, setDetail] = useState<MonitorRow | null>(null);
  const [serverClock] = useState(createServerClock);
  const columns = useMemo(() => quoteColumns(serverClock.now), [serverClock]);
  const problemPlatforms = useMemo(() => new Set(platforms.filter((p) => p.problem).map((p) => p.id)), [platforms]);
  const [knownGroups] = useState(() => new Set<string>());
  const [groups, setGroups] = useState<string[]>([]);

  // The stream feeds the grid directly (a transaction per frame); React renders only the chrome.
  useEffect(() => {
    if (!gridApi) return;
    const learn = (rows: MonitorRow[]) => {
      if (
        learnGroups(
          knownGroups,
          rows.map((r) => groupPathOf(r.path, r.symbol)),
        )
      )
        setGroups([...knownGroups].sort());
    };
    const stop = openQuoteStream({
      onSnapshot(rows) {
        learn(rows);
        gridApi.setGridOption("rowData", rows);
      },
      // The rows are the grid's own objects, changed in place: the transaction tells it which to show again.
      onChanges(add, update) {
        if (add.length > 0) learn(add);
        gridApi.applyTransaction({ add, update });
      },
      onPlatforms: setPlatforms,
      onNow: serverClock.set,
      onStatus: setStatus,
    });
    // Time without ticks grows on its own, and colours of moved prices fade after their second.
    const tick = setInterval(() => gridApi.refreshCells({ columns: ["silence", "bid", "ask"] }), FLASH_MS);
    return () => {
      stop();
      clearInterval(tick);
    };
  }, [gridApi, serverClock, knownGroups]);

  const matches = useMemo(() => (mask.trim() ? compileMask(mask.trim().toUpperCase()) : null), [mask]);
  const filter = useRef({ platform, group, matches, problemsOnly, problemPlatforms });
  const filtering = useRef(false);
  useEffect(() => {
    filter.current = { platform, group, matches, problemsOnly, problemPlatforms };
    // Without a filter the grid does not ask every row at each transaction.
    filtering.current = platform !== ALL || group !== ALL || matches !== null || problemsOnly;
    gridApi?.onFilterChanged();
  }, [gridApi, platform, group, matches, problemsOnly, problemPlatforms]);
  const passes = useCallback((node: IRowNode<MonitorRow>) => {
    const row = node.data;
    if (!row) return false;
    const f = filter.current;
    if (f.platform !== ALL && row.platformId !== f.platform) return false;
    if (f.group !== ALL && !inGroup(groupPathOf(row.path, row.symbol), f.group)) return false;
    if (f.matches && !f.matches(row.symbol.toUpperCase())) return false;
    if (f.problemsOnly && row.alerts.length === 0 && !f.problemPlatforms.has(row.platformId)) return false;
    return true;
  }, []);

  const exportView = () => {
    if (!gridApi) return;
    const rows: MonitorRow[] = [];
    gridApi.forEachNodeAfterFilterAndSort((n) => n.data && rows.push(n.data));
    saveCsv(buildCsv(quoteCsvColumns(serverClock.now()), rows), csvFileName("quotes"));
  };

  const troubled = platforms.filter((p) => p.problem);
  const problemsId = useId();
  return (
    <section className="grid gap-3" aria-label="Live quotes">
      {troubled.length > 0 ? (
        <ul className="grid gap-1 text-sm" aria-label="Platforms without quotes">
          {troubled.map((p) => (
            <li key={p.id}>
              <Badge tone="warning">{p.name}</Badge> <span className="text-muted">{p.problem}</span>
            </li>
          ))}
        </ul>
      ) : null}
      <GridToolbar
        label="Quotes filters"
        filters={
          <>
            <Field label="Platform" className="w-48">
              <Select
                value={platform}
                onValueChange={(v) => setParam("platform", v === ALL ? null : v)}
                options={[{ value: ALL, label: "All platforms" }, ...platforms.map((p) => ({ value: p.id, label: p.name }))]}
              />
            </Field>
            <Field label="Symbol group" className="w-48">
              <Select
                value={group}
                onValueChange={(v) => setParam("group", v === ALL ? null : v)}
                options={[
                  { value: ALL, label: "All groups" },
                  ...(group === ALL || groups.includes(group) ? groups : [...groups, group]).map((g) => ({ value: g, label: g })),
                ]}
              />
            </Field>
            <Field label="Symbols" className="w-48">
              <Input value={mask} placeholder="EUR*,!EURGBP" onChange={(e) => setParam("symbol", e.target.value)} />
            </Field>
            <div className="flex items-center gap-2 self-end pb-2 text-sm">
              <Switch id={problemsId} checked={problemsOnly} onCheckedChange={(on) => setParam("problems", on ? "1" : null)} />
              <Label htmlFor={problemsId}>Only problems</Label>
            </div>
          </>
        }
        actions={
          <>
            <Badge tone={status === "open" ? "success" : "warning"}>{status === "open" ? "Live" : status === "stopped" ? "Stopped" : "Reconnecting…"}</Badge>
            <ColumnsMenu api={gridApi} columnDefs={columns} />
            <Button variant="secondary" size="sm" onClick={exportView}>
              <Download aria-hidden />
              Export
            </Button>
          </>
        }
      />
      <DataGrid<MonitorRow>
        label="Quotes"
        stateKey={QUOTES_GRID_STATE_KEY}
        columnDefs={columns}
        getRowId={rowIdOf}
        // Twelve columns: all drawn, so session and alerts are there whatever the width (and for screen readers).
        suppressColumnVirtualisation
        onReady={setGridApi}
        isExternalFilterPresent={() => filtering.current}
        // Prices change, the order by symbol seldom does: each transaction sorts only the rows it changed into place.
        deltaSort
        doesExternalFilterPass={passes}
        onRowOpen={setDetail}
        emptyText="No symbol yet: the platforms' symbols show as soon as their quotes arrive."
        className="h-[calc(100dvh-22rem)] min-h-[24rem]"
      />
      <SymbolDetail row={detail} onClose={() => setDetail(null)} />
    </section>
  );
}
