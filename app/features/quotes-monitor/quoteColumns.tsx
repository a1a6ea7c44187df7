import type { CellClassParams, ColDef, ValueFormatterParams, ValueGetterParams } from "ag-grid-community";
import { ALERT_KIND_LABELS, type QuoteRow } from "@core/schemas/quotesMonitor";
import type { CsvColumn } from "~/ui/grid";

/** A row as the grid holds it: the stream's row, its platform's name, and which way the price last moved. */
export interface MonitorRow extends QuoteRow {
  platformName: string;
  /** The last change of the bid: up, down, or none yet; and when it came (performance.now()). */
  direction: "up" | "down" | null;
  movedAt: number;
}

/** How long a moved price stays coloured. */
export const FLASH_MS = 1_000;

const numeric = "text-right tabular-nums";
const price = (p: ValueFormatterParams<MonitorRow>) => (typeof p.value === "number" && p.data ? p.value.toFixed(p.data.digits) : "—");
const plain = (p: ValueFormatterParams<MonitorRow>) => (p.value === null || p.value === undefined ? "—" : String(p.value));
const flashRules = {
  "tb-quote-up": (p: CellClassParams<MonitorRow>) => p.data?.direction === "up" && performance.now() - p.data.movedAt < FLASH_MS,
  "tb-quote-down": (p: CellClassParams<MonitorRow>) => p.data?.direction === "down" && performance.now() - p.data.movedAt < FLASH_MS,
};

/** Seconds since the last tick, on the server's clock as last heard (`now()`). */
export function silenceOf(row: QuoteRow, now: number): number | null {
  return row.lastTickAt === null ? null : Math.max(0, Math.round((now - row.lastTickAt) / 1000));
}

export function quoteColumns(now: () => number): ColDef<MonitorRow>[] {
  return [
    { field: "platformName", headerName: "Platform", minWidth: 120 },
    { field: "symbol", headerName: "Symbol", minWidth: 100, sort: "asc" },
    { field: "bid", headerName: "Bid", type: "rightAligned", cellClass: numeric, valueFormatter: price, cellClassRules: flashRules, width: 110 },
    { field: "ask", headerName: "Ask", type: "rightAligned", cellClass: numeric, valueFormatter: price, cellClassRules: flashRules, width: 110 },
    { field: "spread", headerName: "Spread", type: "rightAligned", cellClass: numeric, valueFormatter: plain, width: 95 },
    { field: "avgSpreadMinute", headerName: "Avg spread 1m", type: "rightAligned", cellClass: numeric, valueFormatter: plain, width: 125 },
    { field: "avgSpreadHour", headerName: "Avg spread 1h", type: "rightAligned", cellClass: numeric, valueFormatter: plain, width: 125 },
    { field: "ticksPerMinute", headerName: "Ticks/min", type: "rightAligned", cellClass: numeric, width: 105 },
    {
      field: "lastTickAt",
      headerName: "Last tick",
      width: 120,
      valueFormatter: (p) => (typeof p.value === "number" ? new Date(p.value).toISOString().slice(11, 19) : "—"),
    },
    {
      colId: "silence",
      headerName: "Without ticks",
      type: "rightAligned",
      cellClass: numeric,
      width: 125,
      valueGetter: (p: ValueGetterParams<MonitorRow>) => (p.data ? silenceOf(p.data, now()) : null),
      valueFormatter: (p) => (typeof p.value === "number" ? `${p.value} s` : "—"),
    },
    { field: "session", headerName: "Session", width: 105 },
    {
      field: "alerts",
      headerName: "Alerts",
      minWidth: 160,
      flex: 1,
      valueFormatter: (p) => ((p.value as QuoteRow["alerts"] | undefined) ?? []).map((a) => ALERT_KIND_LABELS[a]).join(", "),
      cellClassRules: { "text-danger font-medium": (p: CellClassParams<MonitorRow>) => (p.data?.alerts.length ?? 0) > 0 },
    },
  ];
}

export function quoteCsvColumns(now: number): CsvColumn<MonitorRow>[] {
  const px = (v: number | null, r: MonitorRow) => (v === null ? "" : v.toFixed(r.digits));
  return [
    { header: "Platform", value: (r) => r.platformName },
    { header: "Symbol", value: (r) => r.symbol },
    { header: "Bid", value: (r) => px(r.bid, r) },
    { header: "Ask", value: (r) => px(r.ask, r) },
    { header: "Spread (points)", value: (r) => r.spread },
    { header: "Average spread 1m", value: (r) => r.avgSpreadMinute },
    { header: "Average spread 1h", value: (r) => r.avgSpreadHour },
    { header: "Ticks per minute", value: (r) => r.ticksPerMinute },
    { header: "Last tick (UTC)", value: (r) => (r.lastTickAt === null ? "" : new Date(r.lastTickAt).toISOString()) },
    { header: "Seconds without ticks", value: (r) => silenceOf(r, now) },
    { header: "Session", value: (r) => r.session },
    { header: "Alerts", value: (r) => r.alerts.map((a) => ALERT_KIND_LABELS[a]).join("; ") },
  ];
}
