import type { GridApi, SortModelItem } from "ag-grid-community";
import { CUSTOMER_STATUSES, KYC_LABELS, KYC_STATES, type Customer, type CustomerOwner } from "@core/schemas/customers";
import { Download, FilterX, Plus, ShieldOff } from "lucide-react";
import { useCallback, useEffect, useMemo, useState } from "react";
import { useSearchParams } from "react-router";
import { useAccess, useMemberPreferences } from "~/profile";
import { Button } from "~/ui/Button";
import { EmptyState } from "~/ui/EmptyState";
import { Field } from "~/ui/Field";
import { ColumnPreferenceProvider, ColumnsMenu, DataGrid, GridStatus, GridToolbar } from "~/ui/grid";
import { Input } from "~/ui/Input";
import { Page } from "~/ui/Page";
import { Select, type SelectOption } from "~/ui/Select";
import { useDebounced } from "~/features/accounts";
import { statusLabel } from "./CustomerBadges";
import { CUSTOMER_COLUMNS } from "./customerColumns";
import { CountryInput } from "./CountryInput";
import { CustomerDialog } from "./CustomerDialog";
import { activeFilterCount, customersQuery, filtersFromParams, withFilters, type CustomerFilters } from "./customerFilters";
import { CustomerSheet } from "./CustomerSheet";
import { customersApi, NO_OWNER, ownerLabel, useCustomerOwners } from "./customersApi";
import { ImportDialog } from "./ImportDialog";

export const CUSTOMER_PARAM = "customer";
const BLOCK_SIZE = 100;
const ANY = "any";

/** `/customers`: the broker's clients on the one data grid, filters in the URL, one customer in a side panel. */
export function CustomersPage() {
  const { hasModule } = useAccess();
  const preferences = useMemberPreferences();
  const [params, setParams] = useSearchParams();
  const fromUrl = useMemo(() => filtersFromParams(params), [params]);
  // What is typed shows at once; the URL (and the grid) follow after a short pause.
  const [typed, setTyped] = useState<CustomerFilters>(fromUrl);
  const debounced = useDebounced(typed);
  useEffect(() => {
    if (FILTERS_EQUAL(debounced, filtersFromParams(params))) return;
    setParams((p) => withFilters(p, debounced), { replace: true });
  }, [debounced, params, setParams]);
  const applied = fromUrl;
  const appliedKey = JSON.stringify(applied);
  const [api, setApi] = useState<GridApi<Customer> | null>(null);
  const [total, setTotal] = useState<number | null>(null);
  const [creating, setCreating] = useState(false);
  const open = params.get(CUSTOMER_PARAM);
  const owners = useCustomerOwners();

  const datasource = useMemo(
    () => ({
      getRows(p: {
        sortModel: SortModelItem[];
        startRow: number;
        endRow: number;
        successCallback: (rows: Customer[], last: number) => void;
        failCallback: () => void;
      }) {
        customersApi.list(customersQuery(JSON.parse(appliedKey) as CustomerFilters, p.sortModel, p.startRow, p.endRow - p.startRow)).then(
          (page) => {
            setTotal(page.total);
            p.successCallback(page.items, page.total);
          },
          () => p.failCallback(),
        );
      },
    }),
    [appliedKey],
  );
  const openCustomer = useCallback(
    (row: Pick<Customer, "id">) =>
      setParams((p) => {
        const next = new URLSearchParams(p);
        next.set(CUSTOMER_PARAM, row.id);
        return next;
      }),
    [setParams],
  );
  const closeCustomer = () =>
    setParams((p) => {
      const next = new URLSearchParams(p);
      next.delete(CUSTOMER_PARAM);
      return next;
    });
  const refreshList = () => api?.refreshInfiniteCache();
  const exportView = async () => {
    const sort = (api?.getColumnState() ?? []).filter((c) => c.sort).map((c) => ({ colId: c.colId, sort: c.sort! }));
    const query = new URLSearchParams(Object.entries(customersQuery(applied, sort)).map(([k, v]) => [k, String(v)])).toString();
    const { download } = await import("~/api/download");
    await download(`/api/customers.csv${query ? `?${query}` : ""}`);
  };

  if (!hasModule("customers", "read")) {
    return (
      <Page title="Customers">
        <EmptyState
          icon={ShieldOff}
          title="You can't see customers"
          description="Reading customers needs access to the Customers module. Ask an administrator of this organization."
        />
      </Page>
    );
  }
  const canWrite = hasModule("customers", "write");
  const set = (k: keyof CustomerFilters) => (value: string) => setTyped((f) => ({ ...f, [k]: value }));
  const count = activeFilterCount(typed);
  return (
    <ColumnPreferenceProvider store={preferences}>
      <Page
        title="Customers"
        description="The broker's clients and the trading accounts they own. Open one for its accounts and notes."
        className="max-w-none"
        actions={
          canWrite ? (
            <Button onClick={() => setCreating(true)}>
              <Plus aria-hidden />
              New customer
            </Button>
          ) : null
        }
      >
        <div className="grid gap-3">
          <div
            role="search"
            aria-label="Filter customers"
            // Two rows of four up to 1536 px: in one row of eight at 1440 px, "Any KYC state" wrapped and "Any country" was cut.
            className="grid items-start gap-3 rounded-lg border border-border bg-surface p-3 sm:grid-cols-2 lg:grid-cols-4 2xl:grid-cols-8"
          >
            <Field label="Search" className="lg:col-span-2">
              <Input type="search" value={typed.q} onChange={(e) => set("q")(e.target.value)} placeholder="Name or e-mail" autoComplete="off" className="h-8" />
            </Field>
            <Field label="Status">
              <Select
                value={typed.status || ANY}
                onValueChange={(v) => set("status")(v === ANY ? "" : v)}
                options={[{ value: ANY, label: "Any status" }, ...CUSTOMER_STATUSES.map((s) => ({ value: s, label: statusLabel(s) }))]}
                className="h-8"
              />
            </Field>
            <Field label="KYC">
              <Select
                value={typed.kyc || ANY}
                onValueChange={(v) => set("kyc")(v === ANY ? "" : v)}
                options={[{ value: ANY, label: "Any KYC state" }, ...KYC_STATES.map((s) => ({ value: s, label: KYC_LABELS[s] }))]}
                className="h-8"
              />
            </Field>
            <Field label="Tag">
              <Input type="search" value={typed.tag} onChange={(e) => set("tag")(e.target.value)} autoComplete="off" className="h-8" />
            </Field>
            <Field label="Country">
              <CountryInput type="search" value={typed.country} onValueChange={set("country")} validOnly placeholder="Any country" className="h-8" />
            </Field>
            <Field label="Owner">
              <Select
                value={typed.owner || ANY}
                onValueChange={(v) => set("owner")(v === ANY ? "" : v)}
                options={ownerFilterOptions(owners.data, typed.owner)}
                className="h-8"
              />
            </Field>
            <div className="flex items-end self-end">
              <Button variant="ghost" size="sm" onClick={() => setTyped(filtersFromParams(new URLSearchParams()))} disabled={count === 0} className="w-full">
                <FilterX aria-hidden />
                Clear filters{count ? ` (${count})` : ""}
              </Button>
            </div>
          </div>
          <GridToolbar
            label="Customers table"
            className="items-center"
            filters={<GridStatus total={total} noun={["customer", "customers"]} loading />}
            actions={
              <>
                <ColumnsMenu api={api} columnDefs={CUSTOMER_COLUMNS} />
                {canWrite ? <ImportDialog onImported={refreshList} /> : null}
                <Button variant="secondary" size="sm" onClick={() => void exportView()}>
                  <Download aria-hidden />
                  Export CSV
                </Button>
              </>
            }
          />
          <DataGrid<Customer>
            key={appliedKey}
            label="Customers"
            stateKey="customers.grid.columns"
            columnDefs={CUSTOMER_COLUMNS}
            rowModelType="infinite"
            datasource={datasource}
            cacheBlockSize={BLOCK_SIZE}
            maxBlocksInCache={50}
            infiniteInitialRowCount={BLOCK_SIZE}
            getRowId={(p) => p.data.id}
            onRowOpen={openCustomer}
            onReady={setApi}
            emptyText="No customer matches these filters."
            className="h-[calc(100dvh-22rem)] min-h-[24rem]"
          />
        </div>
        <CustomerDialog open={creating} onOpenChange={setCreating} onSaved={(c) => (refreshList(), openCustomer(c))} />
        <CustomerSheet id={open} onClose={closeCustomer} onChanged={refreshList} />
      </Page>
    </ColumnPreferenceProvider>
  );
}

/** Any owner, nobody, each member; an owner in the URL who is no longer a member keeps an entry. */
function ownerFilterOptions(owners: readonly CustomerOwner[] | undefined, current: string): SelectOption[] {
  const options: SelectOption[] = [
    { value: ANY, label: "Any owner" },
    { value: NO_OWNER, label: "Nobody" },
    ...(owners ?? []).map((o) => ({ value: o.sub, label: ownerLabel(o) })),
  ];
  if (current && !options.some((o) => o.value === current)) options.push({ value: current, label: owners ? current : "Loading members…" });
  return options;
}

const FILTERS_EQUAL = (a: CustomerFilters, b: CustomerFilters) => JSON.stringify(a) === JSON.stringify(b);
