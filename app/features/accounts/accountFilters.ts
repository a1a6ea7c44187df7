import { ACCOUNT_PAGE_LIMIT_MAX, ACCOUNT_SORT_FIELDS, AMOUNT_FILTER_PATTERN } from "@core/schemas/accountList";
import type { SortModelItem } from "ag-grid-community";

/** The /users toolbar's filters, as typed (strings: half-typed input is normal while typing). */
export interface AccountFilters {
  platformId: string;
  login: string;
  groupMask: string;
  name: string;
  email: string;
  balanceMin: string;
  balanceMax: string;
  equityMin: string;
  equityMax: string;
}

export const EMPTY_FILTERS: AccountFilters = {
  platformId: "",
  login: "",
  groupMask: "",
  name: "",
  email: "",
  balanceMin: "",
  balanceMax: "",
  equityMin: "",
  equityMax: "",
};

export const PAGE_LIMIT_MAX = ACCOUNT_PAGE_LIMIT_MAX;

/** Columns the API sorts by (every AccountRow column). */
export const SORTABLE_FIELDS: ReadonlySet<string> = new Set(ACCOUNT_SORT_FIELDS);

/** The API's amount filters: up to 15 digits and 2 decimals. */
const DECIMAL = AMOUNT_FILTER_PATTERN;
const RANGE_FIELDS = ["balanceMin", "balanceMax", "equityMin", "equityMax"] as const;

const bound = (filters: AccountFilters, field: (typeof RANGE_FIELDS)[number]) => filters[field].trim().replace(/,/g, "");
const isBound = (text: string) => DECIMAL.test(text);

const RANGES = [
  ["balanceMin", "balanceMax"],
  ["equityMin", "equityMax"],
] as const;

/** Minimums above their maximum (both are amounts, but the range is empty). */
function crossedMinimums(filters: AccountFilters): (typeof RANGE_FIELDS)[number][] {
  return RANGES.filter(([min, max]) => {
    const a = bound(filters, min);
    const b = bound(filters, max);
    return isBound(a) && isBound(b) && Number(a) > Number(b);
  }).map(([min]) => min);
}

/** Range bounds that aren't amounts yet ("12." while typing, "abc"), or a minimum above its maximum. */
export function invalidRangeFields(filters: AccountFilters): (typeof RANGE_FIELDS)[number][] {
  return [...RANGE_FIELDS.filter((f) => bound(filters, f) !== "" && !isBound(bound(filters, f))), ...crossedMinimums(filters)];
}

export type AccountsQuery = Record<string, string | number>;

/**
 * GET /api/accounts parameters for a page: filters trimmed, empty ones left out, range bounds
 * only when they are numbers (thousands separators allowed as typed); the grid's first sort
 * column, if the API can sort by it; offset and a limit within the API's maximum.
 */
export function accountsQuery(filters: AccountFilters, sort: readonly SortModelItem[], offset: number, limit: number): AccountsQuery {
  const query: AccountsQuery = {};
  for (const key of ["platformId", "login", "groupMask", "name", "email"] as const) {
    const value = filters[key].trim();
    if (value) query[key] = value;
  }
  // A range whose minimum is above its maximum is left out whole: the API would refuse it.
  const crossed = new Set(crossedMinimums(filters).map((min) => min.replace("Min", "")));
  for (const key of RANGE_FIELDS) {
    const value = bound(filters, key);
    if (isBound(value) && !crossed.has(key.replace(/Min|Max/, ""))) query[key] = value;
  }
  const first = sort.find((s) => SORTABLE_FIELDS.has(s.colId));
  if (first) {
    query.sort = first.colId;
    query.dir = first.sort === "desc" ? "desc" : "asc";
  }
  query.offset = Math.max(0, Math.floor(offset));
  query.limit = Math.min(PAGE_LIMIT_MAX, Math.max(1, Math.floor(limit)));
  return query;
}

/** The same as a query string (tests, CSV export links). */
export function accountsQueryString(query: AccountsQuery): string {
  return new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
}

export function activeFilterCount(filters: AccountFilters): number {
  return (Object.keys(filters) as (keyof AccountFilters)[]).filter((key) => filters[key].trim() !== "").length;
}
