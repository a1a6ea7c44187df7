/**
 * The Quotes Monitor at speed (issue 29): 5 simulated servers × 2,000 symbols × 5 ticks a second
 * each (50,000 ticks/s) into one open page. The real server (the production build, started as
 * `npm start` starts it, on PostgreSQL, on a loopback port) with the demo organization; five
 * simulated MT5 platforms (10 accounts, no trading) with the monitor assigned; Chromium signed in
 * as the demo dealer on `/apps/quotes-monitor`, then a bare AG Grid page (./quotes/barePage.ts)
 * reading the same live stream: `seconds` each after a warm-up, frames per second, long tasks,
 * tick → visible p50/p99 (./quotes/pageProbe.ts), the server's CPU (this process: the server and
 * the five simulated servers) per 10,000 ticks/s, and the ratio of frames per second.
 *
 * The simulated servers have 12 symbols each; the bench gives each 1,988 more (BENCH0001…, always
 * open like crypto, so the run works at any hour) and a tick rate of 5 a second to all 2,000, on
 * the server objects of this process, after the platform connects and before the monitor is
 * assigned (the monitor reads a platform's symbols when it starts following it). This reaches into
 * the simulated engine's private feed (bench only: no product option for it); those changes are
 * not in the platform's command log.
 *
 * `npm run bench -- quotes` runs this alone (a build is needed: `npm run build`).
 * BENCH_QUOTES_SECONDS (10), BENCH_QUOTES_SERVERS (5), BENCH_QUOTES_SYMBOLS (2000 per server),
 * BENCH_QUOTES_RATE (5 ticks/s per symbol), BENCH_QUOTES_ROUNDS (2: monitor, bare, monitor, bare,
 * then the figures over all rounds), BENCH_QUOTES_PROFILE=<file>: the monitor page's first phase
 * as a V8 CPU profile of the server process (node:inspector) and Chromium's trace of the page.
 */
import { launchBrowser } from "../tests/e2e/browser.ts";
import crypto from "node:crypto";
import fs from "node:fs";
import inspector from "node:inspector/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type { Browser, CDPSession, Page } from "playwright-core";
import { loadConfig } from "../server/config.ts";
import { startToolbox, type Running } from "../server/main.ts";
import type { Quote, TradeSymbol } from "../core/trading/index.ts";
import { installQuotePageProbe, type QuotePageFigures } from "./quotes/pageProbe.ts";
import { agGridBundle, QUOTES_BARE_PAGE_PATH, QUOTES_BARE_SCRIPT_PATH, quotesBarePageHtml } from "./quotes/barePage.ts";
import { withEmptyPostgresDatabase } from "../tests/helpers/postgres.ts";

const DEMO_PASSWORD = "bench-demo-password-1";
const WARM_UP_MS = 5000;
const PROBE_SCRIPT = `var __name = (f) => f; (${installQuotePageProbe.toString()})();`;

type Line = (text: string) => void;
const n = (value: number) => Math.round(value).toLocaleString("en-US");
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(", ");

/** The mean of a figure over phases. */
function phases<T>(list: T[], figure: (item: T) => number): number {
  return list.reduce((sum, item) => sum + figure(item), 0) / Math.max(1, list.length);
}

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

/** The parts of the simulated engine's price feed the bench reaches (private in the product). */
interface FeedInside {
  feeds: Map<string, { symbol: TradeSymbol; mid: number; volatility: number; quote: Quote }>;
  quoteOf(feed: unknown, now: number): Quote;
  control(symbol: string, change: { ticksPerSecond?: number | null }): boolean;
  listen(listener: (ticks: readonly Quote[]) => void): () => void;
}
interface EngineInside {
  ctx: { feed: FeedInside; state: { symbols: Map<string, TradeSymbol> } };
}

/** Gives a simulated server `total` symbols (the catalog's and synthetic ones), each ticking `rate` times a second. */
function widenFeed(running: Running, platformId: string, total: number, rate: number): FeedInside {
  const server = running.app.platforms.simulatedServer(platformId);
  if (!server) throw new Error(`no simulated server in this process for ${platformId}`);
  const engine = (server as unknown as { raw: EngineInside }).raw;
  const { feed, state } = engine.ctx;
  const model = state.symbols.get("BTCUSD")!;
  const now = Date.now();
  for (let i = 1; state.symbols.size < total; i++) {
    const name = `BENCH${String(i).padStart(4, "0")}`;
    const symbol: TradeSymbol = {
      ...model,
      name,
      description: `Bench synthetic ${i}`,
      path: `Bench\\Synthetic\\${name}`,
      digits: 5,
      spread: 10 + (i % 20),
      baseCurrency: "USD",
      profitCurrency: "USD",
    };
    state.symbols.set(name, symbol);
    const entry = { symbol, mid: 1 + (i % 100) / 10, volatility: 0.00006, quote: { symbol: name, bid: 0, ask: 0, time: now } };
    entry.quote = feed.quoteOf(entry, now);
    feed.feeds.set(name, entry);
  }
  for (const name of state.symbols.keys()) feed.control(name, { ticksPerSecond: rate });
  return feed;
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number }[];
  samples?: number[];
  timeDeltas?: number[];
}

/** A CPU profile's heaviest functions by self time (function, file:line), as lines. */
function topSelf(profile: CpuProfile, count: number): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  let total = 0;
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const node = byId.get(samples[i]!);
    if (!node) continue;
    const us = deltas[i + 1] ?? deltas[i] ?? 0;
    const { functionName, url, lineNumber } = node.callFrame;
    const key = `${functionName || "(anonymous)"} ${url ? `${url.replace(/^.*\/(node_modules|assets|work)\//, "$1/")}:${lineNumber + 1}` : ""}`.trim();
    self.set(key, (self.get(key) ?? 0) + us);
    total += us;
  }
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([key, us]) => `    ${(us / 1000).toFixed(0).padStart(6)} ms ${((us / Math.max(1, total)) * 100).toFixed(1).padStart(5)} %  ${key}`)
    .join("\n");
}

interface Phase {
  page: QuotePageFigures;
  ticks: number;
  cpu: number;
  rss: number;
  loadAfter: string;
}

export async function quotesMonitorBench({ adminUrl, line }: { adminUrl: string; line: Line }): Promise<void> {
  const seconds = Number(process.env.BENCH_QUOTES_SECONDS ?? 10);
  const servers = Number(process.env.BENCH_QUOTES_SERVERS ?? 5);
  const symbols = Number(process.env.BENCH_QUOTES_SYMBOLS ?? 2000);
  const rate = Number(process.env.BENCH_QUOTES_RATE ?? 5);
  const rounds = Math.max(1, Number(process.env.BENCH_QUOTES_ROUNDS ?? 2));
  const profile = process.env.BENCH_QUOTES_PROFILE;
  line(
    `== Quotes Monitor: ${servers} servers × ${n(symbols)} symbols × ${rate} ticks/s (${n(servers * symbols * rate)} ticks/s) to headless Chromium, ${seconds} s per page, ${rounds} interleaved rounds ==`,
  );
  if (!fs.existsSync("build/server/index.js")) {
    line("no build: run `npm run build` first");
    return;
  }
  line(`load average before: ${load()} (${os.cpus().length} cores, shared with other work)`);
  await withEmptyPostgresDatabase(adminUrl, "toolbox_bench_quotes", async (databaseUrl) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "toolbox-bench-quotes-"));
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
      // The demo organization's three simulated platforms and the bench's five.
      TOOLBOX_MAX_SIMULATED_PLATFORMS: "10",
    });
    const running = await startToolbox(config, { quiet: true });
    let browser: Browser | undefined;
    const stopTicks: (() => void)[] = [];
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
      let pageErrors = 0;
      const pageError = (text: string) => {
        if (++pageErrors <= 5) line(`  (page error: ${text.replace(/\s+/g, " ").slice(0, 300)})`);
      };
      page.on("pageerror", (error) => pageError(error.message));
      page.on("console", (message) => message.type() === "error" && pageError(message.text()));
      const headers: Record<string, string> = {};
      page.on("request", (request) => {
        const h = request.headers();
        if (request.url().includes("/api/") && h.authorization && h.organizationid) {
          headers.authorization = h.authorization;
          headers.organizationid = h.organizationid;
          headers["x-requested-with"] = "XMLHttpRequest";
        }
      });

      await page.goto("/apps/quotes-monitor");
      await page.waitForURL((u) => u.pathname.startsWith("/oidc/"), { timeout: 30_000 });
      await page.getByLabel(/email/i).fill("demo@toolbox.local");
      await page.getByLabel(/^password/i).fill(DEMO_PASSWORD);
      await page.getByRole("button", { name: /sign in/i }).click();
      await page.waitForURL(/\/apps\/quotes-monitor/, { timeout: 30_000 });
      for (let i = 0; i < 100 && !headers.organizationid; i++) await sleep(100);
      if (!headers.organizationid) throw new Error("the page made no API call with an organization");
      const api = async (method: "GET" | "POST" | "PUT" | "DELETE", url: string, payload?: unknown) => {
        const res = await running.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
        if (res.statusCode >= 300) throw new Error(`${method} ${url} answered ${res.statusCode}: ${res.body}`);
        return res.body ? res.json<unknown>() : undefined;
      };

      // Five simulated servers, widened, then the monitor assigned to each.
      let ticks = 0;
      const ids: string[] = [];
      for (let i = 1; i <= servers; i++) {
        const platform = (await api("POST", "/api/tradePlatforms", {
          type: "MT5",
          name: `Quotes ${i}`,
          timeZone: "UTC",
          connection: { kind: "simulated", accounts: 10, tradeRate: 0, seed: 20 + i },
        })) as { id: string };
        ids.push(platform.id);
        for (let t = 0; t < 300 && !running.app.platforms.simulatedServer(platform.id); t++) await sleep(100);
        const feed = widenFeed(running, platform.id, symbols, rate);
        stopTicks.push(feed.listen((batch) => void (ticks += batch.length)));
      }
      for (const id of ids) await api("PUT", `/api/tradePlatforms/${id}/apps`, [{ app: "quotesMonitor", enabled: true }]);
      line(
        `platforms: ${servers} simulated MT5, ${n(symbols)} symbols each (12 of the catalog, the rest synthetic), ${rate} ticks/s per symbol; the monitor assigned to them alone`,
      );

      const measure = async (target: Page, open: () => Promise<void>, profiled: boolean): Promise<Phase> => {
        await open();
        await sleep(WARM_UP_MS);
        await target.evaluate(() => (window as unknown as { __benchProbe: { reset(): void } }).__benchProbe.reset());
        const session = profiled ? new inspector.Session() : null;
        let pageProfiler: CDPSession | null = null;
        if (session) {
          session.connect();
          await session.post("Profiler.enable");
          await session.post("Profiler.start");
          pageProfiler = await target.context().newCDPSession(target);
          await pageProfiler.send("Profiler.enable");
          await pageProfiler.send("Profiler.start");
        }
        const cpu0 = process.cpuUsage();
        const ticks0 = ticks;
        const t0 = performance.now();
        let rss = 0;
        const sampler = setInterval(() => (rss = Math.max(rss, process.memoryUsage().rss)), 250);
        await sleep(seconds * 1000);
        clearInterval(sampler);
        const elapsed = (performance.now() - t0) / 1000;
        const used = process.cpuUsage(cpu0);
        const tickRate = (ticks - ticks0) / elapsed;
        const figures = await target.evaluate(() => (window as unknown as { __benchProbe: { read(): QuotePageFigures } }).__benchProbe.read());
        if (session) {
          const { profile: cpuProfile } = await session.post("Profiler.stop");
          fs.writeFileSync(`${profile}.server.cpuprofile`, JSON.stringify(cpuProfile));
          session.disconnect();
          const { profile: pageProfile } = await pageProfiler!.send("Profiler.stop");
          fs.writeFileSync(`${profile}.page.cpuprofile`, JSON.stringify(pageProfile));
          await pageProfiler!.detach();
          line(`  where the server's time went (self time, top 15):\n${topSelf(cpuProfile, 15)}`);
          line(`  where the monitor page's main thread went (self time, top 15):\n${topSelf(pageProfile, 15)}`);
        }
        const loadAfter = load();
        await target.goto("about:blank");
        await sleep(1000);
        return { page: figures, ticks: tickRate, cpu: (used.user + used.system) / 1e6 / elapsed, rss, loadAfter };
      };

      const print = (name: string, f: Phase) => {
        const s = f.page.seconds;
        const lat = f.page.latencies;
        line(
          `  ${name.padEnd(9)} ${(f.page.frames / s).toFixed(1)} fps (longest frame ${f.page.maxFrameGapMs.toFixed(0)} ms), ` +
            `${f.page.longTasks} long tasks (max ${f.page.longTaskMaxMs.toFixed(0)} ms, ${f.page.longTaskTotalMs.toFixed(0)} ms in all), ` +
            `tick→visible p50 ${percentile(lat, 50).toFixed(0)} ms p90 ${percentile(lat, 90).toFixed(0)} ms p99 ${percentile(lat, 99).toFixed(0)} ms max ${percentile(lat, 100).toFixed(0)} ms (${n(lat.length)} bid cells seen), ` +
            `${n(f.page.rowsReceived / s)} rows/s received`,
        );
        line(
          `            server: ${n(f.ticks)} ticks/s made, CPU ${(f.cpu * 100).toFixed(0)}% of a core (${((f.cpu * 100 * 10_000) / Math.max(1, f.ticks)).toFixed(1)}% per 10,000 ticks/s; the process runs the server and the simulated servers), RSS ≤ ${mb(f.rss)}; load after ${f.loadAfter}`,
        );
      };

      let viewport = { width: 1600, height: 800 };
      const openMonitor = async () => {
        await page.goto("/apps/quotes-monitor");
        const grid = page.locator('[aria-label="Live quotes"] .ag-root');
        await grid.waitFor({ state: "attached", timeout: 30_000 });
        await page.locator('[aria-label="Live quotes"] .ag-row[row-id]').first().waitFor({ timeout: 60_000 });
        const box = await grid.boundingBox();
        if (box) viewport = { width: Math.round(box.width), height: Math.round(box.height) };
      };
      const bareContext = await browser.newContext(contextOptions);
      await bareContext.addInitScript({ content: PROBE_SCRIPT });
      const bundle = agGridBundle();
      await bareContext.route(`${base}${QUOTES_BARE_SCRIPT_PATH}`, (route) => route.fulfill({ contentType: "text/javascript; charset=utf-8", body: bundle }));
      const barePage = await bareContext.newPage();
      const openBare = async () => {
        const bareHtml = quotesBarePageHtml({ headers, width: viewport.width, height: viewport.height });
        await bareContext.unroute(`${base}${QUOTES_BARE_PAGE_PATH}`);
        await bareContext.route(`${base}${QUOTES_BARE_PAGE_PATH}`, (route) => route.fulfill({ contentType: "text/html; charset=utf-8", body: bareHtml }));
        await barePage.goto(`${base}${QUOTES_BARE_PAGE_PATH}`);
        await barePage.locator(".ag-row[row-id]").first().waitFor({ timeout: 60_000 });
      };

      // Interleaved rounds (monitor, bare, monitor, bare…): a server still settling after the
      // platforms' start, or a burst of other work on the machine, falls on both pages alike.
      const monitors: Phase[] = [];
      const bares: Phase[] = [];
      for (let round = 1; round <= rounds; round++) {
        if (rounds > 1) line(`  round ${round} of ${rounds}`);
        const monitor = await measure(page, openMonitor, Boolean(profile) && round === 1);
        print("monitor", monitor);
        monitors.push(monitor);
        const bare = await measure(barePage, openBare, false);
        print("bare grid", bare);
        bares.push(bare);
      }
      const fps = (f: Phase) => f.page.frames / f.page.seconds;
      const all = (phases: Phase[]) => phases.flatMap((f) => f.page.latencies);
      const ratio = phases(monitors, fps) / phases(bares, fps);
      line(
        `  all rounds: monitor ${phases(monitors, fps).toFixed(1)} fps, tick→visible p50 ${percentile(all(monitors), 50).toFixed(0)} ms p90 ${percentile(all(monitors), 90).toFixed(0)} ms p99 ${percentile(all(monitors), 99).toFixed(0)} ms; ` +
          `bare ${phases(bares, fps).toFixed(1)} fps, p50 ${percentile(all(bares), 50).toFixed(0)} ms p90 ${percentile(all(bares), 90).toFixed(0)} ms p99 ${percentile(all(bares), 99).toFixed(0)} ms`,
      );
      line(`  fps monitor / bare: ${ratio.toFixed(2)}× (targets: ≥ 55 fps, p99 ≤ 250 ms, ≥ 0.9× the bare page)`);
      if (profile) line(`  profiles of the monitor's phase: ${profile}.server.cpuprofile (server), ${profile}.page.cpuprofile (the page's main thread)`);
    } finally {
      for (const stop of stopTicks) stop();
      await browser?.close();
      await running.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
  line(`load average after: ${load()}`);
}
