/**
 * What bench/quotesMonitor.ts measures inside a page (the monitor and the bare AG Grid page alike),
 * installed before the page's own scripts (`addInitScript`):
 *
 * - frames (requestAnimationFrame), the longest gap between two, long tasks over 50 ms;
 * - tick → visible latency: `fetch` is wrapped so that the body of `/api/quotesMonitor/live` is
 *   teed and read a second time here, keeping each row's `lastTickAt` (the simulated server's time
 *   of its latest tick: the same clock as this machine's); when a Bid cell of a row in view shows
 *   a new text (a mutation inside `[col-id="bid"]`), the latency is taken at the next animation
 *   frame (when it is painted): that time less the row's latest tick. Both pages pay for the tee.
 */
export interface QuotePageFigures {
  seconds: number;
  frames: number;
  maxFrameGapMs: number;
  longTasks: number;
  longTaskMaxMs: number;
  longTaskTotalMs: number;
  latencies: number[];
  /** Rows received on the stream (snapshot and frames: whole rows and ticks) since the reset. */
  rowsReceived: number;
}

/** Runs in the page: keep it self-contained (it is serialized). */
export function installQuotePageProbe(): void {
  const w = window as unknown as Record<string, unknown>;
  const m = { since: Date.now(), frames: 0, last: 0, maxGap: 0, longTasks: 0, longTaskMax: 0, longTaskTotal: 0, latencies: [] as number[], rows: 0 };
  const lastTick = new Map<string, number>();
  w.__benchProbe = {
    reset() {
      Object.assign(m, { since: Date.now(), frames: 0, last: 0, maxGap: 0, longTasks: 0, longTaskMax: 0, longTaskTotal: 0, latencies: [], rows: 0 });
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
        rowsReceived: m.rows,
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
  // The stream read a second time: each row's latest tick.
  const original = window.fetch.bind(window);
  window.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const res = await original(input, init);
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (!url.includes("/api/quotesMonitor/live") || !res.body) return res;
    const [mine, theirs] = res.body.tee();
    void (async () => {
      const reader = mine.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += value;
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const message = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let data = "";
          for (const line of message.split("\n")) if (line.startsWith("data: ")) data += line.slice(6);
          if (!data.startsWith("{")) continue;
          const parsed = JSON.parse(data) as { rows?: { key: string; lastTickAt: number | null }[]; ticks?: [string, number, number, number | null, number][] };
          for (const r of parsed.rows ?? []) if (r.lastTickAt !== null) lastTick.set(r.key, r.lastTickAt);
          for (const t of parsed.ticks ?? []) lastTick.set(t[0], t[4]);
          m.rows += (parsed.rows?.length ?? 0) + (parsed.ticks?.length ?? 0);
        }
      }
    })().catch(() => {});
    return new Response(theirs, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  let pending: number[] = [];
  let scheduled = false;
  const painted = () => {
    const now = Date.now();
    for (const t of pending) if (t >= m.since && m.latencies.length < 500_000) m.latencies.push(now - t);
    pending = [];
    scheduled = false;
  };
  new MutationObserver((records) => {
    const seen = new Set<Element>();
    for (const r of records) {
      const node = r.target.nodeType === 1 ? (r.target as Element) : r.target.parentElement;
      const cell = node?.closest?.('[col-id="bid"]');
      if (!cell || seen.has(cell)) continue;
      seen.add(cell);
      const id = cell.closest(".ag-row")?.getAttribute("row-id");
      const t = id ? lastTick.get(id) : undefined;
      if (t !== undefined) pending.push(t);
    }
    if (pending.length > 0 && !scheduled) {
      scheduled = true;
      requestAnimationFrame(painted);
    }
  }).observe(document, { childList: true, subtree: true, characterData: true });
}
