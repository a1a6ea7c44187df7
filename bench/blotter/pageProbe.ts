/**
 * What bench/tradesBlotter.ts measures inside a page (the blotter and the bare AG Grid page alike),
 * installed before the page's own scripts (`addInitScript`):
 *
 * - `window.__blotterStats`: the grid transactions the page applies (the blotter counts there
 *   through app/features/trades-blotter/benchProbe.ts; the bare page itself);
 * - frames (requestAnimationFrame) and the longest gap between two;
 * - long tasks (PerformanceObserver "longtask": every task over 50 ms);
 * - event → visible latency: a synthetic deal's id ends with the time it was published on the
 *   server's bus (".<ms>"); when its row shows in the rows drawn in view (`.ag-row` elements in
 *   `.ag-grid-scrolling-container`), the latency is taken at the next animation frame, when it is
 *   painted. A row shows in two ways: the client-side row model (and any first draw) adds a row
 *   element; the infinite row model (decision 0062) reuses the element of each row index after a
 *   refresh and only changes its `row-id` attribute. Both are watched, and each id counts once (a
 *   row moving down the view, or both happening to one row, is not counted again).
 */
export interface PageFigures {
  seconds: number;
  frames: number;
  maxFrameGapMs: number;
  longTasks: number;
  longTaskMaxMs: number;
  longTaskTotalMs: number;
  latencies: number[];
  stats: { transactions: number; added: number; updated: number; removed: number; resets: number };
}

/** Runs in the page: keep it self-contained (it is serialized). */
export function installPageProbe(): void {
  // AG Grid 36's container of the rows in view (pinned cells are in the same row element).
  const ROWS = "ag-grid-scrolling-container";
  const w = window as unknown as Record<string, unknown>;
  const stats = { transactions: 0, added: 0, updated: 0, removed: 0, resets: 0 };
  const m = { since: Date.now(), frames: 0, last: 0, maxGap: 0, longTasks: 0, longTaskMax: 0, longTaskTotal: 0, latencies: [] as number[] };
  // The row ids already stamped, in two generations so that the set stays bounded yet always
  // holds the latest SEEN_PER_GENERATION..2× ids (rows still in view are not forgotten at once).
  const SEEN_PER_GENERATION = 50_000;
  const seen = { now: new Set<string>(), before: new Set<string>() };
  w.__blotterStats = stats;
  w.__benchProbe = {
    reset() {
      for (const k of Object.keys(stats)) (stats as Record<string, number>)[k] = 0;
      Object.assign(m, { since: Date.now(), frames: 0, last: 0, maxGap: 0, longTasks: 0, longTaskMax: 0, longTaskTotal: 0, latencies: [] });
      seen.now = new Set();
      seen.before = new Set();
    },
    read() {
      return {
        seconds: (Date.now() - m.since) / 1000,
        frames: m.frames,
        maxFrameGapMs: m.maxGap,
        longTasks: m.longTasks,
        longTaskMaxMs: m.longTaskMax,
        longTaskTotalMs: m.longTaskTotal,
        latencies: m.latencies,
        stats: { ...stats },
      };
    },
  };
  const frame = (t: number) => {
    m.frames++;
    if (m.last > 0) m.maxGap = Math.max(m.maxGap, t - m.last);
    m.last = t;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        m.longTasks++;
        m.longTaskMax = Math.max(m.longTaskMax, e.duration);
        m.longTaskTotal += e.duration;
      }
    }).observe({ type: "longtask" });
  } catch {
    // No long task API: reported as none.
  }
  let stamps: number[] = [];
  let scheduled = false;
  const painted = () => {
    const now = Date.now();
    for (const s of stamps) if (s >= m.since && m.latencies.length < 200_000) m.latencies.push(now - s);
    stamps = [];
    scheduled = false;
  };
  const stamp = (id: string | null) => {
    if (!id || !id.startsWith("d:") || seen.now.has(id) || seen.before.has(id)) return;
    if (seen.now.size >= SEEN_PER_GENERATION) {
      seen.before = seen.now;
      seen.now = new Set();
    }
    seen.now.add(id);
    const ms = Number(id.slice(id.lastIndexOf(".") + 1));
    if (Number.isFinite(ms) && ms > 1e12) stamps.push(ms);
  };
  new MutationObserver((records) => {
    for (const r of records) {
      const target = r.target as Element;
      if (r.type === "childList") {
        // A row element added to the rows in view (client-side model, first draw).
        if (!target.classList?.contains(ROWS)) continue;
        r.addedNodes.forEach((n) => stamp((n as Element).getAttribute?.("row-id") ?? null));
      } else if (target.classList?.contains("ag-row") && target.parentElement?.classList.contains(ROWS)) {
        // An existing row element now showing another row (infinite model after a refresh).
        stamp(target.getAttribute("row-id"));
      }
    }
    if (stamps.length > 0 && !scheduled) {
      scheduled = true;
      requestAnimationFrame(painted);
    }
  }).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ["row-id"] });
}
