/**
 * The longest event-loop stall while a large simulated server is created through the real API
 * (POST /api/tradePlatforms → the runtime starts the server, connects, the accounts mirror makes
 * its first sync). Everything else the process does — other organizations' requests, their
 * platforms' timers — waits for as long as the loop is stalled; the target is 50 ms at most
 * (docs/security.md, "Limits per organization"). For `npm run bench`; not a timed test.
 *
 * Two measures: a 1 ms timer chain (each late firing is a stall, attributed to the phase it
 * happened in) and Node's own `monitorEventLoopDelay` histogram as a cross-check.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../server/context.ts";
import { accountsMirrorOf } from "../server/modules/accounts/mirror/plugin.ts";

type Phase = "creating (the POST)" | "building the server and connecting" | "the first sync of the accounts mirror";

function stallRecorder(onTick: () => void) {
  const longest = new Map<Phase, number>();
  let phase: Phase = "creating (the POST)";
  let last = performance.now();
  let timer: ReturnType<typeof setTimeout> | null = null;
  const tick = () => {
    onTick();
    const now = performance.now();
    const stall = now - last - 1;
    if (stall > (longest.get(phase) ?? 0)) longest.set(phase, stall);
    last = now;
    timer = setTimeout(tick, 1);
  };
  timer = setTimeout(tick, 1);
  return {
    enter(next: Phase) {
      phase = next;
    },
    stop() {
      if (timer) clearTimeout(timer);
      return longest;
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
  const longest = recorder.stop();
  const probe = platformId;
  histogram.disable();
  const worst = Math.max(0, ...longest.values());
  for (const [phase, stall] of longest) line(`longest stall while ${phase}: ${stall.toFixed(1)} ms`);
  line(
    `longest event-loop stall: ${worst.toFixed(1)} ms (monitorEventLoopDelay max ${(histogram.max / 1e6).toFixed(1)} ms, p99 ${(histogram.percentile(99) / 1e6).toFixed(1)} ms)`,
  );
  line(`POST answered in ${answeredMs.toFixed(0)} ms; server built, connected and mirrored after ${(totalMs / 1000).toFixed(2)} s`);
  const removed = await app.inject({ method: "DELETE", url: `/api/tradePlatforms/${probe}`, headers, payload: { confirmName: "Stall probe MT5" } });
  if (removed.statusCode !== 204) throw new Error(`deleting the probe platform answered ${removed.statusCode}: ${removed.body}`);
  return worst;
}
