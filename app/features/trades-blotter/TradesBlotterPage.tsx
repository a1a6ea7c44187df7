import { useQuery } from "@tanstack/react-query";
import type { GridApi, GridOptions } from "ag-grid-community";
import { Activity, Download, FilterX, History, Hourglass, Pause, Play, Radio, ShieldOff } from "lucide-react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import type { BlotterPlatform, BlotterRow } from "@core/schemas/blotterLive";
import type { BlotterDealTotals } from "@core/schemas/tradesBlotter";
import { api } from "~/api";
import { onOrganizationChange, useAccess, useCurrentOrganizationId, useMemberPreferences } from "~/profile";
import { Badge } from "~/ui/Badge";
import { Button } from "~/ui/Button";
import { EmptyState } from "~/ui/EmptyState";
import { DateInput } from "~/ui/DateInput";
import { Field } from "~/ui/Field";
import { Input } from "~/ui/Input";
import { Select } from "~/ui/Select";
import {
  buildCsv,
  ColumnPreferenceProvider,
  ColumnsMenu,
  csvFileName,
  DataGrid,
  GridSkeleton,
  GridStatus,
  GridToolbar,
  saveCsv,
  StreamingGrid,
} from "~/ui/grid";
import { Page } from "~/ui/Page";
import { blotterColumns, blotterCsvColumns } from "./blotterColumns";
import {
  activeFilterCount,
  EMPTY_FILTERS,
  filtersQuery,
  historyQuery,
  invalidLots,
  paramsOfView,
  rangeProblem,
  viewFromParams,
  type BlotterFilterText,
  type BlotterView,
} from "./blotterFilters";
import { openBlotterStream, type BlotterStream } from "./blotterStream";
import type { BlotterStreamState } from "./blotterStreamCore";
import { emptyTotals, type BlotterFigures } from "./blotterTotals";
import { countGridChange } from "./benchProbe";
import { createFramePacer } from "./framePacer";
import { createRowFlash } from "./rowFlash";
import { createLiveDatasource } from "./liveDatasource";
import type { LiveRow } from "./liveRowModel";
import { throttleLatest } from "./throttleLatest";
import { BlotterSidePanel } from "./BlotterSidePanel";
import { PendingOrdersBlotter } from "./PendingOrdersBlotter";
import { exportHistoryCsv, historyDatasource, totalsOfRange, type HistoryLoaded } from "./historySource";

export const BLOTTER_GRID_STATE_KEY = "tradesBlotter.grid.columns";
const ALL = "all";
const NO_FIGURES: BlotterFigures = { totals: emptyTotals(), exposure: [] };
/** Constants, not inline: a new function or object on each render makes AG Grid redo work 20 times a second. */
const rowIdOf = (p: { data: BlotterRow }) => p.data.key;
/**
 * The live grid's options (decision 0062): AG Grid's infinite row model reads blocks of rows from
 * the stream worker's model (liveDatasource.ts), so the grid holds and draws only the rows in view
 * whatever the rate. Text can be selected only while paused (StreamingGrid's `selectableText`): it
 * wraps every cell in two more elements, and rows streaming under the pointer cannot be selected anyway.
 */
const LIVE_GRID_OPTIONS: GridOptions<BlotterRow> = {
  rowModelType: "infinite",
  getRowId: rowIdOf,
  // A block is a few screens of rows; ten of them let a dealer scroll back and forth without waiting.
  cacheBlockSize: 100,
  maxBlocksInCache: 10,
  // Rows jump to their place instead of gliding: row animation kept every moved row in the DOM
  // for its transition and alone cost most of the frames.
  animateRows: false,
  // Only the rows in view are drawn (AG Grid draws 10 more each side by default): with the newest
  // on top every refresh replaces them, and this halves its cost.
  rowBuffer: 0,
};
/** How often the streaming side panel (totals, exposure chart) redraws at most. */
const FIGURES_EVERY_MS = 1_000;

/** `/apps/trades-blotter`: every trade and deal on the blotter's platforms, live or for a range of days. */
export function TradesBlotterPage() {
  const { hasModule } = useAccess();
  const organizationId = useCurrentOrganizationId();
  const preferences = useMemberPreferences();
  const [params, setParams] = useSearchParams();
  const view = useMemo(() => viewFromParams(params), [params]);
  const setView = useCallback((next: BlotterView) => setParams(paramsOfView(next), { replace: true }), [setParams]);
  const [streamPlatforms, setStreamPlatforms] = useState<BlotterPlatform[] | null>(null);
  const platformsQuery = useQuery({
    queryKey: ["tradesBlotter", organizationId, "platforms"],
    queryFn: ({ signal }) => api.get<BlotterPlatform[]>("/api/tradesBlotter/platforms", { signal }),
    enabled: hasModule("tradesBlotter", "read"),
  });
  const platformList = streamPlatforms ?? platformsQuery.data ?? null;
  const platforms = useMemo(() => new Map((platformList ?? []).map((p) => [p.id, p])), [platformList]);

  if (!hasModule("tradesBlotter", "read")) {
    return (
      <Page title="Trades Blotter">
        <EmptyState
          icon={ShieldOff}
          title="You can't see the blotter"
          description="The Trades Blotter needs read access to its module. Ask an administrator of this organization."
        />
      </Page>
    );
  }
  if (platformList === null && platformsQuery.isPending) {
    // Until the platforms are known, neither the call to action nor the grid and its Pause button:
    // one of them would show for a moment and then give way to the other.
    return (
      <Page title="Trades Blotter" description="Every trade and deal on the blotter's platforms, live or for a range of days." className="max-w-none">
        <GridSkeleton label="Trades" className="h-[calc(100dvh-24rem)] min-h-[24rem]" />
      </Page>
    );
  }
  if (platformList !== null && platformList.length === 0) {
    return (
      <Page title="Trades Blotter" description="Every trade and deal on your platforms">
        <EmptyState
          icon={Activity}
          title="No platform uses the blotter yet"
          description="Assign the Trades Blotter to one or more trade platforms and their trades show here, live."
          action={
            hasModule("tradePlatforms", "write") ? (
              <Button asChild>
                <Link to="/tradePlatforms/AssignApplicationModal?app=tradesBlotter">Assign the Trades Blotter</Link>
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
      <Page
        title="Trades Blotter"
        description="Every trade and deal on the blotter's platforms, live or for a range of days."
        className="max-w-none"
        actions={<ModeSwitch mode={view.mode} onChange={(mode) => setView({ ...view, mode })} />}
      >
        <div className="grid gap-3">
          <BlotterFiltersBar view={view} platforms={platformList ?? []} onChange={setView} />
          {view.mode === "live" ? (
            <LiveBlotter key={organizationId ?? ""} view={view} platforms={platforms} onPlatforms={setStreamPlatforms} />
          ) : view.mode === "orders" ? (
            <PendingOrdersBlotter key={organizationId ?? ""} view={view} platforms={platforms} />
          ) : rangeProblem(view.from, view.to) === null ? (
            <HistoryBlotter key={organizationId ?? ""} view={view} platforms={platforms} />
          ) : (
            // Only a hand-made link gets here: the form applies no range the API would refuse.
            <EmptyState icon={History} title="These days cannot be shown" description="Correct the days above to see their deals." />
          )}
        </div>
      </Page>
    </ColumnPreferenceProvider>
  );
}

function ModeSwitch({ mode, onChange }: { mode: BlotterView["mode"]; onChange: (mode: BlotterView["mode"]) => void }) {
  return (
    <div role="group" aria-label="Mode" className="flex rounded-md border border-border bg-surface p-0.5">
      <Button size="sm" variant={mode === "live" ? "secondary" : "ghost"} aria-pressed={mode === "live"} onClick={() => onChange("live")}>
        <Radio aria-hidden />
        Streaming
      </Button>
      <Button size="sm" variant={mode === "history" ? "secondary" : "ghost"} aria-pressed={mode === "history"} onClick={() => onChange("history")}>
        <History aria-hidden />
        Historical
      </Button>
      <Button size="sm" variant={mode === "orders" ? "secondary" : "ghost"} aria-pressed={mode === "orders"} onClick={() => onChange("orders")}>
        <Hourglass aria-hidden />
        Pending orders
      </Button>
    </div>
  );
}

/** Filters as typed go to the URL; the grid follows them once they stop changing for a moment. */
function BlotterFiltersBar({ view, platforms, onChange }: { view: BlotterView; platforms: BlotterPlatform[]; onChange: (next: BlotterView) => void }) {
  const [draft, setDraft] = useState(view.filters);
  const applied = useRef(view.filters);
  // The URL changed from elsewhere (back, a link): show it.
  useEffect(() => {
    if (JSON.stringify(view.filters) !== JSON.stringify(applied.current)) {
      applied.current = view.filters;
      setDraft(view.filters);
    }
  }, [view.filters]);
  useEffect(() => {
    if (JSON.stringify(draft) === JSON.stringify(applied.current) || invalidLots(draft).length > 0) return;
    const timer = setTimeout(() => {
      applied.current = draft;
      onChange({ ...view, filters: draft });
    }, 300);
    return () => clearTimeout(timer);
  }, [draft, view, onChange]);
  const invalid = new Set(invalidLots(draft));
  const set = (key: keyof BlotterFilterText) => (value: string) => setDraft((d) => ({ ...d, [key]: value }));
  const text = (key: "login" | "group" | "symbol" | "minLots" | "maxLots" | "text", label: string, placeholder?: string) => (
    <Field
      label={label}
      error={invalid.has(key as "minLots") ? (key === "minLots" && /^\d/.test(draft.minLots) ? "Above the maximum" : "Not a number of lots") : undefined}
    >
      <Input
        type="search"
        value={draft[key]}
        onChange={(e) => set(key)(e.target.value)}
        placeholder={placeholder}
        inputMode={key.endsWith("Lots") ? "decimal" : undefined}
        autoComplete="off"
        spellCheck={false}
        className="h-8"
      />
    </Field>
  );
  const count = activeFilterCount(draft);
  return (
    <div
      role="search"
      aria-label="Filter trades"
      className="grid items-start gap-3 rounded-lg border border-border bg-surface p-3 sm:grid-cols-3 lg:grid-cols-6"
    >
      <Field label="Platform">
        <Select
          value={draft.platforms[0] ?? ALL}
          onValueChange={(v) => setDraft((d) => ({ ...d, platforms: v === ALL ? [] : [v] }))}
          options={[{ value: ALL, label: "All platforms" }, ...platforms.map((p) => ({ value: p.id, label: p.name }))]}
          className="h-8"
        />
      </Field>
      {text("login", "Login", "100234, 100235")}
      {text("group", "Group mask", "real\\*, !*test*")}
      {text("symbol", "Symbol mask", "EUR*, XAUUSD")}
      <Field label="Side">
        <Select
          value={draft.side || ALL}
          onValueChange={(v) => set("side")(v === ALL ? "" : v)}
          options={[
            { value: ALL, label: "Any side" },
            { value: "buy", label: "Buy" },
            { value: "sell", label: "Sell" },
            { value: "balance", label: "Balance" },
            { value: "credit", label: "Credit" },
          ]}
          className="h-8"
        />
      </Field>
      {text("text", "Text", "Ticket, comment …")}
      {text("minLots", "Volume from (lots)", "Min")}
      {text("maxLots", "Volume to (lots)", "Max")}
      {view.mode === "history" ? <RangeFields view={view} onChange={onChange} /> : null}
      <div className="flex items-end self-end">
        <Button variant="ghost" size="sm" onClick={() => setDraft(EMPTY_FILTERS)} disabled={count === 0} className="w-full justify-start lg:justify-center">
          <FilterX aria-hidden />
          Clear filters{count ? ` (${count})` : ""}
        </Button>
      </div>
    </div>
  );
}

/**
 * The history's days. A range the API would refuse (the last day before the first, longer than it
 * takes) stays in the form with the field's message and is not applied: the grid keeps the last
 * good range's rows and figures.
 */
function RangeFields({ view, onChange }: { view: BlotterView; onChange: (next: BlotterView) => void }) {
  const [range, setRange] = useState({ from: view.from, to: view.to });
  const applied = useRef({ from: view.from, to: view.to });
  // The URL changed from elsewhere (back, a link): show it.
  useEffect(() => {
    if (applied.current.from === view.from && applied.current.to === view.to) return;
    applied.current = { from: view.from, to: view.to };
    setRange(applied.current);
  }, [view.from, view.to]);
  const problem = rangeProblem(range.from, range.to);
  const set = (field: "from" | "to") => (value: string) => {
    const next = { ...range, [field]: value };
    setRange(next);
    if (rangeProblem(next.from, next.to) !== null) return;
    applied.current = next;
    onChange({ ...view, ...next });
  };
  return (
    <>
      <Field label="From day" error={problem?.field === "from" ? problem.message : undefined}>
        <DateInput value={range.from} onChange={(e) => set("from")(e.target.value)} className="h-8" />
      </Field>
      <Field label="To day" error={problem?.field === "to" ? problem.message : undefined}>
        <DateInput value={range.to} onChange={(e) => set("to")(e.target.value)} className="h-8" />
      </Field>
    </>
  );
}

/** Exports the grid as shown: visible columns in their order, `rows` in the grid's sort order. */
function exportView(gridApi: GridApi<BlotterRow>, rows: readonly BlotterRow[], platforms: ReadonlyMap<string, BlotterPlatform>, prefix: string) {
  const csv = blotterCsvColumns(platforms);
  const columns = gridApi
    .getAllDisplayedColumns()
    .map((c) => csv[c.getColId()])
    .filter((c) => c !== undefined);
  saveCsv(buildCsv(columns, rows), csvFileName(prefix));
}

function LiveBlotter({
  view,
  platforms,
  onPlatforms,
}: {
  view: BlotterView;
  platforms: ReadonlyMap<string, BlotterPlatform>;
  onPlatforms: (platforms: BlotterPlatform[]) => void;
}) {
  const [gridApi, setGridApi] = useState<GridApi<BlotterRow> | null>(null);
  const stream = useRef<BlotterStream | null>(null);
  /** Every row of the live view, in the grid's order (from the stream's worker). */
  const rowsOf = useRef<(() => Promise<BlotterRow[]>) | null>(null);
  const [state, setState] = useState<BlotterStreamState>({ held: 0, paused: false, rowCount: 0 });
  const [status, setStatus] = useState<string>("connecting");
  const [figures, setFigures] = useState<BlotterFigures>(NO_FIGURES);
  const query = filtersQuery(view.filters).toString();
  const navigate = useNavigate();
  const columnDefs = useMemo(() => blotterColumns(platforms, (href) => void navigate(href)), [platforms, navigate]);

  // The stream's worker lives as long as the grid (it holds the rows and their coalescing state);
  // the stream itself restarts with the filters (a new snapshot).
  useEffect(() => {
    if (!gridApi) return;
    /** The highest arrival number the grid has shown. */
    let shown = 0;
    // New and changed rows flash, as whole rows (AG Grid's cell change flash sees nothing in this
    // row model: a refresh draws every row as new).
    const flash = createRowFlash<BlotterRow>(
      (row) => (row as LiveRow).s,
      // Setting the rules again has the grid read them again for the rows drawn.
      () => gridApi.setGridOption("rowClassRules", flash.rules),
    );
    gridApi.setGridOption("rowClassRules", flash.rules);
    let empty: boolean | null = null;
    // One refresh of the rows in view per paced frame (framePacer.ts), however many changes came;
    // it takes the rows that came since the last (liveDatasource.ts).
    const pacer = createFramePacer({
      run: () => {
        datasource.refreshing();
        gridApi.refreshInfiniteCache();
      },
      reading: () => datasource.reading,
    });
    // The side panel (totals, exposure chart) redraws at most once a second, with the latest figures.
    const panel = throttleLatest<BlotterFigures>(setFigures, FIGURES_EVERY_MS);
    const s = openBlotterStream({
      onChanged: () => pacer.request(),
      onState: (next, nextFigures) => {
        setState((s) => (s.held === next.held && s.paused === next.paused && s.rowCount === next.rowCount ? s : next));
        if (nextFigures) panel.push(nextFigures);
      },
      onPlatforms,
      onStatus: (s) => setStatus(s),
    });
    const datasource = createLiveDatasource(s, {
      taking: (answer) => {
        if (answer.change) {
          // The rows this refresh took light up as the grid draws them; after a snapshot nothing
          // does: every row would.
          flash.refreshing(shown, !answer.change.reset, answer.seq);
          countGridChange(answer.change);
        }
        shown = Math.max(shown, answer.seq);
      },
      answered: (answer, tookMs) => {
        const started = performance.now();
        const isEmpty = answer.rowCount === 0;
        if (empty !== isEmpty) {
          empty = isEmpty;
          if (empty) gridApi.showNoRowsOverlay();
          else gridApi.hideOverlay();
        }
        pacer.done(tookMs + performance.now() - started);
      },
    });
    gridApi.setGridOption("datasource", datasource);
    stream.current = s;
    rowsOf.current = () => s.rows([{ start: 0, end: Number.MAX_SAFE_INTEGER }], datasource.sort).then((answer) => answer.blocks[0] ?? []);
    return () => {
      s.close();
      pacer.dispose();
      flash.dispose();
      panel.dispose();
      stream.current = null;
      rowsOf.current = null;
    };
  }, [gridApi, onPlatforms]);

  useEffect(() => {
    const s = stream.current;
    if (!gridApi || !s) return;
    const filters = new URLSearchParams(query);
    s.start(filters);
    const unwatch = onOrganizationChange(() => s.start(filters, true));
    return () => {
      unwatch();
      s.stop();
    };
  }, [gridApi, query]);

  const paused = state.paused;
  return (
    <div className="grid gap-3 xl:grid-cols-[1fr_20rem]">
      <div className="grid min-w-0 content-start gap-3">
        <GridToolbar
          label="Trades table"
          className="items-center"
          filters={
            <>
              <GridStatus total={state.rowCount} noun={["row", "rows"]} />
              <span className="text-xs text-muted" aria-live="polite">
                {status === "open" ? "Live" : status === "connecting" ? "Connecting…" : "Reconnecting…"}
              </span>
              {paused ? (
                // A tinted badge, not warning-coloured text: that is too faint on the light page (WCAG 1.4.3).
                <Badge tone="warning" role="status" data-testid="held-count">
                  Paused · {state.held.toLocaleString("en")} {state.held === 1 ? "update" : "updates"} held back
                </Badge>
              ) : null}
            </>
          }
          actions={
            <>
              <Button size="sm" variant="secondary" aria-pressed={paused} onClick={() => (paused ? stream.current?.resume() : stream.current?.pause())}>
                {paused ? <Play aria-hidden /> : <Pause aria-hidden />}
                {paused ? "Resume" : "Pause"}
              </Button>
              <ColumnsMenu api={gridApi} columnDefs={columnDefs} />
              <Button
                size="sm"
                variant="secondary"
                disabled={!gridApi}
                onClick={() =>
                  // Rejected only when the stream closed: the page is going.
                  void rowsOf.current?.().then(
                    (rows) => gridApi && exportView(gridApi, rows, platforms, "trades-live"),
                    () => {},
                  )
                }
              >
                <Download aria-hidden />
                Export CSV
              </Button>
            </>
          }
        />
        <StreamingGrid<BlotterRow>
          label="Trades"
          stateKey={BLOTTER_GRID_STATE_KEY}
          columnDefs={columnDefs}
          options={LIVE_GRID_OPTIONS}
          selectableText={paused}
          onReady={setGridApi}
          emptyText="No trade yet: they show here as they happen."
          className="h-[calc(100dvh-24rem)] min-h-[24rem]"
        />
      </div>
      <BlotterSidePanel figures={figures} scope="live" />
    </div>
  );
}

function HistoryBlotter({ view, platforms }: { view: BlotterView; platforms: ReadonlyMap<string, BlotterPlatform> }) {
  const [gridApi, setGridApi] = useState<GridApi<BlotterRow> | null>(null);
  const [loaded, setLoaded] = useState<HistoryLoaded>({ rows: [], complete: false, total: null, capped: false });
  const [exporting, setExporting] = useState<{ done: number; total: number | null } | null>(null);
  const query = useMemo(() => historyQuery(view).toString(), [view]);
  const navigate = useNavigate();
  const columnDefs = useMemo(() => blotterColumns(platforms, (href) => void navigate(href)), [platforms, navigate]);
  const datasource = useMemo(() => historyDatasource(new URLSearchParams(query), setLoaded), [query]);
  const organizationId = useCurrentOrganizationId();
  // The range's totals, summed on the server over every matching deal (not the pages loaded).
  const rangeTotals = useQuery({
    queryKey: ["tradesBlotter", organizationId, "dealTotals", query],
    queryFn: ({ signal }) => api.get<BlotterDealTotals>(`/api/tradesBlotter/deals/totals?${query}`, { signal }).then(totalsOfRange),
  });

  const exportAll = async () => {
    setExporting({ done: 0, total: null });
    try {
      await exportHistoryCsv(new URLSearchParams(query), (done, total) => setExporting({ done, total }));
    } catch {
      // The failure toast is shown by the export.
    } finally {
      setExporting(null);
    }
  };

  return (
    <div className="grid gap-3 xl:grid-cols-[1fr_20rem]">
      <div className="grid min-w-0 content-start gap-3">
        <GridToolbar
          label="Trades table"
          className="items-center"
          filters={
            <GridStatus total={loaded.total} noun={["deal", "deals"]} loading={loaded.total === null}>
              {loaded.capped ? <span className="text-xs text-muted">at least; narrow the filters for an exact count</span> : null}
            </GridStatus>
          }
          actions={
            <>
              <ColumnsMenu api={gridApi} columnDefs={columnDefs} />
              <Button size="sm" variant="secondary" onClick={() => void exportAll()} loading={exporting !== null} disabled={exporting !== null}>
                <Download aria-hidden />
                {exporting === null
                  ? "Export CSV"
                  : `Exporting… ${exporting.done.toLocaleString("en")}${exporting.total === null ? "" : ` of ${exporting.total.toLocaleString("en")}`} rows`}
              </Button>
            </>
          }
        />
        <DataGrid<BlotterRow>
          label="Trades"
          stateKey={BLOTTER_GRID_STATE_KEY}
          columnDefs={columnDefs.map((c) => ({ ...c, sortable: false, sort: undefined }))}
          rowModelType="infinite"
          datasource={datasource}
          cacheBlockSize={200}
          maxBlocksInCache={50}
          getRowId={rowIdOf}
          onReady={setGridApi}
          emptyText="No deal in these days matches these filters."
          className="h-[calc(100dvh-24rem)] min-h-[24rem]"
        />
      </div>
      <BlotterSidePanel rows={loaded.rows} scope={rangeTotals.data ? "range" : rangeTotals.isError ? "loaded" : "pending"} totals={rangeTotals.data ?? null} />
    </div>
  );
}
