/**
 * Where a page's time goes (bench/tradesBlotter.ts with BENCH_BLOTTER_TRACE=1): Chromium's own
 * trace (devtools.timeline) of a measured phase, summed per thread of the page's renderer (its
 * main thread, the stream worker, the compositor, raster threads) as the share of the window each
 * was busy, and for the main thread the share per kind of work (script, style, layout, paint…).
 */
import type { CDPSession, Page } from "playwright-core";

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  dur?: number;
  /** The thread's own time in the event (CPU time, without the time it waited for a core). */
  tdur?: number;
  args?: {
    name?: string;
    beginData?: { dirtyObjects?: number; totalObjects?: number; partialLayout?: boolean };
    endData?: { rootNode?: number };
    elementCount?: number;
  };
}

/** The work the main thread's tasks are made of, as DevTools names it. */
const MAIN_KINDS = [
  "FunctionCall",
  "TimerFire",
  "FireAnimationFrame",
  "EvaluateScript",
  "UpdateLayoutTree",
  "Layout",
  "PrePaint",
  "Paint",
  "Layerize",
  "Commit",
  "MinorGC",
  "MajorGC",
];

export interface ThreadTrace {
  stop(): Promise<string>;
}

export async function startThreadTrace(page: Page): Promise<ThreadTrace> {
  const cdp: CDPSession = await page.context().newCDPSession(page);
  const events: TraceEvent[] = [];
  cdp.on("Tracing.dataCollected", (data) => void events.push(...(data.value as unknown as TraceEvent[])));
  const complete = new Promise<void>((resolve) => cdp.once("Tracing.tracingComplete", () => resolve()));
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.start");
  await cdp.send("Tracing.start", { categories: "devtools.timeline,disabled-by-default-devtools.timeline", transferMode: "ReportEvents" });
  const started = performance.now();
  return {
    async stop() {
      const seconds = (performance.now() - started) / 1000;
      await cdp.send("Tracing.end");
      await complete;
      const { profile } = await cdp.send("Profiler.stop");
      await cdp.detach();
      const names = new Map<string, string>();
      for (const e of events) if (e.name === "thread_name" && e.args?.name) names.set(`${e.pid}:${e.tid}`, e.args.name);
      // The page's renderer: of the renderers in the trace (other pages of the browser may have one),
      // the one whose main thread worked most.
      const mainBusy = new Map<string, number>();
      for (const e of events) {
        if (e.ph !== "X" || names.get(`${e.pid}:${e.tid}`) !== "CrRendererMain") continue;
        if (e.name === "ThreadControllerImpl::RunTask" || e.name === "RunTask") mainBusy.set(String(e.pid), (mainBusy.get(String(e.pid)) ?? 0) + (e.dur ?? 0));
      }
      const renderer = [...mainBusy].sort((a, b) => b[1] - a[1])[0]?.[0];
      const busy = new Map<string, number>();
      const cpu = new Map<string, number>();
      const main = new Map<string, number>();
      const mainCpu = new Map<string, number>();
      // Each layout's size (Chromium's own counts): how many objects were dirty of how many, and
      // whether it was partial (from a relayout boundary below the document).
      const layouts = { count: 0, ms: 0, dirty: 0, total: 0, partial: 0 };
      const styles = { count: 0, ms: 0, elements: 0 };
      for (const e of events) {
        if (e.ph !== "X" || String(e.pid) !== renderer) continue;
        const thread = names.get(`${e.pid}:${e.tid}`) ?? `thread ${e.tid}`;
        const ms = (e.dur ?? 0) / 1000;
        if (e.name === "ThreadControllerImpl::RunTask" || e.name === "RunTask") {
          busy.set(thread, (busy.get(thread) ?? 0) + ms);
          cpu.set(thread, (cpu.get(thread) ?? 0) + (e.tdur ?? 0) / 1000);
        }
        if (thread === "CrRendererMain" && MAIN_KINDS.includes(e.name)) {
          main.set(e.name, (main.get(e.name) ?? 0) + ms);
          mainCpu.set(e.name, (mainCpu.get(e.name) ?? 0) + (e.tdur ?? 0) / 1000);
        }
        if (thread === "CrRendererMain" && e.name === "UpdateLayoutTree") {
          styles.count++;
          styles.ms += ms;
          styles.elements += e.args?.elementCount ?? 0;
        }
        if (thread === "CrRendererMain" && e.name === "Layout") {
          layouts.count++;
          layouts.ms += ms;
          layouts.dirty += e.args?.beginData?.dirtyObjects ?? 0;
          layouts.total += e.args?.beginData?.totalObjects ?? 0;
          if (e.args?.beginData?.partialLayout) layouts.partial++;
        }
      }
      const each = (v: number) => (layouts.count ? v / layouts.count : 0);
      const layoutLine =
        `${(layouts.count / seconds).toFixed(1)}/s, ${each(layouts.ms).toFixed(2)} ms each, ` +
        `${Math.round(each(layouts.dirty))} of ${Math.round(each(layouts.total))} objects dirty, ${Math.round(100 * each(layouts.partial))}% partial; style recalculations: ${(styles.count / seconds).toFixed(1)}/s, ${(styles.count ? styles.ms / styles.count : 0).toFixed(2)} ms each, ${Math.round(styles.count ? styles.elements / styles.count : 0)} elements`;
      const pct = (ms: number) => `${Math.round(ms / seconds / 10)}%`;
      const threads = [...busy]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 6)
        .map(([t, ms]) => `${t} ${pct(ms)} (CPU ${pct(cpu.get(t) ?? 0)})`);
      const kinds = [...main].sort((a, b) => b[1] - a[1]).map(([k, ms]) => `${k} ${pct(ms)} (CPU ${pct(mainCpu.get(k) ?? 0)})`);
      return `busy: ${threads.join(", ")}; main thread: ${kinds.join(", ")}; layouts: ${layoutLine}; main thread's script by function (self): ${scriptShares(profile)}; by entry (inclusive, two levels): ${entryShares(profile)}`;
    },
  };
}

interface CpuProfile {
  nodes: { id: number; children?: number[]; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number } }[];
  samples?: number[];
}

/** The functions the main thread's samples fell in most (self time), as `name (file:line)` with its share. */
function scriptShares(profile: CpuProfile): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const self = new Map<string, number>();
  const samples = profile.samples ?? [];
  for (const id of samples) {
    const frame = byId.get(id);
    if (!frame) continue;
    const file = frame.url.split("/").pop() || "(native)";
    const key = `${frame.functionName || "(anonymous)"} (${file}:${frame.lineNumber + 1}:${frame.columnNumber + 1})`;
    self.set(key, (self.get(key) ?? 0) + 1);
  }
  return [...self]
    .filter(([k]) => !k.startsWith("(idle)") && !k.startsWith("(program)"))
    .sort((a, b) => b[1] - a[1])
    .slice(0, 12)
    .map(([k, c]) => `${k} ${((100 * c) / Math.max(1, samples.length)).toFixed(1)}%`)
    .join(", ");
}

/** The samples under each function two calls below the task's entry (what a task was doing), inclusive. */
function entryShares(profile: CpuProfile): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const root = profile.nodes.find((n) => !parent.has(n.id))?.id;
  const label = (id: number) => {
    const f = byId.get(id)!.callFrame;
    return `${f.functionName || "(anonymous)"} (${f.url.split("/").pop() || "(native)"}:${f.lineNumber + 1}:${f.columnNumber + 1})`;
  };
  const counts = new Map<string, number>();
  const samples = profile.samples ?? [];
  for (const id of samples) {
    const path: number[] = [];
    for (let cur: number | undefined = id; cur !== undefined && cur !== root; cur = parent.get(cur)) path.unshift(cur);
    if (path.length === 0) continue;
    const key = path.slice(0, 3).map(label).join(" > ");
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts]
    .filter(([k]) => !k.startsWith("(idle)") && !k.startsWith("(program)"))
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10)
    .map(([k, c]) => `[${k}] ${((100 * c) / Math.max(1, samples.length)).toFixed(1)}%`)
    .join(", ");
}
