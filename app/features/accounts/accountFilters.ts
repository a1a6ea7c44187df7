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

/**
 * The filters and the sort are kept in the URL (/users?groupMask=real*&sort=equity&dir=desc), as on
 * /customers (customerFilters.ts): a view can be shared and survives a reload. Other parameters
 * (the open account) are kept.
 */
export const FILTER_KEYS = Object.keys(EMPTY_FILTERS) as (keyof AccountFilters)[];

export function filtersFromParams(params: URLSearchParams): AccountFilters {
  return Object.fromEntries(FILTER_KEYS.map((k) => [k, params.get(k) ?? ""])) as unknown as AccountFilters;
}

/** The URL with these filters (empty ones removed), other parameters kept. */
export function withFilters(params: URLSearchParams, filters: AccountFilters): URLSearchParams {
  const next = new URLSearchParams(params);
  for (const k of FILTER_KEYS) {
    const v = filters[k].trim();
    if (v) next.set(k, v);
    else next.delete(k);
  }
  return next;
}

export interface AccountSort {
  colId: string;
  sort: "asc" | "desc";
}

/** The URL's sort (`sort` a column the API sorts by, `dir` asc or desc), or null. */
export function sortFromParams(params: URLSearchParams): AccountSort | null {
  const colId = params.get("sort") ?? "";
  if (!SORTABLE_FIELDS.has(colId)) return null;
  return { colId, sort: params.get("dir") === "desc" ? "desc" : "asc" };
}

/** The URL with this sort (none: removed), other parameters kept. */
export function withSort(params: URLSearchParams, sort: AccountSort | null): URLSearchParams {
  const next = new URLSearchParams(params);
  if (sort && SORTABLE_FIELDS.has(sort.colId)) {
    next.set("sort", sort.colId);
    next.set("dir", sort.sort);
  } else {
    next.delete("sort");
    next.delete("dir");
  }
  return next;
}

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
