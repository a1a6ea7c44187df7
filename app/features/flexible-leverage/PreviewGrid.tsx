import type { ColDef, ICellRendererParams } from "ag-grid-community";
import { useMemo } from "react";
import type { FlexibleLeveragePreviewRow } from "@core/schemas/flexibleLeverage";
import { Badge } from "~/ui/Badge";
import { DataGrid, integerColumn, textColumn } from "~/ui/grid";

const leverage = (value: unknown) => (typeof value === "number" ? `1:${value}` : "");

/** The preview's rows: per account the rule, tier or window, the leverage now and after, and why. */
export function PreviewGrid({ rows, loading }: { rows: FlexibleLeveragePreviewRow[]; loading: boolean }) {
  const columns = useMemo<ColDef<FlexibleLeveragePreviewRow>[]>(
    () => [
      textColumn({ field: "login", headerName: "Login", width: 110 }),
      textColumn({ field: "group", headerName: "Group", width: 180 }),
      integerColumn({
        field: "equity",
        headerName: "Equity",
        width: 140,
        valueFormatter: (p) =>
          typeof p.value === "number"
            ? `${p.value.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })} ${p.data?.currency ?? ""}`
            : "",
      }),
      textColumn({ field: "currentLeverage", headerName: "Now", width: 90, valueFormatter: (p) => leverage(p.value) }),
      textColumn({
        field: "leverage",
        headerName: "Would be",
        width: 130,
        cellRenderer: (p: ICellRendererParams<FlexibleLeveragePreviewRow>) =>
          p.data ? (
            <span className="flex items-center gap-2">
              {leverage(p.data.leverage)}
              {p.data.changed ? (
                <Badge tone={p.data.leverage < p.data.currentLeverage ? "warning" : "info"}>
                  {p.data.leverage < p.data.currentLeverage ? "Lowered" : "Raised"}
                </Badge>
              ) : null}
            </span>
          ) : null,
      }),
      textColumn({ field: "ruleName", headerName: "Rule", width: 150, valueFormatter: (p) => (typeof p.value === "string" ? p.value : "—") }),
      textColumn({ field: "reason", headerName: "Why", flex: 1, minWidth: 320 }),
    ],
    [],
  );
  return (
    <DataGrid<FlexibleLeveragePreviewRow>
      label="Preview of the leverages"
      columnDefs={columns}
      rowData={rows}
      getRowId={(p) => p.data.login}
      emptyText={loading ? "Evaluating the accounts…" : "No account matches."}
      className="h-[28rem]"
    />
  );
}
