import type { ColDef, ICellRendererComp, ICellRendererParams, ValueFormatterParams } from "ag-grid-community";
import type { BlotterPlatform, BlotterRow } from "@core/schemas/blotterLive";
import { formatLots } from "@core/trading/volume";
import { csvMoney, csvTime, csvTimeHeader } from "@core/format";
import { currentFormat } from "~/ui/format";
import { formatMoney, textColumn, type CsvColumn } from "~/ui/grid";

/** Money arrives in minor units (core/trading/money.ts). */
const money = (minor: number | null | undefined) => (minor === null || minor === undefined ? "—" : formatMoney(minor / 100));
const price = (v: number | null | undefined) => (v === null || v === undefined ? "—" : String(v));
const SIDE_LABELS: Record<BlotterRow["side"], string> = { buy: "Buy", sell: "Sell", balance: "Balance", credit: "Credit" };
const ENTRY_LABELS = { in: "In", out: "Out" } as const;
const REASON_LABELS: Record<BlotterRow["reason"], string> = {
  client: "Client",
  mobile: "Mobile",
  web: "Web",
  expert: "Expert",
  dealer: "Dealer",
  api: "API",
  sl: "Stop loss",
  tp: "Take profit",
  stopOut: "Stop out",
};

/**
 * A time as the platform's server shows it (its configured time zone) with that zone's offset, so
 * rows of servers in different zones never read as one clock: "21/11/2025, 14:03:07 GMT+2" (in the
 * member's format, core/format.ts).
 */
export const formatServerTime = (time: number, timeZone: string | undefined): string => currentFormat().dateTimeIn(time, timeZone);

/** A time in the member's zone (their display preference), the one the rows are ordered and first shown in. */
export const formatMemberTime = (time: number) => currentFormat().dateTime(time);

export const sideLabel = (side: BlotterRow["side"]) => SIDE_LABELS[side];
export const entryLabel = (entry: BlotterRow["entry"]) => (entry ? ENTRY_LABELS[entry] : "");
export const reasonLabel = (reason: BlotterRow["reason"]) => REASON_LABELS[reason] ?? reason;
export const kindLabel = (row: BlotterRow) => (row.kind === "deal" ? "Deal" : row.state === "closed" ? "Position (closed)" : "Position");

type F = ValueFormatterParams<BlotterRow>;

/** Where a row's account opens: its panel on /users (app/features/accounts/AccountsPage.tsx, `?account=`). */
export const accountHref = (row: Pick<BlotterRow, "platformId" | "login">) => `/users?${new URLSearchParams({ account: `${row.platformId}:${row.login}` })}`;

/** Follows a link inside the single-page app (a full load would sign in again); the blotter page passes React Router's navigate. */
export type Navigate = (href: string) => void;

/**
 * A row's login as a link to the account. A plain DOM renderer (AG Grid's own component API), so
 * the live grid (createGrid) and the historical one (ag-grid-react) draw it alike, and no React
 * tree is made per cell of a grid redrawn many times a second.
 */
class LoginLinkRenderer implements ICellRendererComp<BlotterRow> {
  private link = document.createElement("a");
  init(params: ICellRendererParams<BlotterRow> & { navigate?: Navigate }) {
    const row = params.data;
    if (!row) return;
    const href = accountHref(row);
    this.link.href = href;
    this.link.textContent = row.login;
    // The cell's own text colour (readable on a lit row in both modes), marked as a link by its underline.
    this.link.className = "underline decoration-primary underline-offset-2 hover:decoration-2";
    const navigate = params.navigate;
    if (navigate)
      this.link.addEventListener("click", (event) => {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(href);
      });
  }
  getGui() {
    return this.link;
  }
  refresh() {
    return false;
  }
}
const right = { type: "rightAligned", cellClass: "text-right tabular-nums" } as const;

/**
 * The blotter's columns (docs/requirements.md#r-fields); `platforms` names each platform and gives its server zone.
 * Rows are ordered and first shown in one zone, the member's (their display preference, UTC unless
 * set otherwise on a UTC machine; docs/trades-blotter.md#time): the blotter mixes servers in
 * different zones, and each server's own clock sorted by the instant reads out of order.
 * The column keeps its id `utcTime` so saved column layouts still find it.
 * Each server's time follows, with its offset, to match the platform's terminal; it does not sort.
 */
export function blotterColumns(platforms: ReadonlyMap<string, BlotterPlatform>, navigate?: Navigate): ColDef<BlotterRow>[] {
  // What a dealer reads first comes first, pinned where it helps (time, symbol, side): at 1440 px
  // symbol, side, login, volume, price and profit show without scrolling; the rest follows.
  return [
    {
      colId: "utcTime",
      field: "time",
      headerName: csvTimeHeader(currentFormat().timeZone),
      // The seconds and AM/PM of a US date in full at 1440 px (the room comes from Volume's and Side's).
      width: 210,
      cellClass: "tabular-nums",
      pinned: "left",
      sort: "desc",
      valueFormatter: (p: F) => (p.data ? formatMemberTime(p.data.time) : ""),
    },
    textColumn({
      field: "symbol",
      headerName: "Symbol",
      width: 90,
      pinned: "left",
      valueFormatter: (p: F) => (p.value as string | null) ?? "—",
    }),
    textColumn({
      field: "side",
      headerName: "Side",
      width: 68,
      minWidth: 64,
      pinned: "left",
      valueFormatter: (p: F) => sideLabel(p.value as BlotterRow["side"]),
    }),
    textColumn({
      field: "login",
      headerName: "Login",
      width: 90,
      cellClass: "font-mono tabular-nums",
      cellRenderer: LoginLinkRenderer,
      cellRendererParams: { navigate },
    }),
    { field: "volume", headerName: "Lots", headerTooltip: "Volume in lots", width: 82, ...right, valueFormatter: (p: F) => formatLots(Number(p.value)) },
    { field: "price", headerName: "Price", width: 95, ...right, valueFormatter: (p: F) => price(p.value as number) },
    { field: "profit", headerName: "Profit", width: 100, ...right, valueFormatter: (p: F) => money(p.value as number) },
    textColumn({ field: "kind", headerName: "Type", width: 110, valueFormatter: (p: F) => (p.data ? kindLabel(p.data) : "") }),
    textColumn({ field: "entry", headerName: "Entry", width: 80, valueFormatter: (p: F) => entryLabel(p.value as BlotterRow["entry"]) }),
    { field: "sl", headerName: "SL", width: 100, ...right, valueFormatter: (p: F) => price(p.value as number | null) },
    { field: "tp", headerName: "TP", width: 100, ...right, valueFormatter: (p: F) => price(p.value as number | null) },
    textColumn({ field: "platformId", headerName: "Platform", width: 150, valueFormatter: (p: F) => platforms.get(String(p.value))?.name ?? "—" }),
    textColumn({ field: "group", headerName: "Group", width: 150 }),
    textColumn({ field: "ticket", headerName: "Ticket / deal", width: 120, cellClass: "font-mono tabular-nums" }),
    textColumn({
      field: "position",
      headerName: "Position",
      width: 120,
      cellClass: "font-mono tabular-nums",
      valueFormatter: (p: F) => (p.value as string | null) ?? "—",
    }),
    { field: "commission", headerName: "Commission", width: 120, ...right, valueFormatter: (p: F) => money(p.value as number) },
    { field: "swap", headerName: "Swap", width: 100, ...right, valueFormatter: (p: F) => money(p.value as number) },
    {
      colId: "serverTime",
      field: "time",
      headerName: "Time (server)",
      headerTooltip: `Each platform's own clock, with its offset from UTC. Rows are ordered by ${csvTimeHeader(currentFormat().timeZone)}.`,
      width: 210,
      cellClass: "tabular-nums",
      sortable: false,
      valueFormatter: (p: F) => (p.data ? formatServerTime(p.data.time, platforms.get(p.data.platformId)?.timeZone) : ""),
    },
    textColumn({ field: "reason", headerName: "Reason", width: 110, valueFormatter: (p: F) => reasonLabel(p.value as BlotterRow["reason"]) }),
    textColumn({ field: "comment", headerName: "Comment", width: 200 }),
  ];
}

const decimal = csvMoney;

/**
 * The CSV of the current view, per column id, in the one export form (core/format.ts, as the
 * server's deals.csv): exact decimals, times as "2025-11-21 12:00:00" in the member's zone (named in
 * the header) and each server's clock with its offset.
 */
export function blotterCsvColumns(platforms: ReadonlyMap<string, BlotterPlatform>): Record<string, CsvColumn<BlotterRow>> {
  const zone = currentFormat().timeZone;
  return {
    utcTime: { header: csvTimeHeader(zone), value: (r) => csvTime(r.time, zone) },
    serverTime: { header: "Time (server)", value: (r) => csvTime(r.time, platforms.get(r.platformId)?.timeZone, true) },
    platformId: { header: "Platform", value: (r) => platforms.get(r.platformId)?.name ?? r.platformId },
    login: { header: "Login", value: (r) => r.login },
    group: { header: "Group", value: (r) => r.group },
    kind: { header: "Type", value: kindLabel },
    ticket: { header: "Ticket / deal", value: (r) => r.ticket },
    position: { header: "Position", value: (r) => r.position },
    symbol: { header: "Symbol", value: (r) => r.symbol },
    side: { header: "Side", value: (r) => sideLabel(r.side) },
    entry: { header: "Entry", value: (r) => entryLabel(r.entry) },
    volume: { header: "Volume (lots)", value: (r) => formatLots(r.volume) },
    price: { header: "Price", value: (r) => r.price },
    sl: { header: "SL", value: (r) => r.sl },
    tp: { header: "TP", value: (r) => r.tp },
    profit: { header: "Profit", value: (r) => decimal(r.profit) },
    commission: { header: "Commission", value: (r) => decimal(r.commission) },
    swap: { header: "Swap", value: (r) => decimal(r.swap) },
    reason: { header: "Reason", value: (r) => reasonLabel(r.reason) },
    comment: { header: "Comment", value: (r) => r.comment },
  };
}
