import type { SortModelItem } from "ag-grid-community";
import { buildCsv, type CsvColumn } from "~/ui/grid";
import { accountsQuery, PAGE_LIMIT_MAX, type AccountFilters, type AccountsQuery } from "../accountFilters";
import type { AccountPage, AccountRow } from "../accountTypes";

/** A CSV bigger than this is a job for the API's own export, not a browser tab. */
export const EXPORT_ROW_LIMIT = 100_000;

export interface ExportOptions {
  filters: AccountFilters;
  sort: readonly SortModelItem[];
  columns: readonly CsvColumn<AccountRow>[];
  fetchPage: (query: AccountsQuery, signal?: AbortSignal) => Promise<AccountPage>;
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

/**
 * The current filter and sort as CSV: pages of 500 fetched one after the other (the list is
 * server-paged; the grid only holds what was scrolled), then one file.
 */
export async function exportAccountsCsv({
  filters,
  sort,
  columns,
  fetchPage,
  onProgress,
  signal,
}: ExportOptions): Promise<{ csv: string; rows: number; truncated: boolean }> {
  const rows: AccountRow[] = [];
  let total = Infinity;
  while (rows.length < Math.min(total, EXPORT_ROW_LIMIT)) {
    signal?.throwIfAborted();
    const limit = Math.min(PAGE_LIMIT_MAX, EXPORT_ROW_LIMIT - rows.length);
    const page = await fetchPage(accountsQuery(filters, sort, rows.length, limit), signal);
    total = page.total;
    rows.push(...page.items);
    onProgress?.(rows.length, Math.min(total, EXPORT_ROW_LIMIT));
    if (page.items.length === 0) break;
  }
  return { csv: buildCsv(columns, rows), rows: rows.length, truncated: total > rows.length };
}
