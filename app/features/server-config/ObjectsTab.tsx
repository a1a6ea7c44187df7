import type { ColDef, ICellRendererParams, ValueGetterParams } from "ag-grid-community";
import { useMemo, useRef, useState } from "react";
import type { Group } from "@core/trading/group";
import type { TradePlatformType } from "@core/trading/platform";
import type { TradeSymbol } from "@core/trading/symbol";
import { Badge } from "~/ui/Badge";
import { Button } from "~/ui/Button";
import { DataGrid, GridToolbar, textColumn } from "~/ui/grid";
import { Input } from "~/ui/Input";
import { Select } from "~/ui/Select";
import { Skeleton } from "~/ui/Skeleton";
import { toast } from "~/ui/toast";
import type { Item } from "./api";
import { fieldsOf, fromText, unwritable } from "./fields";
import { ObjectDialog } from "./ObjectDialog";
import { showValue } from "./format";
import { stagedKey, useStaging } from "./store";

/** A Match-Trader group's offer id (its offers are its groups). */
function offerOf(object: Group | TradeSymbol | undefined): string {
  const native = (object as Group | undefined)?.native;
  return native && "offerId" in native ? native.offerId : "";
}

type Row = Item<Group | TradeSymbol> & { name: string; staged: boolean; selected: boolean };

/** Columns each kind shows (all fields are in the form). */
const SHOWN: Record<"group" | "symbol", string[]> = {
  group: ["currency", "defaultLeverage", "marginLevelMode", "marginCall", "stopOut", "marginMode", "maxPositions", "symbols"],
  symbol: ["description", "path", "digits", "contractSize", "executionMode", "tradeMode", "spread", "volumeMin", "volumeMax", "volumeStep"],
};

/**
 * One kind of object as the app's grid, with search (any shown value), row selection for a bulk
 * edit (one field set on every selected object: one staged change per object), and a form per
 * object on open. Staged objects are marked.
 */
export function ObjectsTab({
  platformId,
  platform,
  kind,
  items,
  loading,
  canWrite,
  label,
}: {
  platformId: string;
  platform: TradePlatformType;
  kind: "group" | "symbol";
  items: Item<Group | TradeSymbol>[] | undefined;
  loading: boolean;
  canWrite: boolean;
  label: string;
}) {
  const staged = useStaging((s) => s.staged[platformId]);
  const stageFields = useStaging((s) => s.stageFields);
  const [search, setSearch] = useState("");
  const checkboxClicked = useRef(false);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [open, setOpen] = useState<Item<Group | TradeSymbol> | null>(null);
  const editable = fieldsOf(kind).filter((f) => !unwritable(platform, kind, f.key) && f.type !== "sessions");
  const [bulkField, setBulkField] = useState(editable[0]?.key ?? "");
  const [bulkValue, setBulkValue] = useState("");

  const rows = useMemo<Row[]>(() => {
    const needle = search.trim().toLowerCase();
    return (items ?? [])
      .map((i) => ({ ...i, name: i.object.name, staged: Boolean(staged?.[stagedKey(kind, i.object.name)]), selected: selected.has(i.object.name) }))
      .filter(
        (r) =>
          needle === "" ||
          [r.name, ...SHOWN[kind].map((f) => String((r.object as unknown as Record<string, unknown>)[f]))].some((v) => v.toLowerCase().includes(needle)),
      );
  }, [items, search, staged, kind, selected]);

  const columns = useMemo<ColDef<Row>[]>(
    () => [
      {
        colId: "select",
        field: "selected",
        headerName: "",
        width: 48,
        sortable: false,
        cellRenderer: (p: ICellRendererParams<Row>) =>
          p.data ? <input type="checkbox" aria-label={`Select ${p.data.name}`} checked={p.data.selected} readOnly /> : null,
      },
      textColumn<Row>({
        colId: "name",
        field: "name",
        headerName: kind === "group" ? (platform === "MatchTrader" ? "Offer / group" : "Group") : "Symbol",
        width: 180,
      }),
      ...(platform === "MatchTrader" && kind === "group"
        ? [{ colId: "offerId", headerName: "Offer", width: 160, valueGetter: (p: ValueGetterParams<Row>) => offerOf(p.data?.object) } satisfies ColDef<Row>]
        : []),
      ...SHOWN[kind].map((field): ColDef<Row> => ({
        colId: field,
        headerName: fieldsOf(kind).find((f) => f.key === field)?.label ?? field,
        width: 140,
        valueGetter: (p) => (p.data ? showValue(kind, field, (p.data.object as unknown as Record<string, unknown>)[field], p.data.object) : ""),
      })),
      {
        colId: "staged",
        headerName: "Staged",
        width: 100,
        cellRenderer: (p: ICellRendererParams<Row>) => (p.data?.staged ? <Badge tone="warning">Staged</Badge> : null),
      },
    ],
    [kind, platform],
  );

  const bulk = () => {
    const def = editable.find((f) => f.key === bulkField);
    if (!def) return;
    let count = 0;
    for (const item of items ?? []) {
      if (!selected.has(item.object.name)) continue;
      const value = fromText(def, bulkValue, item.object);
      if (value === undefined) {
        toast({ title: "Not a value for this field", description: `${def.label}: "${bulkValue}"`, color: "error" });
        return;
      }
      stageFields(platformId, kind, item.object.name, item.object, item.version, { [def.key]: value });
      count += 1;
    }
    toast({ title: `${count} change(s) staged`, description: `${def.label} set to ${bulkValue} on each selected ${kind}.`, color: "info" });
    setSelected(new Set());
  };

  if (loading) return <Skeleton className="h-64" />;
  return (
    <div className="grid gap-3">
      <GridToolbar
        label={`${label} tools`}
        filters={
          <Input
            aria-label={`Search ${label.toLowerCase()}`}
            placeholder="Search"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            className="w-64"
          />
        }
        actions={
          canWrite && selected.size > 0 ? (
            <span className="flex items-center gap-2" aria-label="Bulk edit">
              <span className="text-sm text-muted">{selected.size} selected: set</span>
              <Select
                aria-label="Field to set"
                value={bulkField}
                onValueChange={setBulkField}
                options={editable.map((f) => ({ value: f.key, label: f.label }))}
                className="w-56"
              />
              <Input aria-label="Value to set" value={bulkValue} onChange={(e) => setBulkValue(e.target.value)} className="w-32" />
              <Button size="sm" onClick={bulk}>
                Stage for {selected.size}
              </Button>
            </span>
          ) : null
        }
      />
      <DataGrid<Row>
        label={label}
        stateKey={`serverConfig.${platform}.${kind}`}
        columnDefs={columns}
        rowData={rows}
        getRowId={(p) => p.data.name}
        // A click in the selection column toggles the row (AG Grid tells the cell, then the row, of the same click).
        onCellClicked={(e) => {
          if (e.column.getColId() !== "select" || !e.data) return;
          checkboxClicked.current = true;
          const name = e.data.name;
          setSelected((current) => {
            const next = new Set(current);
            if (next.has(name)) next.delete(name);
            else next.add(name);
            return next;
          });
        }}
        onRowOpen={(row) => {
          if (checkboxClicked.current) checkboxClicked.current = false;
          else setOpen(row);
        }}
        emptyText={search ? "Nothing matches the search." : "The server has none."}
        className="h-[28rem]"
      />
      {open ? (
        <ObjectDialog
          key={open.object.name}
          platformId={platformId}
          platform={platform}
          kind={kind}
          item={open}
          canWrite={canWrite}
          onClose={() => setOpen(null)}
        />
      ) : null}
    </div>
  );
}
