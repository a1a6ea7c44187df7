import { CUSTOMER_PAGE_LIMIT_MAX, CUSTOMER_SORT_FIELDS } from "@core/schemas/customers";
import type { SortModelItem } from "ag-grid-community";
import type { CustomersQuery } from "./customersApi";

/** The /customers filters, kept in the URL so a view can be shared and survives a reload. */
export interface CustomerFilters {
  q: string;
  status: string;
  kyc: string;
  tag: string;
  country: string;
  owner: string;
}
export const FILTER_KEYS = ["q", "status", "kyc", "tag", "country", "owner"] as const;

export function filtersFromParams(params: URLSearchParams): CustomerFilters {
  return Object.fromEntries(FILTER_KEYS.map((k) => [k, params.get(k) ?? ""])) as unknown as CustomerFilters;
}

/** The URL with these filters (empty ones removed), other parameters kept. */
export function withFilters(params: URLSearchParams, filters: CustomerFilters): URLSearchParams {
  const next = new URLSearchParams(params);
  for (const k of FILTER_KEYS) {
    const v = filters[k].trim();
    if (v) next.set(k, v);
    else next.delete(k);
  }
  return next;
}

const SORTABLE: ReadonlySet<string> = new Set(CUSTOMER_SORT_FIELDS);

/** GET /api/customers parameters: filters that are set, the grid's first sortable column, the page. */
export function customersQuery(filters: CustomerFilters, sort: readonly SortModelItem[], offset?: number, limit?: number): CustomersQuery {
  const query: CustomersQuery = {};
  for (const k of FILTER_KEYS) {
    const v = filters[k].trim();
    if (v) query[k] = v;
  }
  const first = sort.find((s) => SORTABLE.has(s.colId));
  if (first) {
    query.sort = first.colId;
    query.dir = first.sort === "desc" ? "desc" : "asc";
  }
  if (offset !== undefined) query.offset = Math.max(0, Math.floor(offset));
  if (limit !== undefined) query.limit = Math.min(CUSTOMER_PAGE_LIMIT_MAX, Math.max(1, Math.floor(limit)));
  return query;
}

export const activeFilterCount = (filters: CustomerFilters) => FILTER_KEYS.filter((k) => filters[k].trim() !== "").length;
