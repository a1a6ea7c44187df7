import type { GridApi, SortModelItem } from "ag-grid-community";
import { Download } from "lucide-react";
import { useState } from "react";
import { ApiError } from "~/api";
import { Button } from "~/ui/Button";
import { csvFileName, saveCsv, type CsvColumn } from "~/ui/grid";
import { toast } from "~/ui/toast";
import type { AccountFilters } from "../accountFilters";
import { accountsApi } from "../accountsApi";
import type { AccountRow } from "../accountTypes";
import { ACCOUNT_CSV_COLUMNS } from "./accountColumns";
import { EXPORT_ROW_LIMIT, exportAccountsCsv } from "./exportAccounts";

/** The grid's current sort, first sort column first. */
export function sortModelOf(api: GridApi): SortModelItem[] {
  return api
    .getColumnState()
    .filter((c) => c.sort === "asc" || c.sort === "desc")
    .sort((a, b) => (a.sortIndex ?? 0) - (b.sortIndex ?? 0))
    .map((c) => ({ colId: c.colId, sort: c.sort as "asc" | "desc" }));
}

/** CSV of the current filter and sort, with the columns shown, in their order. */
export function ExportCsvButton({ api, filters, total }: { api: GridApi<AccountRow> | null; filters: AccountFilters; total: number | null }) {
  const [progress, setProgress] = useState<string | null>(null);

  async function run() {
    if (!api) return;
    const columns = api
      .getAllDisplayedColumns()
      .map((c) => ACCOUNT_CSV_COLUMNS[c.getColId()])
      .filter((c): c is CsvColumn<AccountRow> => !!c);
    setProgress("Preparing…");
    try {
      const result = await exportAccountsCsv({
        filters,
        sort: sortModelOf(api),
        columns,
        fetchPage: (query, signal) => accountsApi.list(query, signal),
        onProgress: (done, all) => setProgress(`${Math.round((done / Math.max(1, all)) * 100)} %`),
      });
      saveCsv(result.csv, csvFileName("accounts"));
      toast({
        title: "Export ready",
        description: result.truncated
          ? `The first ${EXPORT_ROW_LIMIT.toLocaleString("en")} accounts were exported. Narrow the filters to export the rest.`
          : `${result.rows.toLocaleString("en")} accounts exported.`,
        color: result.truncated ? "warning" : "success",
      });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
    } finally {
      setProgress(null);
    }
  }

  return (
    <Button variant="secondary" size="sm" onClick={run} loading={progress !== null} disabled={!api || total === 0}>
      {progress === null ? <Download aria-hidden /> : null}
      {progress === null ? "Export CSV" : `Exporting ${progress}`}
    </Button>
  );
}
