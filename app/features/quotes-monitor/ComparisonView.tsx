import type { ColDef, RowClassParams } from "ag-grid-community";
import { useEffect, useMemo, useState } from "react";
import { useSearchParams } from "react-router";
import { isOverThreshold, type ComparisonRow } from "@core/schemas/quoteComparison";
import type { QuotePlatform } from "@core/schemas/quotesMonitor";
import type { StreamStatus } from "~/api/liveStream";
import { Badge } from "~/ui/Badge";
import { DataGrid, GridToolbar } from "~/ui/grid";
import { Field } from "~/ui/Field";
import { Input } from "~/ui/Input";
import { Switch } from "~/ui/Switch";
import { Label } from "~/ui/Label";
import { openComparisonStream } from "./comparisonStream";
import { HolidaysSection } from "./HolidaysSection";
import { SymbolMapSection } from "./SymbolMapSection";

export const COMPARISON_GRID_STATE_KEY = "quotesMonitor.comparison.columns";

/** A row of the grid: the API's row and the threshold in force (the page's own, else the rules'). */
interface CompareGridRow extends ComparisonRow {
  limit: number | null;
  over: boolean;
}

const numeric = "text-right tabular-nums";

function columnsOf(platforms: QuotePlatform[]): ColDef<CompareGridRow>[] {
  const name = (id: string | null) => platforms.find((p) => p.id === id)?.name ?? "—";
  return [
    { field: "instrument", headerName: "Instrument", minWidth: 120, sort: "asc" },
    ...platforms.map((p): ColDef<CompareGridRow> => ({
      colId: `platform:${p.id}`,
      headerName: p.name,
      type: "rightAligned",
      cellClass: numeric,
      minWidth: 140,
      valueGetter: (params) => {
        const quotes = params.data?.quotes.filter((q) => q.platformId === p.id) ?? [];
        if (quotes.length === 0) return "";
        return quotes
          .map((q) => {
            const mid = q.mid === null ? "—" : q.mid.toFixed(q.digits + 1);
            const named = q.symbol.toUpperCase() === params.data?.instrument ? "" : ` (${q.symbol})`;
            return `${mid}${q.session === "open" ? "" : ` ${q.session}`}${named}`;
          })
          .join("; ");
      },
    })),
    { colId: "high", headerName: "Highest", minWidth: 120, valueGetter: (p) => (p.data?.highPlatformId ? name(p.data.highPlatformId) : "—") },
    { colId: "low", headerName: "Lowest", minWidth: 120, valueGetter: (p) => (p.data?.lowPlatformId ? name(p.data.lowPlatformId) : "—") },
    {
      field: "differencePoints",
      headerName: "Difference (points)",
      type: "rightAligned",
      cellClass: numeric,
      width: 160,
      valueFormatter: (p) => (typeof p.value === "number" ? String(p.value) : "—"),
      cellClassRules: { "text-danger font-semibold": (p) => p.data?.over === true },
    },
    {
      field: "limit",
      headerName: "Threshold",
      type: "rightAligned",
      cellClass: numeric,
      width: 115,
      valueFormatter: (p) => (typeof p.value === "number" ? String(p.value) : "—"),
    },
    {
      colId: "state",
      headerName: "State",
      minWidth: 150,
      flex: 1,
      // In words, not only in colour: a screen reader and a colour-blind dealer read the same.
      valueGetter: (p) => {
        if (!p.data) return "";
        if (p.data.differencePoints === null) return "Not compared";
        if (p.data.limit === null) return "No threshold";
        return p.data.over ? "Over threshold" : "Within threshold";
      },
      cellClassRules: { "text-danger font-semibold": (p) => p.data?.over === true },
    },
  ];
}

const rowIdOf = (p: { data: CompareGridRow }) => p.data.instrument;
const rowClassRules = { "tb-compare-over": (p: RowClassParams<CompareGridRow>) => p.data?.over === true };

/**
 * The comparison view of the monitor (docs/quotes-monitor.md#comparison): the same instrument
 * across the organization's servers, live (its own stream, ./comparisonStream.ts); the difference in points, highlighted
 * (and said in words) over the threshold: the page's own when typed, else the lowest of the
 * cross-server rules that cover the instrument. Below it the symbol map and the holidays.
 */
export function ComparisonView({ platforms, canWrite }: { platforms: QuotePlatform[]; canWrite: boolean }) {
  const [params, setParams] = useSearchParams();
  const overText = params.get("over") ?? "";
  const differingOnly = params.get("differing") === "1";
  const own = overText.trim() !== "" && Number.isFinite(Number(overText)) ? Number(overText) : null;
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
  const [data, setData] = useState<ComparisonRow[] | null>(null);
  const [status, setStatus] = useState<StreamStatus>("connecting");
  useEffect(() => openComparisonStream({ onRows: setData, onStatus: setStatus }), []);
  const columns = useMemo(() => columnsOf(platforms), [platforms]);
  const rows = useMemo(() => {
    const all = (data ?? []).map((r): CompareGridRow => {
      const limit = own ?? r.threshold;
      return { ...r, limit, over: isOverThreshold(r, limit) };
    });
    return differingOnly ? all.filter((r) => r.over) : all;
  }, [data, own, differingOnly]);
  const overCount = rows.filter((r) => r.over).length;

  return (
    <div className="grid gap-6">
      <section className="grid gap-3" aria-label="Comparison across servers">
        <GridToolbar
          label="Comparison filters"
          filters={
            <>
              <Field label="Highlight over (points)" className="w-52">
                <Input inputMode="numeric" value={overText} placeholder="the cross-server rule's" onChange={(e) => setParam("over", e.target.value)} />
              </Field>
              <div className="flex items-center gap-2 self-end pb-2 text-sm">
                <Switch id="quotes-compare-over-only" checked={differingOnly} onCheckedChange={(on) => setParam("differing", on ? "1" : null)} />
                <Label htmlFor="quotes-compare-over-only">Only over threshold</Label>
              </div>
            </>
          }
          actions={
            <>
              <p className="text-sm text-muted" role="status">
                {data === null ? "Loading…" : `${rows.length} instruments, ${overCount} over threshold`}
              </p>
              <Badge tone={status === "open" ? "success" : "warning"}>{status === "open" ? "Live" : status === "stopped" ? "Stopped" : "Reconnecting…"}</Badge>
            </>
          }
        />
        <DataGrid<CompareGridRow>
          label="Comparison"
          stateKey={COMPARISON_GRID_STATE_KEY}
          columnDefs={columns}
          rowData={rows}
          getRowId={rowIdOf}
          rowClassRules={rowClassRules}
          suppressColumnVirtualisation
          emptyText="No instrument is quoted by two of the monitor's platforms yet (the symbol map below pairs differently named ones)."
          className="h-[calc(100dvh-26rem)] min-h-[20rem]"
        />
      </section>
      <SymbolMapSection platforms={platforms} canWrite={canWrite} />
      <HolidaysSection canWrite={canWrite} />
    </div>
  );
}
