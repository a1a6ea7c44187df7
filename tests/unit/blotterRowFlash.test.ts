// @vitest-environment node
import type { RowClassParams } from "ag-grid-community";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createRowFlash, ROW_FLASH_CLASS, ROW_FLASH_MAX, ROW_FLASH_MS } from "../../app/features/trades-blotter/rowFlash.ts";

type Row = { s: number };

describe("the live blotter's row flash", () => {
  let clock = 0;
  beforeEach(() => {
    clock = 1_000;
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  const make = () => {
    const expire = vi.fn();
    const flash = createRowFlash<Row>(
      (row) => row.s,
      expire,
      () => clock,
    );
    const rule = flash.rules[ROW_FLASH_CLASS] as (p: RowClassParams<Row>) => boolean;
    // As AG Grid asks for a drawn row (its node does not matter: a row is lit wherever it is drawn).
    const lit = (s: number | undefined) => rule({ data: s === undefined ? undefined : { s } } as RowClassParams<Row>);
    return { flash, expire, lit };
  };

  it("lights the rows a refresh shows first, not those it showed before, nor an empty row", () => {
    const { flash, lit } = make();
    flash.refreshing(10, true);
    expect([9, 10, 11, 25].map(lit)).toEqual([false, false, true, true]);
    expect(lit(undefined)).toBe(false);
  });

  it("lights only the newest few rows, so that while trades pour in not every row is tinted", () => {
    const { flash, lit } = make();
    const seen: number[] = [];
    // Twenty rows a second in refreshes of four, as the demo's servers bring them: the screen's rows.
    let shown = 0;
    for (let i = 0; i < 5; i++) {
      flash.refreshing(shown, true, shown + 4);
      shown += 4;
      clock += 200;
      const drawn = Array.from({ length: 20 }, (_, k) => shown - k).filter((s) => s > 0);
      seen.push(drawn.filter(lit).length);
    }
    expect(Math.max(...seen)).toBeLessThanOrEqual(ROW_FLASH_MAX);
    expect(Math.min(...seen)).toBeGreaterThan(0);
    // The newest are those lit; after a pause, a refresh of 300 held rows lights the newest few.
    flash.refreshing(shown, true, shown + 300);
    const after = Array.from({ length: 300 }, (_, k) => shown + 300 - k);
    expect(after.filter(lit)).toEqual(after.slice(0, ROW_FLASH_MAX));
  });

  it("lights nothing a snapshot shows, and the rows after it again", () => {
    const { flash, lit } = make();
    flash.refreshing(0, false);
    expect(lit(5)).toBe(false);
    clock += 100;
    flash.refreshing(5, true);
    expect([5, 6].map(lit)).toEqual([false, true]);
  });

  it("keeps a row lit for its second from the refresh that first showed it, in later refreshes too", () => {
    const { flash, lit } = make();
    flash.refreshing(10, true); // shows 11 and 12
    clock += 400;
    flash.refreshing(12, true); // shows 13; 11 and 12 moved down, read again
    expect([11, 12, 13].map(lit)).toEqual([true, true, true]);
    clock += ROW_FLASH_MS - 400;
    expect([11, 12, 13].map(lit)).toEqual([false, false, true]);
    clock += 400;
    expect(lit(13)).toBe(false);
  });

  it("has the rows read again once the last lit ones' second is over, when no refresh came", () => {
    const { flash, expire } = make();
    flash.refreshing(10, true);
    vi.advanceTimersByTime(ROW_FLASH_MS / 2);
    clock += ROW_FLASH_MS / 2;
    flash.refreshing(11, true);
    vi.advanceTimersByTime(ROW_FLASH_MS / 2 + 100);
    // The first refresh's timer gave way to the second's.
    expect(expire).not.toHaveBeenCalled();
    vi.advanceTimersByTime(ROW_FLASH_MS);
    expect(expire).toHaveBeenCalledTimes(1);
    // A snapshot lights nothing: nothing to take off later.
    flash.refreshing(20, false);
    vi.advanceTimersByTime(3 * ROW_FLASH_MS);
    expect(expire).toHaveBeenCalledTimes(1);
    flash.refreshing(21, true);
    flash.dispose();
    vi.advanceTimersByTime(3 * ROW_FLASH_MS);
    expect(expire).toHaveBeenCalledTimes(1);
  });
});
