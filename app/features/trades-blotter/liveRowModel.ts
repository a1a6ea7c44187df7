/**
 * The live blotter's rows in the grid's order, kept in the stream's worker (docs/decisions/0062):
 * the grid (AG Grid's infinite row model) reads the blocks in view from here, so the main thread
 * holds and draws only those, whatever the rate.
 *
 * The rows arrive as the row batcher's batches (rowBatcher.ts: adds, updates, removals, bounded).
 * Each batch is merged into the sorted rows: one pass drops the rows that changed or left, the
 * batch's rows are sorted, and the two sorted lists are merged, O(rows + batch × log batch) instead
 * of sorting every row again at each batch. A new sort order sorts everything once.
 *
 * Each row that enters or changes gets the next arrival number (`s`): it breaks ties (among equal
 * times the latest batch first and, within a batch, new rows before changed ones, as a dealer reads
 * a blotter) and tells the page which rows are new since it last drew (they flash).
 */
import type { BlotterRow } from "@core/schemas/blotterLive";
import type { RowBatch } from "./rowBatcher";

/** A row as the live grid holds it: `s`, its arrival number (higher: arrived or changed later). */
export type LiveRow = BlotterRow & { s: number };

/** One column of the grid's sort model (AG Grid's `SortModelItem`). */
export interface SortEntry {
  colId: string;
  sort: "asc" | "desc";
}

/** The blotter's own default order: newest first. */
export const DEFAULT_SORT: readonly SortEntry[] = [{ colId: "utcTime", sort: "desc" }];

/** Columns whose id is not the row field they show (blotterColumns.tsx): both times sort by `time`. */
const FIELD_OF_COLUMN: Record<string, keyof BlotterRow> = { serverTime: "time", utcTime: "time" };

const SORTABLE_FIELDS = new Set<string>([
  "time",
  "platformId",
  "login",
  "group",
  "kind",
  "ticket",
  "position",
  "symbol",
  "side",
  "entry",
  "volume",
  "price",
  "sl",
  "tp",
  "profit",
  "commission",
  "swap",
  "reason",
  "comment",
] satisfies (keyof BlotterRow)[]);

type Compare = (a: LiveRow, b: LiveRow) => number;

/**
 * As AG Grid's default comparator sorts a column's values (nulls first ascending, numbers by value,
 * strings by code unit), then by arrival, latest first. Unknown columns are ignored.
 */
export function comparatorOf(sort: readonly SortEntry[]): Compare {
  const keys = sort
    .map((entry) => ({ field: FIELD_OF_COLUMN[entry.colId] ?? entry.colId, sign: entry.sort === "desc" ? -1 : 1 }))
    .filter((k): k is { field: keyof BlotterRow; sign: number } => SORTABLE_FIELDS.has(k.field));
  return (a, b) => {
    for (const { field, sign } of keys) {
      const x = a[field];
      const y = b[field];
      if (x === y) continue;
      if (x === null || x === undefined) return -sign;
      if (y === null || y === undefined) return sign;
      return x < y ? -sign : x > y ? sign : 0;
    }
    return b.s - a.s;
  };
}

const sameSort = (a: readonly SortEntry[], b: readonly SortEntry[]) =>
  a.length === b.length && a.every((entry, i) => entry.colId === b[i]!.colId && entry.sort === b[i]!.sort);

export interface LiveRowModel {
  /** Every row replaced by these (a snapshot), in the order they came (later: newer). */
  reset(rows: readonly BlotterRow[]): void;
  /** One batch of the row batcher: adds (new keys), updates (known keys), removals. */
  apply(batch: RowBatch<BlotterRow>): void;
  /** The grid's sort model; everything is sorted again only when it changed. */
  sortBy(sort: readonly SortEntry[]): void;
  /** Rows `start` to `end` (excluded) in the grid's order. */
  slice(start: number, end: number): LiveRow[];
  readonly size: number;
  /** The highest arrival number given so far. */
  readonly seq: number;
}

export function createLiveRowModel(): LiveRowModel {
  let sort: readonly SortEntry[] = DEFAULT_SORT;
  let compare = comparatorOf(sort);
  let rows: LiveRow[] = [];
  let seq = 0;

  const stamp = (row: BlotterRow): LiveRow => {
    const live = row as LiveRow;
    live.s = ++seq;
    return live;
  };

  return {
    reset(next) {
      rows = next.map(stamp).sort(compare);
    },
    apply({ add, update, remove }) {
      if (add.length + update.length + remove.length === 0) return;
      const leaving = new Set<string>();
      for (const row of update) leaving.add(row.key);
      for (const row of remove) leaving.add(row.key);
      const kept = leaving.size === 0 ? rows : rows.filter((row) => !leaving.has(row.key));
      // Changed rows are numbered before new ones: among rows of one time, the new ones come first.
      const incoming = [...update, ...add].map(stamp).sort(compare);
      const merged: LiveRow[] = [];
      let i = 0;
      let j = 0;
      while (i < kept.length && j < incoming.length) merged.push(compare(kept[i]!, incoming[j]!) <= 0 ? kept[i++]! : incoming[j++]!);
      while (i < kept.length) merged.push(kept[i++]!);
      while (j < incoming.length) merged.push(incoming[j++]!);
      rows = merged;
    },
    sortBy(next) {
      const wanted = next.length > 0 ? next : DEFAULT_SORT;
      if (sameSort(wanted, sort)) return;
      sort = wanted;
      compare = comparatorOf(sort);
      rows.sort(compare);
    },
    slice: (start, end) => rows.slice(Math.max(0, start), Math.max(0, end)),
    get size() {
      return rows.length;
    },
    get seq() {
      return seq;
    },
  };
}
