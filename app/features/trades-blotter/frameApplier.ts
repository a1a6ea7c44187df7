/**
 * Hands the stream worker's batches to the grid at an animation frame (decision 0043 and its
 * 2026-11-23 addendum), merged per row key into one transaction (a row added then changed → one
 * add of its last state; added then removed → nothing). AG Grid's cost per transaction is mostly
 * fixed: with the newest rows on top, every transaction replaces the rows in view (about 30 ms on
 * a two-core machine without a GPU, whether 50 or 2,000 rows changed). So a transaction follows
 * the last one no sooner than three times as long as that one took (at least 50 ms, at most
 * 250 ms): a fast machine applies every 50 ms, a slow one keeps about two thirds of its frames for
 * drawing and input. A hidden tab gets no frames: there a timer applies them a few times a second,
 * so the grid is current when the tab comes back.
 */
import type { RowBatch } from "./rowBatcher";

export interface FrameApplierOptions<T> {
  key: (row: T) => string;
  reset: (rows: T[]) => void;
  apply: (batch: RowBatch<T>) => void;
  /**
   * Runs `fn` before a paint, no sooner than `delayMs` from now; a timer then `requestAnimationFrame`
   * (a timer alone in a hidden tab) by default.
   */
  schedule?: (fn: () => void, delayMs: number) => void;
  /** The clock the pacing reads (ms); `performance.now` by default. */
  now?: () => number;
}

export interface FrameApplier<T> {
  push(reset: T[] | null, batch: RowBatch<T> | null): void;
  /** Applies what is waiting now (tests; closing). */
  flush(): void;
  /** Drops what is waiting; nothing is applied after this. */
  dispose(): void;
}

/** A row's net change since the last frame: did the grid hold it before, and what should it hold now (null: nothing). */
interface Change<T> {
  existed: boolean;
  row: T | null;
  /** The last row seen for the key: what a removal names. */
  last: T;
}

const HIDDEN_TAB_MS = 250;
/** The shortest and longest wait between two transactions, and the wait per ms the last one took. */
export const APPLY_MIN_GAP_MS = 50;
export const APPLY_MAX_GAP_MS = 250;
export const GAP_PER_APPLY_MS = 3;

/** The gap before the next transaction, given how long the last one took. */
export function applyGap(lastApplyMs: number): number {
  return Math.min(APPLY_MAX_GAP_MS, Math.max(APPLY_MIN_GAP_MS, GAP_PER_APPLY_MS * lastApplyMs));
}

function atFrame(fn: () => void): void {
  if (typeof requestAnimationFrame === "function" && typeof document !== "undefined" && document.visibilityState !== "hidden") requestAnimationFrame(fn);
  else setTimeout(fn, HIDDEN_TAB_MS);
}

function afterThenAtFrame(fn: () => void, delayMs: number): void {
  if (delayMs <= 0) atFrame(fn);
  else setTimeout(() => atFrame(fn), delayMs);
}

const clock = () => (typeof performance !== "undefined" ? performance.now() : Date.now());

export function createFrameApplier<T>(options: FrameApplierOptions<T>): FrameApplier<T> {
  const { key, reset, apply, schedule = afterThenAtFrame, now = clock } = options;
  /** When the grid may take the next transaction. */
  let nextAt = Number.NEGATIVE_INFINITY;
  let pendingReset: T[] | null = null;
  let changes = new Map<string, Change<T>>();
  let scheduled = false;
  let disposed = false;

  const note = (row: T, existed: boolean, now: T | null) => {
    const k = key(row);
    const change = changes.get(k);
    if (change) {
      change.row = now;
      change.last = row;
    } else changes.set(k, { existed, row: now, last: row });
  };

  function flush() {
    scheduled = false;
    if (disposed) return;
    const started = now();
    if (pendingReset) {
      const rows = pendingReset;
      pendingReset = null;
      reset(rows);
    }
    if (changes.size > 0) {
      const batch: RowBatch<T> = { add: [], update: [], remove: [] };
      for (const change of changes.values()) {
        if (change.row === null) {
          if (change.existed) batch.remove.push(change.last);
        } else (change.existed ? batch.update : batch.add).push(change.row);
      }
      changes = new Map();
      if (batch.add.length || batch.update.length || batch.remove.length) apply(batch);
    }
    const ended = now();
    nextAt = ended + applyGap(ended - started);
  }

  return {
    push(rows, batch) {
      if (disposed) return;
      if (rows) {
        // A snapshot replaces everything, including what was still waiting.
        pendingReset = rows;
        changes = new Map();
      }
      if (batch) {
        for (const row of batch.remove) note(row, true, null);
        for (const row of batch.update) note(row, true, row);
        for (const row of batch.add) note(row, false, row);
      }
      if (!scheduled) {
        scheduled = true;
        schedule(flush, Math.max(0, nextAt - now()));
      }
    },
    flush,
    dispose() {
      disposed = true;
      pendingReset = null;
      changes = new Map();
    },
  };
}
