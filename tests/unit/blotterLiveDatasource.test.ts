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
  it("asks the worker once for the blocks the grid asks for together, in the grid's order, and hands each block its rows", async () => {
    const answer: LiveRowsAnswer = { blocks: [rowsNamed("a", "b"), rowsNamed("c")], rowCount: 3, seq: 9 };
    let answerNow: () => void = () => {};
    const rows = vi.fn(() => new Promise<LiveRowsAnswer>((resolve) => (answerNow = () => resolve(answer))));
    const answered = vi.fn();
    const source = createLiveDatasource({ rows }, answered);
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
    );
    expect(first.successCallback).toHaveBeenCalledWith(answer.blocks[0], 3);
    expect(second.successCallback).toHaveBeenCalledWith(answer.blocks[1], 3);
    expect(answered).toHaveBeenCalledWith(answer, expect.any(Number));
    expect(source.sort).toEqual([{ colId: "volume", sort: "asc" }]);

    // A later turn is another request.
    source.getRows(params(0, 2));
    await vi.waitFor(() => expect(rows).toHaveBeenCalledTimes(2));
    answerNow();
  });

  it("fails the blocks when the worker cannot answer (the stream closed), so the grid asks again later", async () => {
    const source = createLiveDatasource({ rows: () => Promise.reject(new Error("closed")) }, vi.fn());
    const block = params(0, 100);
    source.getRows(block);
    await vi.waitFor(() => expect(block.failCallback).toHaveBeenCalledTimes(1));
    expect(block.successCallback).not.toHaveBeenCalled();
  });
});
