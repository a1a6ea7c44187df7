// @vitest-environment node
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { BlotterRow } from "../../core/schemas/blotterLive.ts";
import { REFRESH_MAX_GAP_MS, REFRESH_MIN_GAP_MS, createFramePacer } from "../../app/features/trades-blotter/framePacer.ts";
import { comparatorOf, createLiveRowModel, DEFAULT_SORT, type SortEntry } from "../../app/features/trades-blotter/liveRowModel.ts";
import type { RowBatch } from "../../app/features/trades-blotter/rowBatcher.ts";
import { throttleLatest } from "../../app/features/trades-blotter/throttleLatest.ts";
import { blotterRow } from "../helpers/blotterRows.ts";

/** A row at `time` (what sorting reads most). */
const row = (key: string, time: number, extra: Partial<BlotterRow> = {}) => blotterRow(key, { time, ...extra });

const SORTS: SortEntry[][] = [
  [{ colId: "serverTime", sort: "desc" }],
  [{ colId: "utcTime", sort: "asc" }],
  [
    { colId: "symbol", sort: "asc" },
    { colId: "volume", sort: "desc" },
  ],
  [{ colId: "sl", sort: "desc" }],
  [],
];

/** Steps: a batch made against the batcher's rows (one change per key), a snapshot, or another sort order. */
const step = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("batch" as const),
      picks: fc.array(
        fc.record({ key: fc.nat(15), op: fc.nat(2), time: fc.nat(5), symbol: fc.constantFrom("EURUSD", "XAUUSD", null), sl: fc.constantFrom(null, 1, 2) }),
        {
          maxLength: 8,
        },
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("snapshot" as const), keys: fc.uniqueArray(fc.nat(15), { maxLength: 8 }), time: fc.nat(5) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("sort" as const), sort: fc.constantFrom(...SORTS) }) },
);

describe("the live grid's rows in the worker (liveRowModel.ts)", () => {
  it("merging each batch gives the same rows in the same order as sorting them all again, in any sort order", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const model = createLiveRowModel();
        const held = new Map<string, BlotterRow>();
        let sort: SortEntry[] = [];
        for (const s of steps) {
          if (s.kind === "sort") {
            sort = s.sort;
            model.sortBy(sort);
          } else if (s.kind === "snapshot") {
            held.clear();
            const rows = s.keys.map((k) => row(`d:${k}`, s.time));
            for (const r of rows) held.set(r.key, r);
            model.reset(rows);
          } else {
            const batch: RowBatch<BlotterRow> = { add: [], update: [], remove: [] };
            const touched = new Set<string>();
            for (const pick of s.picks) {
              const key = `d:${pick.key}`;
              if (touched.has(key)) continue;
              touched.add(key);
              const next = row(key, pick.time, { symbol: pick.symbol, sl: pick.sl });
              if (!held.has(key)) {
                batch.add.push(next);
                held.set(key, next);
              } else if (pick.op === 0) {
                batch.remove.push(held.get(key)!);
                held.delete(key);
              } else {
                batch.update.push(next);
                held.set(key, next);
              }
            }
            model.apply(batch);
          }
          const all = model.slice(0, Number.MAX_SAFE_INTEGER);
          expect(model.size).toBe(held.size);
          expect(new Set(all.map((r) => r.key))).toEqual(new Set(held.keys()));
          // Each row is the latest state of its key.
          for (const r of all) expect(r).toBe(held.get(r.key));
          expect(all).toEqual([...all].sort(comparatorOf(sort.length > 0 ? sort : DEFAULT_SORT)));
          // Arrival numbers are unique: the order is total, so every block boundary is stable.
          expect(new Set(all.map((r) => r.s)).size).toBe(all.length);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("stamps the rows that entered or changed after the ones before, so the page knows what to flash", () => {
    const model = createLiveRowModel();
    model.reset([row("d:1", 1), row("d:2", 2)]);
    const before = model.seq;
    model.apply({ add: [row("d:3", 3)], update: [row("d:1", 1, { sl: 5 })], remove: [row("d:2", 2)] });
    const rows = model.slice(0, 10);
    expect(rows.map((r) => r.key)).toEqual(["d:3", "d:1"]);
    expect(rows.every((r) => r.s > before)).toBe(true);
    expect(model.slice(1, 2).map((r) => r.key)).toEqual(["d:1"]);
    // Of one time, a new row comes before one that changed in the same batch (a position closing at the time of its deal).
    model.apply({ add: [row("d:4", 3)], update: [row("d:3", 3, { sl: 1 })], remove: [] });
    expect(model.slice(0, 10).map((r) => r.key)).toEqual(["d:4", "d:3", "d:1"]);
  });
});

describe("the frame pacer", () => {
  /** A pacer whose frames, settle timers and clock the test drives; `delays`: each frame it asked for. */
  function paced(cost = () => 0) {
    let clock = 1000;
    const delays: number[] = [];
    let frame: (() => void) | null = null;
    const timers: (() => void)[] = [];
    const run = vi.fn(() => void (clock += cost()));
    const pacer = createFramePacer({
      run,
      schedule: (fn, delayMs) => {
        delays.push(delayMs);
        frame = fn;
      },
      later: (fn) => void timers.push(fn),
      now: () => clock,
    });
    return {
      pacer,
      run,
      delays,
      tick: (ms: number) => void (clock += ms),
      frame: () => {
        const fn = frame;
        frame = null;
        fn?.();
      },
      settleTimers: () => timers.splice(0).forEach((fn) => fn()),
    };
  }

  it("runs once per frame however many changes came, and nothing after it is disposed", () => {
    const { pacer, run, delays, frame } = paced();
    pacer.request();
    pacer.request();
    pacer.request();
    expect(delays).toHaveLength(1);
    frame();
    expect(run).toHaveBeenCalledTimes(1);
    pacer.done(0);
    // Nothing new: no frame is asked for, and a frame runs nothing.
    expect(delays).toHaveLength(1);
    pacer.flush();
    expect(run).toHaveBeenCalledTimes(1);
    pacer.request();
    pacer.dispose();
    frame();
    expect(run).toHaveBeenCalledTimes(1);
  });

  it("runs the next only once the grid has the rows the last one asked for, or after SETTLE_MS if it asked for none", () => {
    const { pacer, run, delays, frame, settleTimers } = paced();
    pacer.request();
    frame();
    // Changes while the grid reads: no frame is asked for until it has the rows.
    pacer.request();
    pacer.request();
    expect(delays).toHaveLength(1);
    pacer.done(0);
    expect(delays).toHaveLength(2);
    frame();
    expect(run).toHaveBeenCalledTimes(2);
    // A done for a run already over (rows read while scrolling) changes nothing.
    pacer.done(0);
    pacer.done(0);
    expect(delays).toHaveLength(2);
    // The grid asked for nothing: the run is over after SETTLE_MS all the same (its timer), once.
    pacer.request();
    frame();
    expect(run).toHaveBeenCalledTimes(3);
    pacer.request();
    expect(delays).toHaveLength(3);
    settleTimers();
    expect(delays).toHaveLength(4);
    settleTimers();
    expect(delays).toHaveLength(4);
    frame();
    expect(run).toHaveBeenCalledTimes(4);
  });

  it("does not end a run by the timer while the rows it asked for are on their way (a late answer would be dropped by the next refresh)", () => {
    let reading = true;
    let clock = 0;
    const timers: (() => void)[] = [];
    let frame: (() => void) | null = null;
    let frames = 0;
    const run = vi.fn();
    const pacer = createFramePacer({
      run,
      reading: () => reading,
      schedule: (fn) => {
        frames++;
        frame = fn;
      },
      later: (fn) => void timers.push(fn),
      now: () => clock,
    });
    pacer.request();
    frame!();
    pacer.request();
    for (let i = 0; i < 3; i++) timers.splice(0).forEach((fn) => fn());
    expect(frames).toBe(1);
    expect(run).toHaveBeenCalledTimes(1);
    reading = false;
    timers.splice(0).forEach((fn) => fn());
    expect(frames).toBe(2);
    clock += 1_000;
    frame!();
    expect(run).toHaveBeenCalledTimes(2);
  });

  it("waits three times as long as the last refresh took (its run and taking the rows) before the next, between 50 and 250 ms", () => {
    let cost = 0;
    const { pacer, delays, frame, tick } = paced(() => cost);
    // Nothing ran yet: the first change goes at the next frame.
    pacer.request();
    expect(delays).toEqual([0]);
    for (const [took, gap] of [
      [40, 120],
      [5, REFRESH_MIN_GAP_MS],
      [200, REFRESH_MAX_GAP_MS],
    ] as const) {
      cost = took;
      frame();
      pacer.done(0);
      pacer.request();
      expect(delays.at(-1)).toBe(gap);
    }
    // Taking the rows it read back counts too: 10 ms to run, then 20 ms to take them.
    cost = 10;
    frame();
    pacer.done(20);
    pacer.request();
    expect(delays.at(-1)).toBe(90);
    // Time that already passed counts: 100 ms after a 200 ms refresh, 150 ms are left.
    cost = 200;
    frame();
    pacer.done(0);
    tick(100);
    pacer.request();
    expect(delays.at(-1)).toBe(REFRESH_MAX_GAP_MS - 100);
    // While one is scheduled, more changes do not schedule again: they join it.
    pacer.request();
    pacer.request();
    expect(delays).toHaveLength(6);
  });
});

describe("throttleLatest", () => {
  afterEach(() => void vi.useRealTimers());

  it("passes the first value at once, then only the latest of each period, at its end", () => {
    vi.useFakeTimers();
    const seen: number[] = [];
    const t = throttleLatest<number>((v) => seen.push(v), 1000);
    t.push(1);
    t.push(2);
    t.push(3);
    expect(seen).toEqual([1]);
    vi.advanceTimersByTime(1000);
    expect(seen).toEqual([1, 3]);
    vi.advanceTimersByTime(1000);
    expect(seen).toEqual([1, 3]);
    // A quiet period has passed: the next value goes at once again.
    t.push(4);
    expect(seen).toEqual([1, 3, 4]);
    t.push(5);
    vi.advanceTimersByTime(999);
    expect(seen).toEqual([1, 3, 4]);
    vi.advanceTimersByTime(1);
    expect(seen).toEqual([1, 3, 4, 5]);
    t.push(6);
    t.push(7);
    t.dispose();
    vi.advanceTimersByTime(5000);
    expect(seen).toEqual([1, 3, 4, 5]);
  });
});
