/**
 * The longest event-loop stall while a large simulated server is created through the real API
 * (POST /api/tradePlatforms → the runtime starts the server, connects, the accounts mirror makes
 * its first sync). Everything else the process does — other organizations' requests, their
 * platforms' timers — waits for as long as the loop is stalled; the target is 50 ms at most
 * (docs/security.md, "Limits per organization"). For `npm run bench`; not a timed test.
 *
 * Measures: a 1 ms timer chain (each late firing is a stall, attributed to the phase it happened
 * in), Node's own `monitorEventLoopDelay` histogram as a cross-check, and, on Linux, how much of
 * each stall the event loop's thread actually ran: the target is about work that blocks the loop,
 * and on a small machine part of a stall is only waiting for a core.
 */
import { appendFileSync, readFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { monitorEventLoopDelay, PerformanceObserver, type PerformanceEntry } from "node:perf_hooks";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../server/context.ts";
import { accountsMirrorOf } from "../server/modules/accounts/mirror/plugin.ts";

type Phase = "creating (the POST)" | "building the server and connecting" | "the first sync of the accounts mirror";

/**
 * The event loop's thread's own time on a CPU and waiting for one, in ms, from Linux's
 * schedstat; null elsewhere. A stall is the loop's own work only as far as it ran: on a machine
 * with two cores, the database thread and the garbage collector's helpers can keep it waiting for
 * a core although nothing on it blocks.
 */
export function threadCpuReader(): (() => { ran: number; waited: number }) | null {
  const path = `/proc/self/task/${process.pid}/schedstat`;
  try {
    readFileSync(path, "utf8");
  } catch {
    return null;
  }
  return () => {
    const [ran = 0, waited = 0] = readFileSync(path, "utf8").split(" ").map(Number);
    return { ran: ran / 1e6, waited: waited / 1e6 };
  };
}

interface Stall {
  /** Wall time between two firings of the 1 ms timer, less the 1 ms. */
  wall: number;
  /** Of which the event loop's thread ran (null where the OS does not say). */
  ran: number | null;
}

interface TimedStall extends Stall {
  start: number;
  end: number;
}

/** Node's names for a garbage collection's `detail.kind` (perf_hooks constants). */
const GC_KINDS: Record<number, string> = { 1: "minor (scavenge)", 2: "major (mark-compact)", 4: "incremental marking", 8: "weak callbacks" };

/**
 * Garbage-collection pauses (Node's "gc" performance entries) and how much of each stall they
 * took: the collector's pauses are the loop's own work too, but they come from how much the
 * process holds and allocates, not from one stretch of our code. A pause's duration is wall time.
 */
function gcRecorder() {
  const pauses: PerformanceEntry[] = [];
  const observer = new PerformanceObserver((list) => pauses.push(...list.getEntries()));
  observer.observe({ entryTypes: ["gc"] });
  return {
    stop(stalls: readonly TimedStall[]) {
      pauses.push(...observer.takeRecords());
      observer.disconnect();
      const within = (stall: TimedStall) =>
        pauses.reduce((sum, p) => sum + Math.max(0, Math.min(stall.end, p.startTime + p.duration) - Math.max(stall.start, p.startTime)), 0);
      const longestPause = pauses.reduce<PerformanceEntry | null>((a, p) => (a && a.duration >= p.duration ? a : p), null);
      /** The longest stall once its collections are taken out (wall time, so it includes any wait for a core outside them). */
      let longestLessGc = 0;
      for (const stall of stalls) longestLessGc = Math.max(longestLessGc, stall.wall - within(stall));
      const kind = (p: PerformanceEntry) => GC_KINDS[(p as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind ?? 0] ?? "other";
      return {
        pauses: pauses.length,
        over20: pauses.filter((p) => p.duration > 20).length,
        longestPause: longestPause ? `${longestPause.duration.toFixed(1)} ms, ${kind(longestPause)}` : "none",
        longestLessGc,
        gcIn: within,
      };
    },
  };
}

function stallRecorder(onTick: () => void) {
  const longest = new Map<Phase, Stall>();
  /** The longest stall counting only the loop's own running time. */
  let longestRun = 0;
  let longestRunStall: TimedStall | null = null;
  /** Stalls of 5 ms or more, to set against the collector's pauses. */
  const notable: TimedStall[] = [];
  const gc = gcRecorder();
  /** Stalls over the 50 ms target: by wall time, and by the loop's own running time. */
  const over = { wall: 0, ran: 0 };
  /**
   * With BENCH_STALL_LOG=<file>: each stall of 20 ms or more, one JSON line with its end on the
   * monotonic clock in µs (the clock of `--cpu-prof` profiles), to find the profile's samples in it.
   */
  const logFile = process.env.BENCH_STALL_LOG;
  let phase: Phase = "creating (the POST)";
  const cpu = threadCpuReader();
  let last = performance.now();
  let lastCpu = cpu?.() ?? null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const tick = () => {
    onTick();
    const now = performance.now();
    const nowCpu = cpu?.() ?? null;
    const stall: Stall = { wall: now - last - 1, ran: nowCpu && lastCpu ? Math.min(now - last, nowCpu.ran - lastCpu.ran) : null };
    if (stall.wall > (longest.get(phase)?.wall ?? 0)) longest.set(phase, stall);
    const timed = { ...stall, start: last, end: now };
    if ((stall.ran ?? stall.wall) > longestRun) {
      longestRun = stall.ran ?? stall.wall;
      longestRunStall = timed;
    }
    if (stall.wall >= 5) notable.push(timed);
    if (stall.wall > 50) over.wall++;
    if ((stall.ran ?? stall.wall) > 50) over.ran++;
    if (logFile && stall.wall >= 20)
      appendFileSync(logFile, `${JSON.stringify({ endUs: Number(process.hrtime.bigint() / 1000n), wall: stall.wall, ran: stall.ran, phase })}\n`);
    last = now;
    lastCpu = nowCpu;
    timer = setTimeout(tick, 1);
  };
  timer = setTimeout(tick, 1);
  return {
    enter(next: Phase) {
      phase = next;
    },
    stop() {
      if (timer) clearTimeout(timer);
      const collections = gc.stop(notable);
      const runGc = longestRunStall ? collections.gcIn(longestRunStall) : 0;
      return { longest, longestRun, runGc, collections, over, cpuKnown: cpu !== null };
    },
  };
}

export async function measurePlatformCreationStall(options: {
  app: FastifyInstance;
  ctx: AppContext;
  headers: Record<string, string>;
  accounts: number;
  line: (text: string) => void;
}): Promise<number> {
  const { app, ctx, headers, accounts, line } = options;
  const mirror = accountsMirrorOf(ctx);
  line("");
  line(`== Event loop while a ${accounts.toLocaleString("en-US")}-account simulated server is created (target: no stall over 50 ms) ==`);
  const loadBefore = loadavg()[0]!;
  // Let the loop settle first (the app just started).
  await new Promise((r) => setTimeout(r, 200));
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  let platformId: string | null = null;
  const recorder = stallRecorder(() => {
    if (platformId && app.platforms.state(platformId).state === "connected") recorder.enter("the first sync of the accounts mirror");
  });
  const started = performance.now();
  const created = await app.inject({
    method: "POST",
    url: "/api/tradePlatforms",
    headers,
    payload: { type: "MT5", name: "Stall probe MT5", timeZone: "UTC", connection: { kind: "simulated", accounts, tradeRate: 10, seed: 7 } },
  });
  if (created.statusCode !== 201) throw new Error(`creating the platform answered ${created.statusCode}: ${created.body}`);
  const answeredMs = performance.now() - started;
  recorder.enter("building the server and connecting");
  platformId = created.json().id as string;
  if (mirror) await mirror.whenSynced(platformId, 300_000);
  else throw new Error("the accounts mirror is not running");
  const totalMs = performance.now() - started;
  const { longest, longestRun, runGc, collections, over, cpuKnown } = recorder.stop();
  const probe = platformId;
  histogram.disable();
  const worst = Math.max(0, ...[...longest.values()].map((s) => s.wall));
  for (const [phase, stall] of longest)
    line(`longest stall while ${phase}: ${stall.wall.toFixed(1)} ms${stall.ran === null ? "" : ` (the event loop ran ${stall.ran.toFixed(1)} ms of it)`}`);
  line(
    `longest event-loop stall: ${worst.toFixed(1)} ms (monitorEventLoopDelay max ${(histogram.max / 1e6).toFixed(1)} ms, p99 ${(histogram.percentile(99) / 1e6).toFixed(1)} ms)`,
  );
  if (cpuKnown)
    line(
      `longest stall of the event loop's own work: ${longestRun.toFixed(1)} ms, garbage collection ${runGc.toFixed(1)} ms of that stall (target 50 ms; the rest of a stall is waiting for a CPU, on ${availableParallelism()} cores)`,
    );
  line(
    `garbage collection: ${collections.pauses} pauses, ${collections.over20} over 20 ms, the longest ${collections.longestPause}; ` +
      `the longest stall without its collections: ${collections.longestLessGc.toFixed(1)} ms (wall)`,
  );
  line(`stalls over 50 ms: ${over.wall} by wall time${cpuKnown ? `, ${over.ran} by the event loop's own work` : ""}`);
  line(`load average (1 min): ${loadBefore.toFixed(2)} before, ${loadavg()[0]!.toFixed(2)} after`);
  line(`POST answered in ${answeredMs.toFixed(0)} ms; server built, connected and mirrored after ${(totalMs / 1000).toFixed(2)} s`);
  const removed = await app.inject({ method: "DELETE", url: `/api/tradePlatforms/${probe}`, headers, payload: { confirmName: "Stall probe MT5" } });
  if (removed.statusCode !== 204) throw new Error(`deleting the probe platform answered ${removed.statusCode}: ${removed.body}`);
  return worst;
}
