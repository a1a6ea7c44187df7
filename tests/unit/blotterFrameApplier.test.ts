// @vitest-environment node
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { APPLY_MAX_GAP_MS, APPLY_MIN_GAP_MS, createFrameApplier } from "../../app/features/trades-blotter/frameApplier.ts";
import type { RowBatch } from "../../app/features/trades-blotter/rowBatcher.ts";
import { throttleLatest } from "../../app/features/trades-blotter/throttleLatest.ts";

interface Row {
  key: string;
  v: number;
}

/** A grid as AG Grid treats a transaction: removals, then updates, then adds; each must name rows it holds (or not, for adds). */
function applyTo(grid: Map<string, Row>, batch: RowBatch<Row>) {
  for (const r of batch.remove) {
    expect(grid.has(r.key), `remove of a row the grid does not hold: ${r.key}`).toBe(true);
    grid.delete(r.key);
  }
  for (const r of batch.update) {
    expect(grid.has(r.key), `update of a row the grid does not hold: ${r.key}`).toBe(true);
    grid.set(r.key, r);
  }
  for (const r of batch.add) {
    expect(grid.has(r.key), `add of a row the grid already holds: ${r.key}`).toBe(false);
    grid.set(r.key, r);
  }
}

/** Steps: a batch made against the worker's model (one change per key), a snapshot, or a frame. */
const step = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("batch" as const), picks: fc.array(fc.tuple(fc.nat(12), fc.nat(2)), { maxLength: 8 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("snapshot" as const), keys: fc.uniqueArray(fc.nat(12), { maxLength: 6 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("frame" as const) }) },
);

describe("the blotter's frame applier", () => {
  it("merged per frame, the grid ends holding exactly what applying every batch one by one gives, and never names a row wrongly", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        let version = 0;
        const model = new Map<string, Row>(); // the worker's rows: every batch applied at once
        const grid = new Map<string, Row>();
        let applies = 0;
        const applier = createFrameApplier<Row>({
          key: (r) => r.key,
          reset: (rows) => {
            grid.clear();
            for (const r of rows) grid.set(r.key, r);
          },
          apply: (batch) => {
            applies++;
            applyTo(grid, batch);
          },
          schedule: () => {},
        });
        for (const s of steps) {
          if (s.kind === "frame") {
            const before = applies;
            applier.flush();
            expect(applies - before).toBeLessThanOrEqual(1);
          } else if (s.kind === "snapshot") {
            model.clear();
            const rows = s.keys.map((k) => ({ key: `r${k}`, v: ++version }));
            for (const r of rows) model.set(r.key, r);
            applier.push(rows, null);
          } else {
            const batch: RowBatch<Row> = { add: [], update: [], remove: [] };
            const touched = new Set<string>();
            for (const [k, op] of s.picks) {
              const key = `r${k}`;
              if (touched.has(key)) continue;
              touched.add(key);
              const row = { key, v: ++version };
              if (!model.has(key)) batch.add.push(row);
              else if (op === 0) batch.remove.push(model.get(key)!);
              else batch.update.push(row);
            }
            applyTo(model, batch);
            applier.push(null, batch);
          }
        }
        applier.flush();
        expect(new Map([...grid].sort())).toEqual(new Map([...model].sort()));
      }),
      { numRuns: 300 },
    );
  });

  it("applies nothing after it is disposed", () => {
    const apply = vi.fn();
    const applier = createFrameApplier<Row>({ key: (r) => r.key, reset: vi.fn(), apply, schedule: () => {} });
    applier.push(null, { add: [{ key: "a", v: 1 }], update: [], remove: [] });
    applier.dispose();
    applier.flush();
    expect(apply).not.toHaveBeenCalled();
  });
});

describe("the frame applier's pacing", () => {
  it("waits three times as long as the last transaction took before the next, between 50 and 250 ms", () => {
    let clock = 1000;
    const delays: number[] = [];
    let pending: (() => void) | null = null;
    let cost = 0;
    const applier = createFrameApplier<Row>({
      key: (r) => r.key,
      reset: vi.fn(),
      apply: () => void (clock += cost),
      schedule: (fn, delayMs) => {
        delays.push(delayMs);
        pending = fn;
      },
      now: () => clock,
    });
    const push = (v: number) => applier.push(null, { add: [], update: [{ key: "a", v }], remove: [] });
    const frame = () => {
      const fn = pending;
      pending = null;
      fn?.();
    };
    // Nothing applied yet: the first batch goes at the next frame.
    push(1);
    expect(delays).toEqual([0]);
    for (const [took, gap] of [
      [40, 120],
      [5, APPLY_MIN_GAP_MS],
      [200, APPLY_MAX_GAP_MS],
    ] as const) {
      cost = took;
      frame();
      push(2);
      expect(delays.at(-1)).toBe(gap);
    }
    // Time that already passed counts: 100 ms after a 200 ms transaction, 150 ms are left.
    frame();
    clock += 100;
    push(3);
    expect(delays.at(-1)).toBe(APPLY_MAX_GAP_MS - 100);
    // While one is scheduled, more batches do not schedule again: they join it.
    push(4);
    push(5);
    expect(delays).toHaveLength(5);
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
