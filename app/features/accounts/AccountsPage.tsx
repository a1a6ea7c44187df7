import type { GridApi } from "ag-grid-community";
import { ServerOff, ShieldOff } from "lucide-react";
import { useCallback, useEffect, useMemo, useState } from "react";
import { Link, useSearchParams } from "react-router";
import { useAccess, useMemberPreferences, useTradePlatforms } from "~/profile";
import { Button } from "~/ui/Button";
import { EmptyState } from "~/ui/EmptyState";
import { ColumnPreferenceProvider, ColumnsMenu, GridStatus, GridToolbar } from "~/ui/grid";
import { Page } from "~/ui/Page";
import { SectionBoundary } from "~/ui/SectionBoundary";
import { filtersFromParams, sortFromParams, withFilters, withSort, type AccountFilters, type AccountSort } from "./accountFilters";
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
  // The tables of this page (the list, the account's positions, deals, journal) keep each member's columns.
  const preferences = useMemberPreferences();
  const [params, setParams] = useSearchParams();
  // Filters and sort live in the URL, as on /customers: what is typed shows at once, the URL (and
  // the grid) follow after a short pause.
  const fromUrl = useMemo(() => filtersFromParams(params), [params]);
  const fromUrlKey = JSON.stringify(fromUrl);
  const [filters, setFilters] = useState<AccountFilters>(fromUrl);
  const debounced = useDebounced(filters);
  useEffect(() => {
    if (withFilters(params, debounced).toString() === params.toString()) return;
    setParams((p) => withFilters(p, debounced), { replace: true });
  }, [debounced, params, setParams]);
  // One object per filter set (the grid's source is made again only when the set changes).
  const applied = useMemo(() => JSON.parse(fromUrlKey) as AccountFilters, [fromUrlKey]);
  const [initialSort] = useState(() => sortFromParams(params));
  const onSortChange = useCallback((sort: AccountSort | null) => setParams((p) => withSort(p, sort), { replace: true }), [setParams]);
  const [api, setApi] = useState<GridApi<AccountRow> | null>(null);
  // The count belongs to the filter set it was given for: a new set shows none until its first page arrives.
  const [counted, setCounted] = useState<{ filters: AccountFilters; total: number | null } | null>(null);
  const total = counted?.filters === applied ? counted.total : null;
  const onTotal = useCallback((count: number | null) => setCounted({ filters: applied, total: count }), [applied]);
  const open = parseAccountKey(params.get(ACCOUNT_PARAM));

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
        <EmptyState
          icon={ShieldOff}
          title="You can't see trading accounts"
          description="Reading trading accounts needs access to the Users module. Ask an administrator of this organization."
        />
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
    <ColumnPreferenceProvider store={preferences}>
      <Page
        title="Users"
        description="Trading accounts across the organization's platforms. Open one for its figures, positions, deals and journal."
        className="max-w-none"
        actions={
          hasModule("users", "write") ? (
            <CreateAccountDialog
              onCreated={(row) => {
                refreshList();
                openAccount(row);
              }}
            />
          ) : null
        }
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
          <AccountsGrid filters={applied} initialSort={initialSort} onSortChange={onSortChange} onOpen={openAccount} onReady={setApi} onTotal={onTotal} />
        </div>
        <SectionBoundary
          name="The account panel"
          resetKeys={[params.get(ACCOUNT_PARAM)]}
          onDismiss={closeAccount}
          fallbackClassName="fixed inset-y-0 right-0 z-40 w-full max-w-md justify-center rounded-none border-y-0 border-r-0 bg-bg shadow-2xl"
        >
          <AccountSheet account={open} onClose={closeAccount} onChanged={refreshList} />
        </SectionBoundary>
      </Page>
    </ColumnPreferenceProvider>
  );
}
