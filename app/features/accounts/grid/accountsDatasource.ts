import type { IDatasource, IGetRowsParams } from "ag-grid-community";
import { accountsQuery, type AccountFilters, type AccountsQuery } from "../accountFilters";
import type { AccountPage } from "../accountTypes";

/**
 * The Infinite Row Model's source for /users: each block the grid asks for becomes one GET
 * /api/accounts page with the filters and the grid's sort; the total tells the grid where the
 * list ends (and the page shows it).
 */
export function accountsDatasource(
  filters: AccountFilters,
  fetchPage: (query: AccountsQuery) => Promise<AccountPage>,
  onTotal: (total: number | null) => void,
): IDatasource {
  return {
    getRows(params: IGetRowsParams) {
      const query = accountsQuery(filters, params.sortModel, params.startRow, params.endRow - params.startRow);
      fetchPage(query).then(
        (page) => {
          onTotal(page.total);
          params.successCallback(page.items, page.total);
        },
        () => params.failCallback(),
      );
    },
  };
}
