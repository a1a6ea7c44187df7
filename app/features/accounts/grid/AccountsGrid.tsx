import type { GridApi } from "ag-grid-community";
import { useMemo } from "react";
import { DataGrid } from "~/ui/grid";
import type { AccountFilters, AccountSort } from "../accountFilters";
import { accountsApi } from "../accountsApi";
import { accountKey, type AccountRow } from "../accountTypes";
import { ACCOUNT_COLUMNS } from "./accountColumns";
import { accountsDatasource } from "./accountsDatasource";

export const ACCOUNTS_GRID_STATE_KEY = "users.grid.columns";
const BLOCK_SIZE = 100;

/** Every trading account of the organization's platforms, paged, sorted and filtered by the API. */
export function AccountsGrid({
  filters,
  initialSort,
  onSortChange,
  onOpen,
  onReady,
  onTotal,
}: {
  filters: AccountFilters;
  /** The URL's sort, over the member's saved one. */
  initialSort: AccountSort | null;
  onSortChange: (sort: AccountSort | null) => void;
  onOpen: (row: AccountRow) => void;
  onReady: (api: GridApi<AccountRow>) => void;
  onTotal: (total: number | null) => void;
}) {
  // A new source per filter set: the grid drops its blocks and starts again from the top.
  const datasource = useMemo(() => accountsDatasource(filters, (query) => accountsApi.list(query), onTotal), [filters, onTotal]);
  return (
    <DataGrid<AccountRow>
      label="Trading accounts"
      stateKey={ACCOUNTS_GRID_STATE_KEY}
      columnDefs={ACCOUNT_COLUMNS}
      rowModelType="infinite"
      datasource={datasource}
      cacheBlockSize={BLOCK_SIZE}
      maxBlocksInCache={50}
      infiniteInitialRowCount={BLOCK_SIZE}
      getRowId={(p) => accountKey(p.data)}
      initialSort={initialSort}
      onSortChange={onSortChange}
      onRowOpen={onOpen}
      onReady={onReady}
      emptyText="No trading account matches these filters."
      className="h-[calc(100dvh-22rem)] min-h-[24rem]"
    />
  );
}
