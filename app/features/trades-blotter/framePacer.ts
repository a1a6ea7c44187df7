/**
 * Paces the live grid's refreshes (docs/decisions/0062): the stream
 * worker says it has rows to take, and the grid (AG Grid's infinite row model) is told to read the
 * rows in view again (`refreshInfiniteCache`), taking them, at an animation frame. Several changes before that
 * frame make one refresh. A refresh costs the grid about the same whatever changed (it draws the
 * rows in view again), so the next follows no sooner than three times as long as the last one took
 * (the refresh call and the drawing of the rows it read back, at least 50 ms, at most 250 ms): a
 * fast machine refreshes every 50 ms, a slow one keeps about two thirds of its frames for drawing
 * and input. A hidden tab gets no frames: there a timer refreshes a few times a second, so the grid
 * is current when the tab comes back.
 *
 * A refresh is over when the grid has the rows it asked for (`done`): the next waits for it. Else,
 * with the worker busy at a high rate, each refresh would make the grid drop the answer to the one
 * before, and no answer would ever land (seen at 20,000 updates a second). A refresh the grid asks
 * nothing for (no block to read) is over after `SETTLE_MS` all the same; one whose rows are still
 * being read (`reading`) is not.
 */

export interface FramePacerOptions {
  /** Tells the grid (one refresh); its time counts toward the pacing. */
  run: () => void;
  /** Rows the grid asked for are still on their way (then a run does not end by the timer). */
  reading?: () => boolean;
  /**
   * Runs `fn` before a paint, no sooner than `delayMs` from now; a timer then `requestAnimationFrame`
   * (a timer alone in a hidden tab) by default.
   */
  schedule?: (fn: () => void, delayMs: number) => void;
  /** The clock the pacing reads (ms); `performance.now` by default. */
  now?: () => number;
  /** `setTimeout` by default (the settle timer). */
  later?: (fn: () => void, ms: number) => void;
}

export interface FramePacer {
  /** Something changed: run at the next paced frame (once, however often this is called before). */
  request(): void;
  /** The grid has the rows the last run made it ask for; `ms`: the time it spent taking them. */
  done(ms: number): void;
  /** Runs now if a run is waiting (tests; closing). */
  flush(): void;
  /** Nothing runs after this. */
  dispose(): void;
}

const HIDDEN_TAB_MS = 250;
/** How long a run waits for `done` before the next may go anyway. */
export const SETTLE_MS = 1_000;
/** The shortest and longest wait between two refreshes, and the wait per ms the last one took. */
export const REFRESH_MIN_GAP_MS = 50;
export const REFRESH_MAX_GAP_MS = 250;
export const GAP_PER_REFRESH_MS = 3;

/** The gap before the next refresh, given how long the last one took. */
export function refreshGap(lastRefreshMs: number): number {
  return Math.min(REFRESH_MAX_GAP_MS, Math.max(REFRESH_MIN_GAP_MS, GAP_PER_REFRESH_MS * lastRefreshMs));
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

export function createFramePacer(options: FramePacerOptions): FramePacer {
  const { run, reading = () => false, schedule = afterThenAtFrame, now = clock } = options;
  const later = options.later ?? ((fn: () => void, ms: number) => void setTimeout(fn, ms));
  /** When the last run ended, and what it cost (the run, then taking the rows it read back). */
  let lastEnded = Number.NEGATIVE_INFINITY;
  let lastCost = 0;
  let waiting = false;
  let scheduled = false;
  /** A run whose rows have not landed yet (its number; 0: none). */
  let running = 0;
  let runs = 0;
  let disposed = false;

  function next() {
    if (disposed || !waiting || scheduled || running !== 0) return;
    scheduled = true;
    schedule(flush, Math.max(0, lastEnded + refreshGap(lastCost) - now()));
  }

  function over(id: number) {
    if (disposed || running !== id) return;
    running = 0;
    next();
  }

  function flush() {
    scheduled = false;
    if (disposed || !waiting || running !== 0) return;
    waiting = false;
    const id = ++runs;
    running = id;
    const started = now();
    run();
    lastEnded = now();
    lastCost = lastEnded - started;
    settleLater(id);
  }

  function settleLater(id: number) {
    later(() => {
      if (running !== id) return;
      if (reading()) settleLater(id);
      else over(id);
    }, SETTLE_MS);
  }

  return {
    request() {
      if (disposed) return;
      waiting = true;
      next();
    },
    done(ms) {
      if (running === 0) return;
      lastCost += ms;
      over(running);
    },
    flush,
    dispose() {
      disposed = true;
      waiting = false;
    },
  };
}
