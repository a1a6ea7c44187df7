/**
 * Hands the stream worker's batches to the grid once per animation frame (decision 0043): when the
 * main thread is busy, several batches arrive between two frames, and applying each as its own
 * transaction makes AG Grid sort, filter and draw each time. They are merged per row key into one
 * transaction instead (a row added then changed → one add of its last state; added then removed →
 * nothing), and applied in `requestAnimationFrame`, right before the browser paints. A hidden tab
 * gets no frames: there a timer applies them a few times a second, so the grid is current when the
 * tab comes back.
 */
import type { RowBatch } from "./rowBatcher";

export interface FrameApplierOptions<T> {
  key: (row: T) => string;
  reset: (rows: T[]) => void;
  apply: (batch: RowBatch<T>) => void;
  /** Runs `fn` before the next paint; `requestAnimationFrame` (or a timer in a hidden tab) by default. */
  schedule?: (fn: () => void) => void;
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

function nextFrame(fn: () => void): void {
  if (typeof requestAnimationFrame === "function" && typeof document !== "undefined" && document.visibilityState !== "hidden") requestAnimationFrame(fn);
  else setTimeout(fn, HIDDEN_TAB_MS);
}

export function createFrameApplier<T>(options: FrameApplierOptions<T>): FrameApplier<T> {
  const { key, reset, apply, schedule = nextFrame } = options;
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
    if (pendingReset) {
      const rows = pendingReset;
      pendingReset = null;
      reset(rows);
    }
    if (changes.size === 0) return;
    const batch: RowBatch<T> = { add: [], update: [], remove: [] };
    for (const change of changes.values()) {
      if (change.row === null) {
        if (change.existed) batch.remove.push(change.last);
      } else (change.existed ? batch.update : batch.add).push(change.row);
    }
    changes = new Map();
    if (batch.add.length || batch.update.length || batch.remove.length) apply(batch);
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
        schedule(flush);
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
