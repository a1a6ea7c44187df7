import type { RowClassParams, RowClassRules } from "ag-grid-community";

/** How long a new or changed row stays lit. */
export const ROW_FLASH_MS = 1_000;
/**
 * At most this many rows are lit at once, the newest: a light says "this one is new" only while
 * most rows are not. The demo's three servers bring some twenty rows a second, about the rows a
 * screen shows; lit for a second each, every row in view was tinted and the light said nothing.
 */
export const ROW_FLASH_MAX = 5;
/** The class of a lit row (rowFlash.css). */
export const ROW_FLASH_CLASS = "tb-row-fresh";

interface Refresh {
  /** The rows this refresh shows first: those with an arrival number above this. */
  after: number;
  at: number;
  /** False for a snapshot's refresh: every row would flash. */
  flash: boolean;
}

export interface RowFlash<T> {
  /** For `rowClassRules`: AG Grid reads them whenever a drawn row's data changes (each refresh). */
  rules: RowClassRules<T>;
  /**
   * Called when a refresh's rows come, before the grid draws them: those with an arrival number above `after` are new or changed;
   * `newest`, the highest arrival number the refresh holds: only the ROW_FLASH_MAX rows up to it are lit.
   */
  refreshing(after: number, flash: boolean, newest?: number): void;
  dispose(): void;
}

/**
 * New and changed rows of the live blotter are lit for a second, the newest few only, as whole rows: one class on the
 * row, through the grid's own row class rules, set when the row comes and taken off when it is
 * read again after its second. Lit rows stay still (no fade): at 5,000 updates/s nearly every row
 * drawn is new at each refresh, and anything that moves per row per frame cost the page's main
 * thread more than the rows themselves (docs/benchmarks.md, 2026-11-24): AG Grid's `flashCells`
 * toggles classes on every cell three times and fades each cell's background, and a fading layer
 * over each row still restyled the row's cells at every frame.
 *
 * A row is lit while the refresh that first showed its arrival number is less than `ROW_FLASH_MS`
 * old, wherever it is drawn (AG Grid keeps a row node per place: a row that moves down as newer
 * ones come on top is read again in the next place, still lit). When no refresh comes after the
 * last lit one, `expire` has the rows read again once their second is over.
 */
export function createRowFlash<T>(arrivalOf: (row: T) => number, expire: () => void, now: () => number = () => performance.now()): RowFlash<T> {
  const refreshes: Refresh[] = [];
  /** The highest arrival number shown (none given: no bound). */
  let newest: number | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const lit = (s: number): boolean => {
    if (newest !== undefined && s <= newest - ROW_FLASH_MAX) return false;
    // The refresh that first showed `s` is the newest one with a bound below it.
    for (let i = refreshes.length - 1; i >= 0; i--) {
      const refresh = refreshes[i]!;
      if (refresh.after < s) return refresh.flash && now() - refresh.at < ROW_FLASH_MS;
    }
    return false;
  };

  return {
    rules: { [ROW_FLASH_CLASS]: (p: RowClassParams<T>) => p.data !== undefined && lit(arrivalOf(p.data)) },
    refreshing(after, flash, upTo) {
      const at = now();
      if (upTo !== undefined) newest = upTo;
      // Older refreshes light nothing any more; the bounds only grow, so the oldest go first.
      while (refreshes.length > 0 && at - refreshes[0]!.at >= ROW_FLASH_MS) refreshes.shift();
      refreshes.push({ after, at, flash });
      clearTimeout(timer);
      // A little after the last lit row's second, should nothing read the rows before.
      if (flash) timer = setTimeout(expire, ROW_FLASH_MS + 50);
    },
    dispose() {
      clearTimeout(timer);
    },
  };
}
