/**
 * The Trades Blotter at speed (docs/requirements.md#r-targets-blotter). The real server — the production build, started
 * as `npm start` starts it (startToolbox), on PostgreSQL, on a loopback port — with the demo
 * organization, one simulated MT5 platform with the blotter assigned, and trade events at 5,000,
 * 10,000 and 20,000 a second on its bus, streamed to headless Chromium on `/apps/trades-blotter`.
 * For each rate, `seconds` each (after a 2 s warm-up):
 *
 * - the blotter page: grid updates applied per second (what it hands AG Grid, counted through
 *   app/features/trades-blotter/benchProbe.ts), frames per second (requestAnimationFrame), long
 *   tasks over 50 ms, event → visible latency p50/p99 (./blotter/pageProbe.ts), bytes per second
 *   of its stream (Chromium's network events), server CPU (process.cpuUsage: the server, the
 *   synthetic publisher and the trade history store's writer, all in this process) and memory;
 * - the same stream read by a bare AG Grid page (./blotter/barePage.ts) at the same rate, and the
 *   ratio of frames per second (blotter / bare);
 * - then 100 SSE subscribers in Node (./blotter/subscribers.ts, a child process; 10 of them stop
 *   reading) at 5,000 events/s: server RSS and heap, the streams' buffered bytes and gathered rows
 *   in total, bytes per second per reading subscriber.
 *
 * The simulated servers trade at most 10,000 actions a second (the quota) and, in real time, make
 * fewer events than actions (closed markets refuse orders): the bench measures what one produces
 * at its maximum and, below the target, publishes synthetic trade events on the bus
 * (./blotter/syntheticTrades.ts) — it says so in its output.
 *
 * `npm run bench -- blotter` runs this alone (a build is needed: `npm run build`);
 * `npm run bench -- blotter subscribers` only its 100 subscribers (Chromium still signs in).
 * BENCH_BLOTTER_SECONDS (10), BENCH_BLOTTER_RATES ("5000,10000,20000"), BENCH_BLOTTER_SUBSCRIBER_RATE
 * (the 100 subscribers' rate, 5000); BENCH_BLOTTER_TRACE=1 adds
 * each page's busy threads, its main thread's kinds of work and its layouts (./blotter/threadTrace.ts);
 * BENCH_BLOTTER_PHASES ("blotter,bare,subscribers"): which phases run (the blotter page alone, say,
 * to try a change quickly; the ratio needs both pages).
 */
import { launchBrowser } from "../tests/e2e/browser.ts";
import crypto from "node:crypto";
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import type { Browser, Page } from "playwright-core";
import { loadConfig } from "../server/config.ts";
import { startToolbox, type Running } from "../server/main.ts";
import { accountsMirrorOf } from "../server/modules/accounts/mirror/plugin.ts";
import { tradeHistoryOf } from "../server/modules/tradeHistory/plugin.ts";
import { agGridBundle, barePageAssets, BARE_PAGE_PATH, BARE_SCRIPT_PATH, barePageHtml } from "./blotter/barePage.ts";
import { installPageProbe, type PageFigures } from "./blotter/pageProbe.ts";
import { startThreadTrace } from "./blotter/threadTrace.ts";
import { publishAtRate, SyntheticTrades, type SyntheticSymbol } from "./blotter/syntheticTrades.ts";
import { withEmptyPostgresDatabase } from "../tests/helpers/postgres.ts";

const DEMO_PASSWORD = "bench-demo-password-1";
const TIME_ZONE = "Europe/Nicosia";
const WARM_UP_MS = 2000;
/** The page probe as a script: tsx keeps function names with a `__name` helper the page does not have. */
const PROBE_SCRIPT = `var __name = (f) => f; (${installPageProbe.toString()})();`;

type Line = (text: string) => void;
const n = (value: number) => Math.round(value).toLocaleString("en-US");
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

/** Server CPU and memory over a window: CPU as a share of one core, the largest RSS and heap sampled. */
function serverMeter(running: Running) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  let rss = 0;
  let heap = 0;
  let buffered = 0;
  let held = 0;
  let pending = 0;
  const history = tradeHistoryOf(running.ctx);
  const writer = history?.liveStats();
  let queued = 0;
  const sample = () => {
    const m = process.memoryUsage();
    rss = Math.max(rss, m.rss);
    heap = Math.max(heap, m.heapUsed);
    const s = running.app.blotterStreams.stats();
    buffered = Math.max(buffered, s.unsentBytes);
    held = Math.max(held, s.heldBytes);
    pending = Math.max(pending, s.gatheredRows);
    queued = Math.max(queued, history?.liveStats().queued ?? 0);
  };
  sample();
  const timer = setInterval(sample, 250);
  return {
    stop() {
      clearInterval(timer);
      sample();
      const used = process.cpuUsage(cpu);
      const seconds = (performance.now() - started) / 1000;
      const after = history?.liveStats();
      // The history store's live writer: its queue at most, and the events dropped for a backfill (decision 0061).
      const historyWriter = { queued, overflows: (after?.overflows ?? 0) - (writer?.overflows ?? 0), dropped: (after?.dropped ?? 0) - (writer?.dropped ?? 0) };
      return { cpu: (used.user + used.system) / 1e6 / seconds, rss, heap, buffered, held, pending, historyWriter, streams: running.app.blotterStreams.stats() };
    },
  };
}

/**
 * Bytes written to the page's blotter stream, counted by the server (one page streams at a time).
 * Chromium's network events cannot see it: the blotter reads its stream in a Web Worker
 * (decision 0062), which a page's CDP session does not cover.
 */
function streamBytes(running: Running) {
  const written = () => running.app.blotterStreams.stats().bytesWritten;
  let from = written();
  return {
    reset: () => void (from = written()),
    read: () => written() - from,
  };
}

interface PhaseFigures {
  page: PageFigures;
  bytes: number;
  published: number;
  server: ReturnType<ReturnType<typeof serverMeter>["stop"]>;
  /** Where the page's time went (BENCH_BLOTTER_TRACE=1), or null. */
  traced: string | null;
}

export async function tradesBlotterBench({ adminUrl, line }: { adminUrl: string; line: Line }): Promise<void> {
  const seconds = Number(process.env.BENCH_BLOTTER_SECONDS ?? 10);
  const rates = (process.env.BENCH_BLOTTER_RATES ?? "5000,10000,20000").split(",").map(Number);
  const phases = (process.env.BENCH_BLOTTER_PHASES ?? "blotter,bare,subscribers").split(",");
  // `npm run bench -- blotter subscribers`: only the 100 subscribers in Node (no rate probe, no grid phases).
  const subscribersOnly = process.argv.slice(2).includes("subscribers");
  line(`== Trades Blotter: the real server streaming to headless Chromium, ${seconds} s per phase ==`);
  if (!fs.existsSync("build/server/index.js")) {
    line("no build: run `npm run build` first");
    return;
  }
  line(
    `load average before: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(", ")} (${os.cpus().length} cores, shared with other work)`,
  );
  await withEmptyPostgresDatabase(adminUrl, "toolbox_bench_blotter", async (databaseUrl) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "toolbox-bench-blotter-"));
    const port = await freePort();
    const base = `http://localhost:${port}`;
    const config = loadConfig({
      NODE_ENV: "production",
      LOG_LEVEL: "silent",
      PORT: String(port),
      HOST: "127.0.0.1",
      PUBLIC_URL: base,
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      DEMO_PASSWORD,
      SECRETS_KEY: crypto.randomBytes(32).toString("base64"),
      // The 100 subscribers are one person's token: above the live-stream caps a person and an
      // organization have (server/http/streamCaps.ts), which the bench is not about.
      TOOLBOX_MAX_LIVE_STREAMS_PER_PERSON: "1000",
      TOOLBOX_MAX_LIVE_STREAMS_PER_ORGANIZATION: "1000",
      // The blotter stream's bounds from the environment, to compare settings (docs/benchmarks.md).
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith("BLOTTER_STREAM_"))),
    });
    const running = await startToolbox(config, { quiet: true });
    let browser: Browser | undefined;
    try {
      browser = await launchBrowser();
      const contextOptions = {
        baseURL: base,
        viewport: { width: 1920, height: 1080 },
        userAgent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36",
      };
      const context = await browser.newContext(contextOptions);
      await context.addInitScript({ content: PROBE_SCRIPT });
      const page = await context.newPage();
      // A page that breaks under load says so here (the first few), rather than only measuring as an idle page.
      let pageErrors = 0;
      const pageError = (text: string) => {
        if (++pageErrors <= 5) line(`  (page error: ${text.replace(/\s+/g, " ").slice(0, 300)})`);
      };
      page.on("pageerror", (error) => pageError(error.message));
      page.on("console", (message) => message.type() === "error" && pageError(message.text()));
      // The dealer's API headers as the app sends them (the latest, should the token renew).
      const headers: Record<string, string> = {};
      page.on("request", (request) => {
        const h = request.headers();
        if (request.url().includes("/api/") && h.authorization && h.organizationid) {
          headers.authorization = h.authorization;
          headers.organizationid = h.organizationid;
          headers["x-requested-with"] = "XMLHttpRequest";
        }
      });

      // Sign in as the demo dealer through the embedded provider.
      await page.goto("/apps/trades-blotter");
      await page.waitForURL((u) => u.pathname.startsWith("/oidc/"), { timeout: 30_000 });
      await page.getByLabel(/email/i).fill("demo@toolbox.local");
      await page.getByLabel(/^password/i).fill(DEMO_PASSWORD);
      await page.getByRole("button", { name: /sign in/i }).click();
      await page.waitForURL(/\/apps\/trades-blotter/, { timeout: 30_000 });
      for (let i = 0; i < 100 && !headers.organizationid; i++) await sleep(100);
      if (!headers.organizationid) throw new Error("the page made no API call with an organization");
      const organizationId = headers.organizationid;
      const api = async (method: "GET" | "POST" | "PUT" | "DELETE", url: string, payload?: unknown) => {
        const res = await running.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
        if (res.statusCode >= 300) throw new Error(`${method} ${url} answered ${res.statusCode}: ${res.body}`);
        return res.body ? res.json<unknown>() : undefined;
      };
      const mirror = accountsMirrorOf(running.ctx)!;

      if (!subscribersOnly) {
        // What the simulated server produces at its highest trade rate (the organization's quota, less what the demo platforms use), in real time.
        const maxRate = running.ctx.config.quotas.simulatedTradeRate - 50;
        const probe = (await api("POST", "/api/tradePlatforms", {
          type: "MT5",
          name: "Rate probe",
          timeZone: TIME_ZONE,
          connection: { kind: "simulated", accounts: 2000, tradeRate: maxRate, seed: 3 },
        })) as { id: string };
        await mirror.whenSynced(probe.id, 60_000);
        let probeEvents = 0;
        const probeSub = running.app.bus.subscribe({ types: ["trade"], organizationId, platformIds: [probe.id] }, () => probeEvents++);
        await sleep(1000);
        probeEvents = 0;
        await sleep(3000);
        probeSub.close();
        const simulatedRate = probeEvents / 3;
        // Deleting a platform trading this fast has answered 500 now and then: try again (and say so).
        for (let attempt = 1; ; attempt++) {
          try {
            await api("DELETE", `/api/tradePlatforms/${probe.id}`, { confirmName: "Rate probe" });
            break;
          } catch (error) {
            if (attempt === 5) throw error;
            line(`(deleting the rate probe failed: ${(error as Error).message.slice(0, 120)}; trying again)`);
            await sleep(1000);
          }
        }
        line(
          `simulated MT5 at its maximum (${n(maxRate)} actions/s, TOOLBOX_MAX_SIMULATED_TRADE_RATE): ${n(simulatedRate)} trade events/s on the bus` +
            (simulatedRate < Math.max(...rates)
              ? ` — short of ${rates
                  .filter((r) => r > simulatedRate)
                  .map(n)
                  .join(" and ")}/s, so every rate below uses SYNTHETIC events (realistic opens, stop changes, ` +
                `closes and their deals on the platform's real logins and symbols, each deal stamped with its publish time), published on the server's bus as the trade feed publishes`
              : " — the events below are still synthetic, to carry publish stamps"),
        );
      }

      // The blotter's platform: a simulated MT5 server that trades by itself only a little, with the app assigned.
      const platform = (await api("POST", "/api/tradePlatforms", {
        type: "MT5",
        name: "Bench MT5",
        timeZone: TIME_ZONE,
        connection: { kind: "simulated", accounts: 2000, tradeRate: 0, seed: 11 },
      })) as { id: string };
      await mirror.whenSynced(platform.id, 60_000);
      await api("PUT", `/api/tradePlatforms/${platform.id}/apps`, [{ app: "tradesBlotter", enabled: true }]);
      const accounts = (await api("GET", `/api/accounts?platformId=${platform.id}&limit=500`)) as { items: { login: string }[] };
      const connector = await running.app.platforms.connectorFor(organizationId, platform.id);
      const quotes = new Map((await connector.getQuotes()).map((q) => [q.symbol, q.bid]));
      const symbols: SyntheticSymbol[] = (await connector.listSymbols())
        .filter((s) => quotes.get(s.name))
        .slice(0, 40)
        .map((s) => ({ name: s.name, digits: s.digits, price: quotes.get(s.name)! }));
      const trades = new SyntheticTrades(
        organizationId,
        platform.id,
        accounts.items.map((a) => a.login),
        symbols,
      );
      line(`platform: ${n(accounts.items.length)} accounts, ${symbols.length} symbols; the Trades Blotter assigned to it alone`);

      if (!subscribersOnly) {
        const bytes = streamBytes(running);
        const bareContext = await browser.newContext(contextOptions);
        await bareContext.addInitScript({ content: PROBE_SCRIPT });
        const bundle = agGridBundle();
        const bareAssets = await barePageAssets();
        let bareHtml = "";
        await bareContext.route(`${base}${BARE_PAGE_PATH}`, (route) => route.fulfill({ contentType: "text/html; charset=utf-8", body: bareHtml }));
        await bareContext.route(`${base}${BARE_SCRIPT_PATH}`, (route) => route.fulfill({ contentType: "text/javascript; charset=utf-8", body: bundle }));
        const barePage = await bareContext.newPage();
        const bareBytes = streamBytes(running);

        const measure = async (target: Page, meter: { reset(): void; read(): number }, rate: number, open: () => Promise<void>): Promise<PhaseFigures> => {
          const publisher = publishAtRate(running.app.bus, trades, rate);
          try {
            return await measureWhile(publisher, target, meter, open);
          } finally {
            await publisher.stop();
          }
        };
        const measureWhile = async (
          publisher: ReturnType<typeof publishAtRate>,
          target: Page,
          meter: { reset(): void; read(): number },
          open: () => Promise<void>,
        ): Promise<PhaseFigures> => {
          await open();
          await sleep(WARM_UP_MS);
          await target.evaluate(() => (window as unknown as { __benchProbe: { reset(): void } }).__benchProbe.reset());
          meter.reset();
          const server = serverMeter(running);
          const publishedBefore = publisher.published();
          const t0 = performance.now();
          const trace = process.env.BENCH_BLOTTER_TRACE ? await startThreadTrace(target) : null;
          await sleep(seconds * 1000);
          const traced = trace ? await trace.stop() : null;
          const figures = await target.evaluate(() => (window as unknown as { __benchProbe: { read(): PageFigures } }).__benchProbe.read());
          const received = meter.read();
          const serverFigures = server.stop();
          const published = (publisher.published() - publishedBefore) / ((performance.now() - t0) / 1000);
          await target.goto("about:blank");
          await sleep(500);
          return { page: figures, bytes: received, published, server: serverFigures, traced };
        };

        const print = (name: string, f: PhaseFigures) => {
          const s = f.page.seconds;
          const lat = f.page.latencies;
          line(
            `  ${name.padEnd(9)} ${n((f.page.stats.added + f.page.stats.updated) / s)} row updates/s applied in ${n(f.page.stats.transactions / s)} transactions/s, ` +
              `${(f.page.frames / s).toFixed(1)} fps (longest frame ${f.page.maxFrameGapMs.toFixed(0)} ms), ` +
              `${f.page.longTasks} long tasks (max ${f.page.longTaskMaxMs.toFixed(0)} ms, ${f.page.longTaskTotalMs.toFixed(0)} ms in all), ` +
              `event→visible p50 ${percentile(lat, 50).toFixed(0)} ms p99 ${percentile(lat, 99).toFixed(0)} ms (${n(lat.length)} rows seen), ` +
              `${kb(f.bytes / s)}/s received`,
          );
          line(
            `            server: ${n(f.published)} events/s published, CPU ${(f.server.cpu * 100).toFixed(0)}% of a core, RSS ≤ ${mb(f.server.rss)}, heap ≤ ${mb(f.server.heap)}, ` +
              `stream buffers ≤ ${kb(f.server.held)} held (≤ ${kb(f.server.buffered)} counted per stream) and ≤ ${n(f.server.pending)} rows gathered, ` +
              `${f.server.streams.each.reduce((t, c) => t + Math.max(0, c.snapshots - 1), 0)} resynchronizing snapshots; ` +
              `history writer ≤ ${n(f.server.historyWriter.queued)} queued, ${n(f.server.historyWriter.overflows)} overflows (${n(f.server.historyWriter.dropped)} events dropped)`,
          );
          if (f.traced) line(`            page: ${f.traced}`);
        };

        let viewport = { width: 1100, height: 600 };
        for (const rate of rates) {
          line("");
          line(`${n(rate)} events/s:`);
          const blotter = phases.includes("blotter")
            ? await measure(page, bytes, rate, async () => {
                await page.goto("/apps/trades-blotter");
                await page
                  .locator('[role="region"][aria-label="Trades"] .ag-grid-scrolling-container')
                  .waitFor({ state: "attached", timeout: 30_000 })
                  .catch(async (error: unknown) => {
                    const shot = path.join(os.tmpdir(), "toolbox-bench-blotter.png");
                    await page.screenshot({ path: shot }).catch(() => {});
                    const text = await page.evaluate(() => document.body.innerText.replace(/\s+/g, " ").slice(0, 400)).catch(() => "");
                    throw new Error(`the blotter's grid did not show (screenshot: ${shot}; the page says: ${text})`, { cause: error });
                  });
                const box = await page.locator('[role="region"][aria-label="Trades"]').boundingBox();
                if (box) viewport = { width: Math.round(box.width), height: Math.round(box.height) };
              })
            : null;
          if (blotter) print("blotter", blotter);
          bareHtml = barePageHtml({ headers, width: viewport.width, height: viewport.height, timeZone: TIME_ZONE, assets: bareAssets });
          const bare = phases.includes("bare")
            ? await measure(barePage, bareBytes, rate, async () => {
                await barePage.goto(`${base}${BARE_PAGE_PATH}`);
                await barePage.locator(".ag-grid-scrolling-container").waitFor({ state: "attached", timeout: 30_000 });
              })
            : null;
          if (bare) print("bare grid", bare);
          if (blotter && bare) {
            const ratio = blotter.page.frames / blotter.page.seconds / (bare.page.frames / bare.page.seconds);
            line(`  fps blotter / bare: ${ratio.toFixed(2)}× (target ≥ 0.9×)`);
          }
        }
        await barePage.close();
        await page.close();
      }

      if (phases.includes("subscribers")) {
        // 100 subscribers in Node.
        const count = 100;
        const slow = 10;
        const rate = Number(process.env.BENCH_BLOTTER_SUBSCRIBER_RATE ?? 5000);
        line("");
        line(`${count} SSE subscribers in Node (${slow} of them stop reading after 1 s) at ${n(rate)} events/s:`);
        const idle = process.memoryUsage();
        const publisher = publishAtRate(running.app.bus, trades, rate);
        const child = spawn(
          process.execPath,
          ["--import", "tsx", "bench/blotter/subscribers.ts"],
          // In the environment, not on the command line (where `ps` would show the token).
          {
            stdio: ["pipe", "pipe", "inherit"],
            env: { ...process.env, BENCH_SUBSCRIBERS: JSON.stringify({ url: `http://127.0.0.1:${port}/api/tradesBlotter/stream`, headers, count, slow }) },
          },
        );
        const lines = readline.createInterface({ input: child.stdout });
        // A server that cannot keep up may never answer every subscriber: give up after a minute, and say so.
        const nextLine = () =>
          Promise.race([
            new Promise<string>((resolve) => lines.once("line", resolve)),
            sleep(60_000).then(() => {
              child.kill();
              const m = process.memoryUsage();
              throw new Error(`the subscribers' child got no answer within 60 s (server RSS ${mb(m.rss)}, heap ${mb(m.heapUsed)}): stopped`);
            }),
          ]);
        const ready = JSON.parse(await nextLine()) as { statuses: number[] };
        const ok = ready.statuses.filter((s) => s === 200).length;
        await sleep(WARM_UP_MS);
        child.stdin.write("start\n");
        const serializedBefore = running.app.blotterStreams.stats().serialized;
        const server = serverMeter(running);
        await sleep(seconds * 1000);
        const result = nextLine();
        child.stdin.write("stop\n");
        const done = JSON.parse(await result) as { seconds: number; bytes: number[] };
        const figures = server.stop();
        await publisher.stop();
        const reading = done.bytes.slice(0, count - slow);
        const stalled = done.bytes.slice(count - slow);
        const perReader = reading.reduce((t, b) => t + b, 0) / reading.length / done.seconds;
        const snapshots = figures.streams.each.reduce((t, c) => t + Math.max(0, c.snapshots - 1), 0);
        line(
          `  ${ok} of ${count} streams open; ${kb(perReader)}/s per reading subscriber (min ${kb(Math.min(...reading) / done.seconds)}/s); ` +
            `the stopped ones received ${kb(stalled.reduce((t, b) => t + b, 0) / stalled.length)} each in ${done.seconds.toFixed(0)} s`,
        );
        line(
          `  server: CPU ${(figures.cpu * 100).toFixed(0)}% of a core, RSS ${mb(idle.rss)} before → ≤ ${mb(figures.rss)}, heap ${mb(idle.heapUsed)} → ≤ ${mb(figures.heap)}; ` +
            `all streams' buffers ≤ ${kb(figures.held)} held, each buffer once (≤ ${kb(figures.buffered)} counted per stream; bound: a second of the channel's bytes, ${kb(running.ctx.config.blotterStream.maxBufferedBytes)}–${mb(running.ctx.config.blotterStream.maxBufferedBytesCap)} unsent per stream, ` +
            `${mb(running.ctx.config.blotterStream.maxTotalBytes)} and ${n(running.ctx.config.blotterStream.maxTotalRows)} rows gathered per node), ≤ ${n(figures.pending)} rows gathered; ` +
            `${snapshots} resynchronizing snapshots sent after a stream passed its bound, ${figures.streams.budgetResyncs} streams stopped and ${figures.streams.budgetEnds} ended for the node's budget; ${figures.streams.channels.length} channel(s), ` +
            `${n(figures.streams.serialized - serializedBefore)} frames serialized in the window`,
        );
        await new Promise((r) => child.once("exit", r));
      }
    } finally {
      await browser?.close();
      await running.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
  line(
    `load average after: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(", ")}`,
  );
}
