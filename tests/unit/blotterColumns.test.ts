/**
 * The blotter's default columns as a dealer reads them (issue 24 §2): symbol, side, login,
 * volume, price and profit first, symbol and side pinned beside the time, and a row's login a
 * link to the account's panel on /users.
 */
import type { ICellRendererComp, ICellRendererParams } from "ag-grid-community";
import { describe, expect, it, vi } from "vitest";
import type { BlotterPlatform, BlotterRow } from "../../core/schemas/blotterLive.ts";
import { blotterColumns } from "../../app/features/trades-blotter/blotterColumns.tsx";
import { blotterRow } from "../helpers/blotterRows.ts";

const platforms = new Map<string, BlotterPlatform>([["p-1", { id: "p-1", name: "Athens", type: "MT5", timeZone: "Europe/Athens" }]]);
const idOf = (c: { colId?: string; field?: string }) => c.colId ?? c.field;

describe("the blotter's default columns", () => {
  it("start with what a dealer reads first, time, symbol and side pinned", () => {
    const columns = blotterColumns(platforms);
    expect(columns.slice(0, 7).map(idOf)).toEqual(["utcTime", "symbol", "side", "login", "volume", "price", "profit"]);
    expect(columns.filter((c) => c.pinned === "left").map(idOf)).toEqual(["utcTime", "symbol", "side"]);
    // Up to profit, they fit the grid's width beside the side panel at 1440 px (about 770 px, less
    // its scroll bar; tests/e2e/dealerDesk.test.ts measures it in the browser).
    const upToProfit = columns.slice(0, 7).reduce((sum, c) => sum + (c.width ?? 0), 0);
    expect(upToProfit).toBeLessThanOrEqual(740);
    // Nothing is lost: every field still has its column.
    expect(new Set(columns.map(idOf)).size).toBe(20);
  });

  it("draws a row's login as a link to the account on /users, followed inside the app", () => {
    const navigate = vi.fn();
    const login = blotterColumns(platforms, navigate).find((c) => c.field === "login")!;
    const Renderer = login.cellRenderer as new () => ICellRendererComp<BlotterRow>;
    const cell = new Renderer();
    const row = blotterRow("d:p-1:1", { platformId: "p-1", login: "10007" });
    cell.init!({ ...login.cellRendererParams, data: row, value: row.login } as ICellRendererParams<BlotterRow>);
    const link = cell.getGui() as HTMLAnchorElement;
    expect(link.tagName).toBe("A");
    expect(link.textContent).toBe("10007");
    expect(link.getAttribute("href")).toBe("/users?account=p-1%3A10007");
    link.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true, button: 0 }));
    expect(navigate).toHaveBeenCalledWith("/users?account=p-1%3A10007");
    // A click with a modifier opens a new tab as links do.
    link.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true, button: 0, ctrlKey: true }));
    expect(navigate).toHaveBeenCalledTimes(1);
  });
});
