// @vitest-environment node
import { describe, expect, it } from "vitest";
import {
  accountsQuery,
  accountsQueryString,
  activeFilterCount,
  EMPTY_FILTERS,
  filtersFromParams,
  invalidRangeFields,
  sortFromParams,
  withFilters,
  withSort,
} from "~/features/accounts/accountFilters";
import { accountKey, parseAccountKey } from "~/features/accounts/accountTypes";
import { exportAccountsCsv } from "~/features/accounts/grid/exportAccounts";
import type { AccountRow } from "~/features/accounts/accountTypes";

describe("/users filters and sort in the URL (shared, kept over a reload)", () => {
  it("round-trips every filter, drops empty ones and keeps the open account", () => {
    const filters = { ...EMPTY_FILTERS, platformId: "p-1", groupMask: "demo\\retail-*", balanceMin: "1,000", email: " " };
    const url = withFilters(new URLSearchParams("account=p-1:1001"), filters);
    expect(url.toString()).toBe("account=p-1%3A1001&platformId=p-1&groupMask=demo%5Cretail-*&balanceMin=1%2C000");
    expect(filtersFromParams(url)).toEqual({ ...filters, email: "" });
    expect(filtersFromParams(withFilters(url, EMPTY_FILTERS))).toEqual(EMPTY_FILTERS);
  });

  it("keeps a sort the API knows, in either direction, and nothing else", () => {
    const url = withSort(new URLSearchParams("login=1002*"), { colId: "equity", sort: "desc" });
    expect(url.toString()).toBe("login=1002*&sort=equity&dir=desc");
    expect(sortFromParams(url)).toEqual({ colId: "equity", sort: "desc" });
    expect(sortFromParams(new URLSearchParams("sort=margin"))).toEqual({ colId: "margin", sort: "asc" });
    expect(sortFromParams(new URLSearchParams("sort=password&dir=desc"))).toBeNull();
    expect(withSort(url, null).toString()).toBe("login=1002*");
  });
});

describe("account filters → GET /api/accounts query", () => {
  it("leaves out empty filters and sends the page", () => {
    expect(accountsQueryString(accountsQuery(EMPTY_FILTERS, [], 0, 100))).toBe("offset=0&limit=100");
  });

  it("trims text filters, keeps the first sortable sort column, caps the limit at 500", () => {
    const q = accountsQuery(
      { ...EMPTY_FILTERS, platformId: " p-1 ", login: "1002*", groupMask: "real*,!*test*", name: "  Jane ", email: "" },
      [
        { colId: "unknown", sort: "asc" },
        { colId: "equity", sort: "desc" },
        { colId: "login", sort: "asc" },
      ],
      200,
      1000,
    );
    expect(q).toEqual({ platformId: "p-1", login: "1002*", groupMask: "real*,!*test*", name: "Jane", sort: "equity", dir: "desc", offset: 200, limit: 500 });
    expect(accountsQueryString(q)).toBe("platformId=p-1&login=1002*&groupMask=real*%2C%21*test*&name=Jane&sort=equity&dir=desc&offset=200&limit=500");
  });

  it("sends range bounds only when they are amounts (thousands separators allowed)", () => {
    const q = accountsQuery({ ...EMPTY_FILTERS, balanceMin: "1,000", balanceMax: "12.", equityMin: "abc", equityMax: "-50.5" }, [], 0, 50);
    expect(q).toEqual({ balanceMin: "1000", equityMax: "-50.5", offset: 0, limit: 50 });
    expect(invalidRangeFields({ ...EMPTY_FILTERS, balanceMax: "12.", equityMin: "abc" })).toEqual(["balanceMax", "equityMin"]);
  });

  it("leaves out a range whose minimum is above its maximum (the API would refuse it) and says so", () => {
    const filters = { ...EMPTY_FILTERS, balanceMin: "500", balanceMax: "100", equityMin: "1", equityMax: "2" };
    expect(accountsQuery(filters, [], 0, 10)).toEqual({ equityMin: "1", equityMax: "2", offset: 0, limit: 10 });
    expect(invalidRangeFields(filters)).toEqual(["balanceMin"]);
  });

  it("counts active filters", () => {
    expect(activeFilterCount({ ...EMPTY_FILTERS, login: "1", email: " " })).toBe(1);
  });
});

describe("account key in the URL", () => {
  it("round-trips platformId:login and refuses malformed keys", () => {
    const key = accountKey({ platformId: "6f1c-uuid", login: "100234" });
    expect(key).toBe("6f1c-uuid:100234");
    expect(parseAccountKey(key)).toEqual({ platformId: "6f1c-uuid", login: "100234" });
    expect(parseAccountKey("nocolon")).toBeNull();
    expect(parseAccountKey(":1")).toBeNull();
    expect(parseAccountKey("p:")).toBeNull();
    expect(parseAccountKey(null)).toBeNull();
  });
});

describe("CSV export of the current filter", () => {
  const row = (login: number) => ({ login: String(login), name: `Trader ${login}`, balance: "10.00" }) as AccountRow;

  it("fetches pages of 500 with the filters and sort until the total, then builds one file", async () => {
    const all = Array.from({ length: 1203 }, (_, i) => row(1000 + i));
    const seen: Record<string, string | number>[] = [];
    const result = await exportAccountsCsv({
      filters: { ...EMPTY_FILTERS, groupMask: "real*" },
      sort: [{ colId: "balance", sort: "desc" }],
      columns: [
        { header: "Login", value: (r) => r.login },
        { header: "Name", value: (r) => r.name },
      ],
      fetchPage: async (query) => {
        seen.push(query);
        const offset = Number(query.offset);
        return { items: all.slice(offset, offset + Number(query.limit)), total: all.length };
      },
    });
    expect(seen.map((q) => [q.offset, q.limit])).toEqual([
      [0, 500],
      [500, 500],
      [1000, 500],
    ]);
    expect(seen[0]).toMatchObject({ groupMask: "real*", sort: "balance", dir: "desc" });
    expect(result.rows).toBe(1203);
    expect(result.truncated).toBe(false);
    const lines = result.csv.trimEnd().split("\r\n");
    expect(lines[0]).toBe("Login,Name");
    expect(lines[1]).toBe("1000,Trader 1000");
    expect(lines).toHaveLength(1204);
  });
});
