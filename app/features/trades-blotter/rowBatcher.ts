/**
 * Applies a fast stream of row updates to a grid in batches (docs/decisions/0062; the server frames likewise, 0060): updates are
 * gathered for `intervalMs` (about 50 ms, three frames at 60 Hz), coalesced per row key (a
 * position changed ten times → its last state, once), and handed over as one transaction of
 * adds, updates and removals. Paused, nothing reaches the grid and the updates held back are
 * counted; resumed, they go in one batch. A snapshot replaces everything. The rows kept are
 * bounded (`maxRows`): past it, the oldest rows leave the grid in the same transaction.
 * `tracker` hears every row that enters or leaves what the grid holds (the side panel's totals,
 * kept incrementally: blotterTotals.ts).
 *
 * In the browser this runs inside the blotter's stream worker (blotterStreamCore.ts), which flushes
 * it when the grid's refresh takes the rows rather than on its own interval.
 */
export interface RowBatch<T> {
  add: T[];
  update: T[];
  remove: T[];
}

export interface RowBatcherOptions<T> {
  key: (row: T) => string;
  /** One grid transaction (AG Grid's applyTransaction). */
  apply: (batch: RowBatch<T>) => void;
  /** Replace every row (a snapshot). */
  reset: (rows: T[]) => void;
  /** After each applied batch or reset, and when the held count changes. */
  onChange?: (state: { held: number; paused: boolean; rowCount: number; changed: readonly T[] }) => void;
  intervalMs?: number;
  maxRows?: number;
  /** Told of each row that enters or leaves the grid's rows (an update: the old row leaves, the new enters). */
  tracker?: { add(row: T): void; remove(row: T): void; clear(): void };
  /** setInterval by default; tests drive `flush()` themselves with `() => () => {}`. */
  every?: (fn: () => void, ms: number) => () => void;
}

export interface RowBatcher<T> {
  push(rows: readonly T[]): void;
  snapshot(rows: readonly T[]): void;
  flush(): void;
  pause(): void;
  resume(): void;
  /** The rows the grid holds, oldest first. */
  rows(): T[];
  readonly paused: boolean;
  /** Updates received while paused (every one counts, even if several were for one row). */
  readonly held: number;
  /** Rows (or a snapshot) gathered that the next `flush` hands over. */
  readonly gathering: boolean;
  clear(): void;
  dispose(): void;
}

export const BATCH_INTERVAL_MS = 50;
export const MAX_ROWS = 50_000;

const NO_TRACKER = { add() {}, remove() {}, clear() {} };

export function createRowBatcher<T>(options: RowBatcherOptions<T>): RowBatcher<T> {
  const { key, apply, reset, onChange = () => {}, intervalMs = BATCH_INTERVAL_MS, maxRows = MAX_ROWS, tracker = NO_TRACKER } = options;
  const every =
    options.every ??
    ((fn: () => void, ms: number) => {
      const id = setInterval(fn, ms);
      return () => clearInterval(id);
    });
  /** What the grid holds, in first-added order (the oldest leave first). */
  let model = new Map<string, T>();
  let pending = new Map<string, T>();
  let pendingSnapshot: T[] | null = null;
  let paused = false;
  let held = 0;

  const notify = (changed: readonly T[]) => onChange({ held, paused, rowCount: model.size, changed });

  function flush() {
    if (paused) return;
    if (pendingSnapshot) {
      const rows = pendingSnapshot;
      pendingSnapshot = null;
      model = new Map();
      tracker.clear();
      for (const row of rows) {
        const k = key(row);
        const previous = model.get(k);
        if (previous) tracker.remove(previous);
        model.set(k, row);
        tracker.add(row);
      }
      trim(null);
      const all = [...model.values()];
      reset(all);
      if (pending.size === 0) {
        held = 0;
        notify(all);
        return;
      }
    }
    if (pending.size === 0) {
      if (held !== 0) {
        held = 0;
        notify([]);
      }
      return;
    }
    const batch: RowBatch<T> = { add: [], update: [], remove: [] };
    for (const [k, row] of pending) {
      const previous = model.get(k);
      if (previous) {
        batch.update.push(row);
        tracker.remove(previous);
      } else batch.add.push(row);
      model.set(k, row);
      tracker.add(row);
    }
    const changed = [...pending.values()];
    pending = new Map();
    trim(batch);
    held = 0;
    apply(batch);
    notify(changed);
  }

  /** Oldest rows out past the bound (into the batch's removals, unless a reset follows). */
  function trim(batch: RowBatch<T> | null) {
    if (model.size <= maxRows) return;
    const evicted = new Map<string, T>();
    for (const [k, row] of model) {
      if (model.size <= maxRows) break;
      model.delete(k);
      tracker.remove(row);
      evicted.set(k, row);
    }
    if (!batch) return;
    const added = new Set(batch.add.map(key));
    batch.add = batch.add.filter((r) => !evicted.has(key(r)));
    batch.update = batch.update.filter((r) => !evicted.has(key(r)));
    for (const [k, row] of evicted) if (!added.has(k)) batch.remove.push(row);
  }

  const stop = every(flush, intervalMs);

  return {
    push(rows) {
      for (const row of rows) {
        const k = key(row);
        // Re-inserted so a batch lists rows in the order they last changed.
        pending.delete(k);
        pending.set(k, row);
      }
      if (paused && rows.length > 0) {
        held += rows.length;
        notify([]);
      }
    },
    snapshot(rows) {
      pendingSnapshot = [...rows];
      pending = new Map();
      if (paused) notify([]);
    },
    flush,
    pause() {
      if (paused) return;
      paused = true;
      notify([]);
    },
    resume() {
      if (!paused) return;
      paused = false;
      flush();
      notify([]);
    },
    rows: () => [...model.values()],
    get paused() {
      return paused;
    },
    get held() {
      return held;
    },
    get gathering() {
      return pending.size > 0 || pendingSnapshot !== null;
    },
    clear() {
      model = new Map();
      tracker.clear();
      pending = new Map();
      pendingSnapshot = null;
      held = 0;
      reset([]);
      notify([]);
    },
    dispose: stop,
  };
}
