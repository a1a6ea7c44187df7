import type { ColDef, ICellRendererParams, ValueFormatterParams } from "ag-grid-community";
import { Badge } from "~/ui/Badge";
import { dateTimeColumn, moneyColumn, textColumn } from "~/ui/grid";
import type { DealRow, JournalRow, PositionRow } from "../accountTypes";

const price = (value: number | null | undefined) => (value === null || value === undefined || value === 0 ? "—" : String(value));
const priceColumn = <T,>(field: ColDef<T>["field"], headerName: string, width = 110): ColDef<T> => ({
  field,
  headerName,
  width,
  type: "rightAligned",
  cellClass: "text-right tabular-nums",
  valueFormatter: (p) => price(p.value as number | null),
});
/** Lots as the API sends them ("0.1"); balance and credit deals have none. */
const lotsColumn = <T,>(field: ColDef<T>["field"]): ColDef<T> => ({
  field,
  headerName: "Volume",
  width: 95,
  type: "rightAligned",
  cellClass: "text-right tabular-nums",
  valueFormatter: (p) => (p.value === null || p.value === undefined || Number(p.value) === 0 ? "—" : String(p.value)),
});
/** "—" where the platform reports nothing (a balance deal has no symbol, entry or position). */
const orDash = (p: Pick<ValueFormatterParams<unknown, string | null | undefined>, "value">) => p.value ?? "—";
const profitClass = { "text-success": (p: { value: unknown }) => Number(p.value) > 0, "text-danger": (p: { value: unknown }) => Number(p.value) < 0 };

function Side({ value }: { value: string }) {
  return <Badge tone={value === "buy" ? "info" : value === "sell" ? "warning" : "neutral"}>{value}</Badge>;
}

export const POSITION_COLUMNS: ColDef<PositionRow>[] = [
  textColumn({ field: "id", headerName: "Position", width: 120, cellClass: "font-mono tabular-nums" }),
  dateTimeColumn({ field: "openTime", headerName: "Opened" }),
  textColumn({ field: "symbol", headerName: "Symbol", width: 105 }),
  textColumn({
    field: "side",
    headerName: "Side",
    width: 85,
    cellRenderer: (p: ICellRendererParams<PositionRow, PositionRow["side"]>) => (p.value ? <Side value={p.value} /> : null),
  }),
  lotsColumn<PositionRow>("volume"),
  priceColumn<PositionRow>("openPrice", "Open price"),
  priceColumn<PositionRow>("currentPrice", "Price"),
  priceColumn<PositionRow>("sl", "S/L", 95),
  priceColumn<PositionRow>("tp", "T/P", 95),
  moneyColumn({ field: "swap", headerName: "Swap", width: 100 }),
  moneyColumn({ field: "profit", headerName: "Profit", width: 115, cellClassRules: profitClass }),
  textColumn({ field: "comment", headerName: "Comment", width: 150 }),
];

export const DEAL_COLUMNS: ColDef<DealRow>[] = [
  textColumn({ field: "id", headerName: "Deal", width: 110, cellClass: "font-mono tabular-nums" }),
  dateTimeColumn({ field: "time", headerName: "Time", sort: "desc" }),
  textColumn({
    field: "action",
    headerName: "Type",
    width: 95,
    cellRenderer: (p: ICellRendererParams<DealRow, DealRow["action"]>) => (p.value ? <Side value={p.value} /> : null),
  }),
  textColumn({ field: "entry", headerName: "Entry", width: 80, valueFormatter: orDash }),
  textColumn({ field: "symbol", headerName: "Symbol", width: 105, valueFormatter: orDash }),
  lotsColumn<DealRow>("volume"),
  priceColumn<DealRow>("price", "Price"),
  moneyColumn({ field: "commission", headerName: "Commission", width: 120 }),
  moneyColumn({ field: "swap", headerName: "Swap", width: 100 }),
  moneyColumn({ field: "profit", headerName: "Profit", width: 115, cellClassRules: profitClass }),
  textColumn({ field: "positionId", headerName: "Position", width: 110, cellClass: "font-mono tabular-nums", valueFormatter: orDash }),
  textColumn({ field: "comment", headerName: "Comment", width: 160 }),
];

const LEVEL_TONES: Record<string, "neutral" | "info" | "warning" | "danger" | "success"> = {
  ok: "success",
  trade: "info",
  login: "neutral",
  warning: "warning",
  attention: "warning",
  error: "danger",
};

export const JOURNAL_COLUMNS: ColDef<JournalRow>[] = [
  dateTimeColumn({ field: "time", headerName: "Time", sort: "desc" }),
  textColumn({
    field: "level",
    headerName: "Level",
    width: 105,
    cellRenderer: (p: ICellRendererParams<JournalRow, JournalRow["level"]>) =>
      p.value ? <Badge tone={LEVEL_TONES[p.value] ?? "neutral"}>{p.value}</Badge> : null,
  }),
  textColumn({ field: "sourceIp", headerName: "Source IP", width: 130, cellClass: "font-mono", valueFormatter: orDash }),
  textColumn({ field: "message", headerName: "Message", flex: 1, minWidth: 280, tooltipField: "message" }),
];
