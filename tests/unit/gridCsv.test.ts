// @vitest-environment node
import { describe, expect, it } from "vitest";
import type { ColDef } from "ag-grid-community";
import { buildCsv, csvCell, csvFileName } from "~/ui/grid/csv";
import { defaultColumnState, readSavedColumns, toSavedColumns, withSavedColumns } from "~/ui/grid/columnState";
import { formatMoney, formatPercent } from "~/ui/grid/format";

describe("CSV building", () => {
  it("quotes fields with commas, quotes and line breaks, doubling quotes", () => {
    expect(csvCell("plain")).toBe("plain");
    expect(csvCell("Smith, John")).toBe('"Smith, John"');
    expect(csvCell('He said "hi"')).toBe('"He said ""hi"""');
    expect(csvCell("two\nlines")).toBe('"two\nlines"');
    expect(csvCell("cr\rhere")).toBe('"cr\rhere"');
    expect(csvCell(null)).toBe("");
    expect(csvCell(undefined)).toBe("");
    expect(csvCell(42)).toBe("42");
    expect(csvCell(false)).toBe("false");
  });

  it("defuses text a spreadsheet would run as a formula, but not negative amounts", () => {
    expect(csvCell('=HYPERLINK("http://x")')).toBe('"\'=HYPERLINK(""http://x"")"');
    expect(csvCell("+1 555")).toBe("'+1 555");
    expect(csvCell("@cmd")).toBe("'@cmd");
    expect(csvCell("-12.50")).toBe("-12.50");
    expect(csvCell(-12.5)).toBe("-12.5");
  });

  it("writes a header line and CRLF-terminated rows", () => {
    const csv = buildCsv(
      [
        { header: "Login", value: (r: { login: string; name: string }) => r.login },
        { header: "Name, full", value: (r) => r.name },
      ],
      [
        { login: "1", name: "Ann" },
        { login: "2", name: 'Bob "B"' },
      ],
    );
    expect(csv).toBe('Login,"Name, full"\r\n1,Ann\r\n2,"Bob ""B"""\r\n');
  });

  it("names files so they sort by time", () => {
    expect(csvFileName("accounts", new Date(2025, 0, 5, 9, 7))).toBe("accounts-20250105-0907.csv");
  });
});

describe("figures", () => {
  it("formats exact decimal strings with thousands separators and two decimals", () => {
    expect(formatMoney("1234567.5")).toBe("1,234,567.50");
    expect(formatMoney("-30")).toBe("-30.00");
    expect(formatMoney("-0.00")).toBe("0.00");
    expect(formatMoney("0012.345")).toBe("12.34");
    expect(formatMoney(1000.1)).toBe("1,000.10");
    expect(formatMoney(null)).toBe("—");
    expect(formatMoney("abc")).toBe("—");
    expect(formatPercent("253.4")).toBe("253.40 %");
    expect(formatPercent(null)).toBe("—");
  });
});

describe("saved column layout", () => {
  type Row = { a: string; b: string; c: string };
  const defs: ColDef<Row>[] = [
    { field: "a", width: 100 },
    { field: "b", width: 120, sort: "asc" },
    { field: "c", hide: true },
  ];

  it("folds a saved layout into the definitions: order, widths, visibility and sort", () => {
    const saved = readSavedColumns({
      version: 1,
      columns: [
        { colId: "c", hide: false, width: 90, sort: "desc", sortIndex: 0 },
        { colId: "a", width: 150, hide: false, sort: null },
        { colId: "gone", width: 10 },
      ],
    });
    const merged = withSavedColumns(defs, saved);
    expect(merged.map((d) => d.field)).toEqual(["c", "a", "b"]);
    expect(merged[0]).toMatchObject({ initialWidth: 90, initialHide: false, initialSort: "desc", initialSortIndex: 0 });
    expect(merged[1]).toMatchObject({ initialWidth: 150, initialSort: undefined });
    expect(merged[2]).toBe(defs[1]);
  });

  it("ignores malformed stored values and keeps only what it restores", () => {
    expect(readSavedColumns(null)).toBeNull();
    expect(readSavedColumns({ version: 2, columns: [] })).toBeNull();
    expect(readSavedColumns({ version: 1, columns: [{ colId: 3 }, { colId: "a", width: -1 }, { colId: "b" }] })!.columns).toEqual([{ colId: "b" }]);
    expect(toSavedColumns([{ colId: "a", width: 99.6, hide: null, pinned: "left", sort: "asc", sortIndex: 0, flex: 1, aggFunc: null }])).toEqual({
      version: 1,
      columns: [{ colId: "a", width: 100, hide: false, pinned: "left", sort: "asc", sortIndex: 0 }],
    });
  });

  it("resets to the definitions' own layout", () => {
    expect(defaultColumnState(defs as ColDef[])).toEqual([
      { colId: "a", width: 100, flex: null, hide: false, pinned: null, sort: null, sortIndex: null },
      { colId: "b", width: 120, flex: null, hide: false, pinned: null, sort: "asc", sortIndex: null },
      { colId: "c", width: undefined, flex: null, hide: true, pinned: null, sort: null, sortIndex: null },
    ]);
  });
});
