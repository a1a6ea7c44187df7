import type { GridApi } from "ag-grid-community";
import { ServerOff, ShieldOff } from "lucide-react";
import { useCallback, useEffect, useState } from "react";
import { Link, useSearchParams } from "react-router";
import { useAccess, useTradePlatforms } from "~/profile";
import { Button } from "~/ui/Button";
import { EmptyState } from "~/ui/EmptyState";
import { ColumnsMenu, GridStatus, GridToolbar } from "~/ui/grid";
import { Page } from "~/ui/Page";
import { EMPTY_FILTERS, type AccountFilters } from "./accountFilters";
import { accountKey, parseAccountKey, type AccountRow } from "./accountTypes";
import { CreateAccountDialog } from "./actions/CreateAccountDialog";
import { AccountSheet } from "./detail/AccountSheet";
import { ACCOUNT_COLUMNS } from "./grid/accountColumns";
import { AccountFiltersBar } from "./grid/AccountFiltersBar";
import { AccountsGrid } from "./grid/AccountsGrid";
import { ExportCsvButton } from "./grid/ExportCsvButton";
import { useDebounced } from "./useDebounced";

/** The URL parameter naming the open account: /users?account=<platformId>:<login>. */
export const ACCOUNT_PARAM = "account";

/** `/users`: every trading account of the organization's platforms, and one account in a side panel. */
export function AccountsPage() {
  const { hasModule } = useAccess();
  const platforms = useTradePlatforms();
  const [filters, setFilters] = useState<AccountFilters>(EMPTY_FILTERS);
  const applied = useDebounced(filters);
  const [api, setApi] = useState<GridApi<AccountRow> | null>(null);
  const [total, setTotal] = useState<number | null>(null);
  const [params, setParams] = useSearchParams();
  const open = parseAccountKey(params.get(ACCOUNT_PARAM));

  // A new filter set: the count is unknown until its first page arrives.
  useEffect(() => setTotal(null), [applied]);

  const openAccount = useCallback(
    (row: Pick<AccountRow, "platformId" | "login">) =>
      setParams((p) => {
        const next = new URLSearchParams(p);
        next.set(ACCOUNT_PARAM, accountKey(row));
        return next;
      }),
    [setParams],
  );
  const closeAccount = () =>
    setParams((p) => {
      const next = new URLSearchParams(p);
      next.delete(ACCOUNT_PARAM);
      return next;
    });
  const refreshList = () => api?.refreshInfiniteCache();

  if (!hasModule("users", "read")) {
    return (
      <Page title="Users">
        <EmptyState icon={ShieldOff} title="You can't see trading accounts" description="Reading trading accounts needs access to the Users module. Ask an administrator of this organization." />
      </Page>
    );
  }
  if (!platforms.length) {
    return (
      <Page title="Users" description="Trading accounts across the organization's platforms">
        <EmptyState
          icon={ServerOff}
          title="No trade platform yet"
          description="Trading accounts live on your platforms. Connect one (a simulated server is ready in seconds) and its accounts show here."
          action={
            <Button asChild>
              <Link to="/tradePlatforms/new">Connect a platform</Link>
            </Button>
          }
        />
      </Page>
    );
  }

  return (
    <Page
      title="Users"
      description="Trading accounts across the organization's platforms. Open one for its figures, positions, deals and journal."
      className="max-w-none"
      actions={hasModule("users", "write") ? <CreateAccountDialog onCreated={(row) => {
            refreshList();
            openAccount(row);
          }} /> : null}
    >
      <div className="grid gap-3">
        <AccountFiltersBar filters={filters} onChange={setFilters} />
        <GridToolbar
          label="Trading accounts table"
          className="items-center"
          filters={<GridStatus total={total} noun={["account", "accounts"]} loading />}
          actions={
            <>
              <ColumnsMenu api={api} columnDefs={ACCOUNT_COLUMNS} />
              <ExportCsvButton api={api} filters={applied} total={total} />
            </>
          }
        />
        <AccountsGrid filters={applied} onOpen={openAccount} onReady={setApi} onTotal={setTotal} />
      </div>
      <AccountSheet account={open} onClose={closeAccount} onChanged={refreshList} />
    </Page>
  );
}
