/**
 * The blotter's pending-orders view, beside the trades (live) and the deals (historical): the
 * orders waiting on the blotter's platforms, live (./pendingOrderStream.ts: a snapshot of every one,
 * then each change applied as a grid transaction; an order that fills or is cancelled leaves at
 * once), or all of them with how each ended (filled into a position, cancelled, expired), from the
 * trade history store (GET /api/tradesBlotter/orders, the newest 1,000, read again every few
 * seconds). Same grid, column-state and CSV conventions as the trades table.
 */
import { useQuery } from "@tanstack/react-query";
import type { ColDef, GridApi, ValueFormatterParams } from "ag-grid-community";
import { Download } from "lucide-react";
import { useEffect, useMemo, useRef, useState } from "react";
import type { BlotterPlatform } from "@core/schemas/blotterLive";
import type { BlotterOrder, BlotterOrderPage } from "@core/schemas/tradesBlotter";
import { PENDING_ORDER_TYPE_LABELS } from "@core/trading/pendingOrder";
import { api } from "~/api";
import { useCurrentOrganizationId } from "~/profile";
import { Button } from "~/ui/Button";
import { Select } from "~/ui/Select";
import { buildCsv, ColumnsMenu, csvFileName, DataGrid, GridStatus, GridToolbar, saveCsv, textColumn, type CsvColumn } from "~/ui/grid";
import { csvTime } from "@core/format";
import { currentFormat } from "~/ui/format";
import { formatMemberTime, formatServerTime } from "./blotterColumns";
import { filtersQuery, type BlotterView } from "./blotterFilters";
import { openPendingOrderStream, type PendingOrderStream } from "./pendingOrderStream";

export const ORDERS_GRID_STATE_KEY = "tradesBlotter.orders.columns";
/** How often the view of all orders (with how they ended) reads the store again; waiting ones are live. */
const REFRESH_MS = 2000;

const STATE_LABELS: Record<BlotterOrder["state"], string> = {
  placed: "Waiting",
  filled: "Filled",
  cancelled: "Cancelled",
  expired: "Expired",
  ended: "Ended unseen",
};
const price = (v: number | null) => (v === null ? "—" : String(v));
/** A time in the member's zone (their display preference), as the blotter's first column shows it. */
const memberTime = (iso: string | null) => (iso === null ? "—" : formatMemberTime(Date.parse(iso)));
const zone = () => currentFormat().timeZone;

type F = ValueFormatterParams<BlotterOrder>;

function orderColumns(platforms: ReadonlyMap<string, BlotterPlatform>): ColDef<BlotterOrder>[] {
  return [
    textColumn<BlotterOrder>({ colId: "platform", headerName: "Platform", field: "platformName", width: 130 }),
    textColumn<BlotterOrder>({
      colId: "placedTime",
      headerName: "Placed (server)",
      field: "placedTime",
      width: 200,
      valueFormatter: (p: F) => (p.data ? formatServerTime(Date.parse(p.data.placedTime), platforms.get(p.data.platformId)?.timeZone) : ""),
    }),
    textColumn<BlotterOrder>({ colId: "order", headerName: "Order", field: "orderId", width: 120 }),
    textColumn<BlotterOrder>({ colId: "login", headerName: "Login", field: "login", width: 110 }),
    textColumn<BlotterOrder>({ colId: "group", headerName: "Group", field: "group", width: 140 }),
    textColumn<BlotterOrder>({ colId: "symbol", headerName: "Symbol", field: "symbol", width: 100 }),
    textColumn<BlotterOrder>({
      colId: "type",
      headerName: "Type",
      field: "type",
      width: 110,
      valueFormatter: (p: F) => (p.data ? PENDING_ORDER_TYPE_LABELS[p.data.type] : ""),
    }),
    textColumn<BlotterOrder>({ colId: "volume", headerName: "Volume", field: "volume", width: 90, type: "rightAligned" }),
    textColumn<BlotterOrder>({ colId: "price", headerName: "Price", field: "price", width: 100, type: "rightAligned" }),
    textColumn<BlotterOrder>({
      colId: "sl",
      headerName: "SL",
      field: "sl",
      width: 100,
      type: "rightAligned",
      valueFormatter: (p: F) => price(p.data?.sl ?? null),
    }),
    textColumn<BlotterOrder>({
      colId: "tp",
      headerName: "TP",
      field: "tp",
      width: 100,
      type: "rightAligned",
      valueFormatter: (p: F) => price(p.data?.tp ?? null),
    }),
    textColumn<BlotterOrder>({
      colId: "expiration",
      headerName: `Expires (${zone()})`,
      field: "expiration",
      width: 180,
      valueFormatter: (p: F) => memberTime(p.data?.expiration ?? null),
    }),
    textColumn<BlotterOrder>({
      colId: "state",
      headerName: "State",
      field: "state",
      width: 110,
      valueFormatter: (p: F) => (p.data ? STATE_LABELS[p.data.state] : ""),
    }),
    textColumn<BlotterOrder>({
      colId: "position",
      headerName: "Position",
      field: "positionId",
      width: 120,
      valueFormatter: (p: F) => p.data?.positionId ?? "",
    }),
    textColumn<BlotterOrder>({
      colId: "doneTime",
      headerName: `Done (${zone()})`,
      field: "doneTime",
      width: 180,
      valueFormatter: (p: F) => memberTime(p.data?.doneTime ?? null),
    }),
    textColumn<BlotterOrder>({ colId: "comment", headerName: "Comment", field: "comment", flex: 1, minWidth: 140 }),
  ];
}

/** The CSV: times in the member's zone, named in the header, as the blotter's other CSVs write them. */
const csvColumns = (tz: string): CsvColumn<BlotterOrder>[] => [
  { header: "Platform", value: (o) => o.platformName },
  { header: `Placed (${tz})`, value: (o) => csvTime(o.placedTime, tz) },
  { header: "Order", value: (o) => o.orderId },
  { header: "Login", value: (o) => o.login },
  { header: "Group", value: (o) => o.group },
  { header: "Symbol", value: (o) => o.symbol },
  { header: "Type", value: (o) => PENDING_ORDER_TYPE_LABELS[o.type] },
  { header: "Volume", value: (o) => o.volume },
  { header: "Price", value: (o) => String(o.price) },
  { header: "SL", value: (o) => (o.sl === null ? "" : String(o.sl)) },
  { header: "TP", value: (o) => (o.tp === null ? "" : String(o.tp)) },
  { header: `Expires (${tz})`, value: (o) => csvTime(o.expiration, tz) },
  { header: "State", value: (o) => STATE_LABELS[o.state] },
  { header: "Position", value: (o) => o.positionId ?? "" },
  { header: `Done (${tz})`, value: (o) => csvTime(o.doneTime, tz) },
  { header: "Comment", value: (o) => o.comment },
];

export function PendingOrdersBlotter({ view, platforms }: { view: BlotterView; platforms: ReadonlyMap<string, BlotterPlatform> }) {
  const [gridApi, setGridApi] = useState<GridApi<BlotterOrder> | null>(null);
  const [scope, setScope] = useState<"placed" | "all">("placed");
  const organizationId = useCurrentOrganizationId();
  const filters = useMemo(() => {
    const q = filtersQuery(view.filters);
    // Orders are buy or sell; a balance or credit filter matches none.
    if (q.get("side") === "balance" || q.get("side") === "credit") q.set("side", "buy");
    if (q.has("platforms")) {
      q.set("platformIds", q.get("platforms") ?? "");
      q.delete("platforms");
    }
    return q.toString();
  }, [view.filters]);
  const live = scope === "placed";
  const orders = useQuery({
    queryKey: ["tradesBlotter", organizationId, "orders", filters],
    queryFn: ({ signal }) => api.get<BlotterOrderPage>(`/api/tradesBlotter/orders?${filters}${filters ? "&" : ""}state=all&limit=1000`, { signal }),
    refetchInterval: REFRESH_MS,
    enabled: !live,
  });
  const stream = useRef<PendingOrderStream | null>(null);
  const [liveCount, setLiveCount] = useState<number | null>(null);
  useEffect(() => {
    // The grid of all orders, on its way out when the scope has just changed: the next one's comes.
    if (!live || !gridApi || gridApi.isDestroyed()) return;
    const s = openPendingOrderStream(filters, {
      onSnapshot: (all) => {
        if (gridApi.isDestroyed()) return;
        gridApi.setGridOption("rowData", all);
        setLiveCount(all.length);
      },
      onChange: (transaction) => {
        if (gridApi.isDestroyed()) return;
        gridApi.applyTransactionAsync(transaction);
        setLiveCount(s.size());
      },
    });
    stream.current = s;
    return () => {
      s.close();
      stream.current = null;
      setLiveCount(null);
    };
  }, [live, gridApi, filters]);
  const columnDefs = useMemo(() => orderColumns(platforms), [platforms]);
  const rows = live ? null : (orders.data?.items ?? []);
  const empty = live ? liveCount === 0 : rows?.length === 0;

  return (
    <div className="grid min-w-0 gap-3">
      <GridToolbar
        label="Pending orders table"
        className="items-center"
        filters={
          <>
            <Select
              aria-label="Orders shown"
              value={scope}
              onValueChange={(v) => setScope(v === "all" ? "all" : "placed")}
              options={[
                { value: "placed", label: "Waiting orders" },
                { value: "all", label: "All, with how they ended" },
              ]}
              className="h-8 w-56"
            />
            <GridStatus
              total={live ? liveCount : (orders.data?.total ?? null)}
              noun={["order", "orders"]}
              loading={live ? liveCount === null : orders.isPending}
            >
              {!live && (orders.data?.totalCapped || orders.data?.nextCursor) ? (
                <span className="text-xs text-muted">the newest 1,000 shown; narrow the filters</span>
              ) : null}
            </GridStatus>
          </>
        }
        actions={
          <>
            <ColumnsMenu api={gridApi} columnDefs={columnDefs} />
            <Button
              size="sm"
              variant="secondary"
              disabled={empty}
              onClick={() => saveCsv(buildCsv(csvColumns(zone()), rows ?? stream.current?.held() ?? []), csvFileName("pending-orders"))}
            >
              <Download aria-hidden />
              Export CSV
            </Button>
          </>
        }
      />
      <DataGrid<BlotterOrder>
        // Waiting orders (live, fed through the grid's API) and all orders (rows given) are two grids.
        key={scope}
        label="Pending orders"
        stateKey={ORDERS_GRID_STATE_KEY}
        columnDefs={columnDefs}
        {...(rows === null ? {} : { rowData: rows })}
        getRowId={(p) => p.data.key}
        onReady={setGridApi}
        emptyText={scope === "placed" ? "No order is waiting on these platforms." : "No pending order matches these filters."}
        className="h-[calc(100dvh-24rem)] min-h-[24rem]"
      />
    </div>
  );
}
