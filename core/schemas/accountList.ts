/**
 * The accounts list's query rules, shared by the API (server/modules/accounts/schemas.ts) and
 * the /users filters (app/features/accounts/accountFilters.ts).
 */

/** Sort fields: every column of a row — a whitelist, so nothing else reaches SQL. */
export const ACCOUNT_SORT_FIELDS = [
  "platformId",
  "platformName",
  "platformType",
  "login",
  "group",
  "name",
  "email",
  "leverage",
  "currency",
  "balance",
  "credit",
  "equity",
  "margin",
  "freeMargin",
  "marginLevel",
  "marginState",
  "enabled",
  "readOnly",
  "registration",
  "lastAccess",
] as const;
export type AccountSortField = (typeof ACCOUNT_SORT_FIELDS)[number];

/** The most rows one page may ask for. */
export const ACCOUNT_PAGE_LIMIT_MAX = 500;

/** An amount bound of a filter: up to 15 digits and 2 decimals, optionally negative. */
export const AMOUNT_FILTER_PATTERN = /^-?\d{1,15}(\.\d{1,2})?$/;
