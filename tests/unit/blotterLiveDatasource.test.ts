// @vitest-environment node
import type { GridApi, IGetRowsParams } from "ag-grid-community";
import { describe, expect, it, vi } from "vitest";
import type { LiveRowsAnswer } from "../../app/features/trades-blotter/blotterStream.ts";
import { createLiveDatasource } from "../../app/features/trades-blotter/liveDatasource.ts";
import type { LiveRow, SortEntry } from "../../app/features/trades-blotter/liveRowModel.ts";

const rowsNamed = (...keys: string[]) => keys.map((key, i) => ({ key, s: i + 1 }) as LiveRow);

function params(startRow: number, endRow: number, sortModel: SortEntry[] = []) {
  const api = {} as GridApi;
  return { startRow, endRow, sortModel, filterModel: {}, context: undefined, api, successCallback: vi.fn(), failCallback: vi.fn() } satisfies IGetRowsParams;
}

describe("the live grid's datasource", () => {
  it("asks the worker once for the blocks the grid asks for together, in the grid's order, and hands each block its rows; only a refresh's request takes the new rows", async () => {
    const answer: LiveRowsAnswer = {
      blocks: [rowsNamed("a", "b"), rowsNamed("c")],
      rowCount: 3,
      seq: 9,
      change: { reset: false, added: 1, updated: 0, removed: 0 },
    };
    let answerNow: () => void = () => {};
    const rows = vi.fn((_ranges: unknown, _sort: unknown, _take?: boolean) => new Promise<LiveRowsAnswer>((resolve) => (answerNow = () => resolve(answer))));
    const events: string[] = [];
    const answered = vi.fn(() => events.push("answered"));
    const taking = vi.fn(() => events.push("taking"));
    const source = createLiveDatasource({ rows }, { taking, answered });
    source.refreshing();
    const first = params(0, 2, [{ colId: "volume", sort: "asc" }]);
    const second = params(2, 4, [{ colId: "volume", sort: "asc" }]);
    // As AG Grid asks after a refresh: each block from its own zero-delay timeout.
    setTimeout(() => source.getRows(first), 0);
    setTimeout(() => source.getRows(second), 0);
    expect(rows).not.toHaveBeenCalled();
    await vi.waitFor(() => expect(rows).toHaveBeenCalledTimes(1));
    // Asked, not answered yet: the page's pacer waits for it rather than refreshing over it.
    expect(source.reading).toBe(true);
    answerNow();
    await vi.waitFor(() => expect(answered).toHaveBeenCalledTimes(1));
    expect(source.reading).toBe(false);
    expect(rows).toHaveBeenCalledTimes(1);
    expect(rows).toHaveBeenCalledWith(
      [
        { start: 0, end: 2 },
        { start: 2, end: 4 },
      ],
      [{ colId: "volume", sort: "asc" }],
      true,
    );
    expect(first.successCallback).toHaveBeenCalledWith(answer.blocks[0], 3);
    expect(second.successCallback).toHaveBeenCalledWith(answer.blocks[1], 3);
    // The page hears of the answer before the grid draws it (the rows it took light up), and after.
    expect(taking).toHaveBeenCalledWith(answer);
    expect(taking.mock.invocationCallOrder[0]).toBeLessThan(first.successCallback.mock.invocationCallOrder[0]!);
    expect(events).toEqual(["taking", "answered"]);
    expect(answered).toHaveBeenCalledWith(answer, expect.any(Number));
    expect(source.sort).toEqual([{ colId: "volume", sort: "asc" }]);

    // A later request with no refresh before it (a block scrolled to) reads without taking.
    source.getRows(params(0, 2));
    await vi.waitFor(() => expect(rows).toHaveBeenCalledTimes(2));
    expect(rows.mock.calls[1]![2]).toBe(false);
    answerNow();
  });

  it("fails the blocks when the worker cannot answer (the stream closed), so the grid asks again later", async () => {
    const source = createLiveDatasource({ rows: () => Promise.reject(new Error("closed")) }, { answered: vi.fn() });
    const block = params(0, 100);
    source.getRows(block);
    await vi.waitFor(() => expect(block.failCallback).toHaveBeenCalledTimes(1));
    expect(block.successCallback).not.toHaveBeenCalled();
  });
});
