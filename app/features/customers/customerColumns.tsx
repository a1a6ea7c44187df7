import type { ColDef, ICellRendererParams } from "ag-grid-community";
import { KYC_LABELS, countryName, joinTags, type Customer } from "@core/schemas/customers";
import { dateTimeColumn, integerColumn, textColumn } from "~/ui/grid";
import { CustomerStatusBadge } from "./CustomerBadges";

type Cell = ICellRendererParams<Customer>;

/** The /customers columns; ids are the API's sort fields where it sorts by them. */
export const CUSTOMER_COLUMNS: ColDef<Customer>[] = [
  textColumn({ field: "name", headerName: "Name", width: 220, pinned: "left", lockVisible: true }),
  textColumn({ field: "email", headerName: "Email", width: 240 }),
  textColumn({ field: "phone", headerName: "Phone", width: 150, sortable: false }),
  textColumn({
    field: "country",
    headerName: "Country",
    width: 150,
    valueFormatter: (p: { value: string | null | undefined }) => (p.value ? `${countryName(p.value)} (${p.value})` : "—"),
  }),
  textColumn({
    field: "status",
    headerName: "Status",
    width: 110,
    cellRenderer: (p: Cell) => (p.data ? <CustomerStatusBadge status={p.data.status} /> : null),
  }),
  textColumn({ field: "kyc", headerName: "KYC", width: 120, valueFormatter: (p) => (p.value ? KYC_LABELS[p.value as keyof typeof KYC_LABELS] : "") }),
  textColumn({
    field: "tags",
    headerName: "Tags",
    width: 180,
    sortable: false,
    valueFormatter: (p) => (Array.isArray(p.value) ? joinTags(p.value as string[]) : ""),
  }),
  textColumn({
    field: "ownerName",
    headerName: "Owner",
    width: 160,
    sortable: false,
    valueFormatter: (p: { value: string | null | undefined }) => p.value ?? "—",
  }),
  integerColumn({ field: "accountCount", headerName: "Accounts", width: 105, sortable: false }),
  textColumn({ field: "kind", headerName: "Kind", width: 100, sortable: false, hide: true }),
  dateTimeColumn({ field: "createdAt", headerName: "Created" }),
  dateTimeColumn({ field: "updatedAt", headerName: "Updated", hide: true }),
];
