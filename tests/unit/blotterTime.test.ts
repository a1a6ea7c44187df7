/**
 * The blotter's time columns across servers in different zones (docs/trades-blotter.md#time): the
 * column that orders the rows shows every row in one zone, says which in its header, and reads in
 * order; each server's own clock comes with its offset and does not sort.
 */
import type { ColDef, ValueFormatterParams } from "ag-grid-community";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { useDisplayStore } from "../../app/ui/format/index.ts";
import type { BlotterPlatform, BlotterRow } from "../../core/schemas/blotterLive.ts";
import { blotterColumns } from "../../app/features/trades-blotter/blotterColumns.tsx";
import { comparatorOf, DEFAULT_SORT } from "../../app/features/trades-blotter/liveRowModel.ts";
import { blotterRow } from "../helpers/blotterRows.ts";

const platforms = new Map<string, BlotterPlatform>([
  ["athens", { id: "athens", name: "Athens", type: "MT5", timeZone: "Europe/Athens" }],
  ["newyork", { id: "newyork", name: "New York", type: "MT4", timeZone: "America/New_York" }],
]);
const shown = (col: ColDef<BlotterRow>, row: BlotterRow) =>
  (col.valueFormatter as (p: Partial<ValueFormatterParams<BlotterRow>>) => string)({ data: row, value: row.time });

describe("time in the blotter", () => {
  beforeEach(() => useDisplayStore.getState().setPreference({ locale: "en-GB", timeZone: "UTC" }));
  afterEach(() => useDisplayStore.getState().setPreference({}));
  // 10:00 UTC on Athens (12:00 there) and 10:30 UTC on New York (05:30 there), 21 Nov 2025.
  const rows = [
    blotterRow("d:athens:1", { platformId: "athens", time: Date.parse("2025-11-21T10:00:00Z") }),
    blotterRow("d:newyork:1", { platformId: "newyork", time: Date.parse("2025-11-21T10:30:00Z") }),
  ];

  it("the column that orders the rows shows them in one zone, named in its header, and reads in order", () => {
    const columns = blotterColumns(platforms);
    const sorted = columns.filter((c) => c.sort);
    expect(sorted).toHaveLength(1);
    const column = sorted[0]!;
    expect(column.headerName).toBe("Time (UTC)");
    expect(column.pinned).toBe("left");
    expect(DEFAULT_SORT).toEqual([{ colId: column.colId, sort: column.sort }]);
    // The rows in the grid's default order, and what the column shows for each: newest first, as written.
    const ordered = rows.map((r, i) => ({ ...r, s: i })).sort(comparatorOf(DEFAULT_SORT));
    const texts = ordered.map((r) => shown(column, r));
    expect(texts).toEqual(["21/11/2025, 10:30:00", "21/11/2025, 10:00:00"]);
  });

  it("each server's own time carries its offset and is not a sort order", () => {
    const server = blotterColumns(platforms).find((c) => c.headerName === "Time (server)")!;
    expect(server.sortable).toBe(false);
    expect(rows.map((r) => shown(server, r))).toEqual(["21/11/2025, 12:00:00 GMT+2", "21/11/2025, 05:30:00 GMT-5"]);
  });

  it("follows the member's display preference: their zone, named, in their format", () => {
    useDisplayStore.getState().setPreference({ locale: "de-DE", timeZone: "Europe/Athens" });
    const column = blotterColumns(platforms).find((c) => c.sort)!;
    expect(column.headerName).toBe("Time (Europe/Athens)");
    expect(rows.map((r) => shown(column, r))).toEqual(["21.11.2025, 12:00:00", "21.11.2025, 12:30:00"]);
  });
});
