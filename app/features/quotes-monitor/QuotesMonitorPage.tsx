import { useQuery } from "@tanstack/react-query";
import type { GridApi, GridOptions, IRowNode } from "ag-grid-community";
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
import { buildCsv, ColumnPreferenceProvider, ColumnsMenu, csvFileName, GridSkeleton, GridToolbar, saveCsv, StreamingGrid } from "~/ui/grid";
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
/** Rows given to the grid per animation frame beyond those in view (the rest wait for the next frames, conflated). */
const UPDATES_PER_FRAME = 1_500;
/** Columns whose values never change with a tick: sorted by them alone, an update cannot move a row. */
const STATIC_ORDER_COLUMNS = new Set(["platformName", "symbol"]);
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
  const openRow = useRef(setDetail);
  const [serverClock] = useState(createServerClock);
  const columns = useMemo(() => quoteColumns(serverClock.now), [serverClock]);
  const problemPlatforms = useMemo(() => new Set(platforms.filter((p) => p.problem).map((p) => p.id)), [platforms]);
  const [knownGroups] = useState(() => new Set<string>());
  const [groups, setGroups] = useState<string[]>([]);

  const matches = useMemo(() => (mask.trim() ? compileMask(mask.trim().toUpperCase()) : null), [mask]);
  const filter = useRef({ platform, group, matches, problemsOnly, problemPlatforms });
  const filtering = useRef(false);
  // Sorted by platform or symbol and not filtered by alerts, a price update moves no row: the grid
  // then skips sorting and filtering after update-only transactions.
  // Checked before each transaction (a sort changed by the member included).
  const staticOrder = useCallback((api: GridApi<MonitorRow>) => {
    const still = !filter.current.problemsOnly && api.getColumnState().every((c) => !c.sort || STATIC_ORDER_COLUMNS.has(c.colId));
    if (api.getGridOption("suppressModelUpdateAfterUpdateTransaction") !== still) api.setGridOption("suppressModelUpdateAfterUpdateTransaction", still);
  }, []);
  useEffect(() => {
    filter.current = { platform, group, matches, problemsOnly, problemPlatforms };
    // Without a filter the grid does not ask every row at each transaction.
    filtering.current = platform !== ALL || group !== ALL || matches !== null || problemsOnly;
    if (!gridApi) return;
    staticOrder(gridApi);
    gridApi.onFilterChanged();
  }, [gridApi, platform, group, matches, problemsOnly, problemPlatforms, staticOrder]);
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
      // The rows are the grid's own objects, changed in place: the transaction tells it which to show
      // again. The rows in view first, then others up to a budget per animation frame, so that a
      // burst of every symbol at once (a feed that ticks them together) never holds a frame long.
      onChanges(add, pending) {
        if (add.length > 0) learn(add);
        staticOrder(gridApi);
        const update: MonitorRow[] = [];
        for (const node of gridApi.getRenderedNodes()) if (node.data && pending.delete(node.data)) update.push(node.data);
        // When no update can move a row (see staticOrder), a row out of view needs nothing from the
        // grid: its object already holds the new values, drawn from it when it scrolls into view.
        if (gridApi.getGridOption("suppressModelUpdateAfterUpdateTransaction")) pending.clear();
        for (const row of pending) {
          if (update.length >= UPDATES_PER_FRAME) break;
          pending.delete(row);
          update.push(row);
        }
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
  }, [gridApi, serverClock, knownGroups, staticOrder]);

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

  // AG Grid's own DOM code draws the rows (StreamingGrid), not React: a tick refreshes a cell without a render.
  const [gridOptions] = useState<GridOptions<MonitorRow>>(() => ({
    getRowId: rowIdOf,
    // Twelve columns: all drawn, so session and alerts are there whatever the width (and for screen readers).
    suppressColumnVirtualisation: true,
    // Prices change, the order by symbol seldom does: each transaction sorts only the rows it changed into place.
    deltaSort: true,
    isExternalFilterPresent: () => filtering.current,
    doesExternalFilterPass: passes,
    rowClass: "cursor-pointer",
    onRowClicked: (event) => event.data && openRow.current(event.data),
    onCellKeyDown: (event) => {
      if ((event.event as KeyboardEvent | undefined)?.key === "Enter" && event.data) openRow.current(event.data);
    },
  }));

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
      <StreamingGrid<MonitorRow>
        label="Quotes"
        stateKey={QUOTES_GRID_STATE_KEY}
        columnDefs={columns}
        options={gridOptions}
        selectableText
        onReady={setGridApi}
        emptyText="No symbol yet: the platforms' symbols show as soon as their quotes arrive."
        className="h-[calc(100dvh-22rem)] min-h-[24rem]"
      />
      <SymbolDetail row={detail} onClose={() => setDetail(null)} />
    </section>
  );
}
