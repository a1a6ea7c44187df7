/**
 * The accounts endpoints' schemas. Requests, answers and their limits are the contract shared
 * with the app, written once in core/schemas/ (accounts.ts, accountViews.ts,
 * balanceOperations.ts); the list's query, which only the API parses, is here.
 */
import { z } from "zod";
import { ACCOUNT_PAGE_LIMIT_MAX, ACCOUNT_SORT_FIELDS, AMOUNT_FILTER_PATTERN } from "../../../core/schemas/accountList.ts";
import { blankToUndefined, optionalQuery, pagingQuery } from "../../../core/schemas/query.ts";

export { ACCOUNT_SORT_FIELDS, type AccountSortField } from "../../../core/schemas/accountList.ts";
export * from "../../../core/schemas/accounts.ts";
export * from "../../../core/schemas/accountViews.ts";
export * from "../../../core/schemas/balanceOperations.ts";
export * from "../../../core/schemas/positionOperations.ts";

/** Decimal amounts with at most two decimals ("1000", "1250.50"), as money travels in this API. */
const DECIMAL = AMOUNT_FILTER_PATTERN;
const amountFilter = (name: string) =>
  optionalQuery(
    z
      .string()
      .trim()
      .regex(DECIMAL, { error: `${name} must be an amount such as 1000 or 1250.50` }),
  );

export const ListAccountsQuerySchema = z
  .object({
    platformId: optionalQuery(z.guid({ error: "platformId must be a platform id (a UUID)" })),
    login: optionalQuery(
      z
        .string()
        .trim()
        .regex(/^[A-Za-z0-9._-]{1,32}\*?$/, { error: "login must be a login (exact) or the start of one followed by * (e.g. 1002*)" }),
    ),
    groupMask: optionalQuery(
      z.string().trim().max(500, { error: "groupMask is at most 500 characters" }).meta({
        description: "Group mask as on the platforms: comma-separated, `*` any characters, a leading `!` excludes (e.g. `real*,!*test*`)",
      }),
    ),
    name: optionalQuery(z.string().trim().max(200, { error: "name is at most 200 characters" })),
    email: optionalQuery(z.string().trim().max(200, { error: "email is at most 200 characters" })),
    balanceMin: amountFilter("balanceMin"),
    balanceMax: amountFilter("balanceMax"),
    equityMin: amountFilter("equityMin"),
    equityMax: amountFilter("equityMax"),
    sort: z.preprocess(
      blankToUndefined,
      z.enum(ACCOUNT_SORT_FIELDS, { error: `sort must name a column to sort by: one of ${ACCOUNT_SORT_FIELDS.join(", ")}` }).default("login"),
    ),
    dir: z.preprocess(blankToUndefined, z.enum(["asc", "desc"], { error: "dir must be asc (ascending) or desc (descending)" }).default("asc")),
    ...pagingQuery(ACCOUNT_PAGE_LIMIT_MAX),
  })
  .refine((q) => !(q.balanceMin && q.balanceMax) || Number(q.balanceMin) <= Number(q.balanceMax), {
    error: "balanceMin must not be greater than balanceMax",
    path: ["balanceMin"],
  })
  .refine((q) => !(q.equityMin && q.equityMax) || Number(q.equityMin) <= Number(q.equityMax), {
    error: "equityMin must not be greater than equityMax",
    path: ["equityMin"],
  });
export type ListAccountsQuery = z.infer<typeof ListAccountsQuerySchema>;
