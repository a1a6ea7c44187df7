/**
 * AG Grid's row models at the blotter's rates, in a page of AG Grid alone (no server, no app):
 * what the live grid could draw if it stopped holding every row itself. `npm run bench -- rowmodels`.
 *
 * The page makes deals at a rate (newest first, 20,000 kept, the blotter's 18 columns, cell change
 * flash on) and shows them two ways, each in its own page. The infinite model draws refreshed rows
 * as new ones and so flashes nothing: its figures leave out the flash's cost (decision 0059, superseded by 0062).
 *
 * - client: the client-side row model, as the blotter's live grid does it today — one transaction
 *   of the rows added and removed, paced by its own cost (the next no sooner than 3× its time,
 *   50–250 ms: app/features/trades-blotter/framePacer.ts), sorted by time;
 * - infinite: the infinite row model (AG Grid Community) reading blocks of 100 rows from a model
 *   the page holds (in the blotter it would be the stream worker's), refreshed on the same pacing.
 *   The grid then holds and draws only the blocks in view, whatever the rate.
 *
 * Each for BENCH_ROW_MODELS_SECONDS (10) after a 2 s warm-up, at BENCH_ROW_MODELS_RATES
 * ("5000,20000"), then again with both cores kept busy by two spinning processes (the benchmark's
 * server and database share this machine's two cores). Prints frames per second, long tasks over
 * 50 ms, the time each update takes on the main thread, how far the top row is behind the newest
 * deal, and the ratio infinite / client.
 */
import { spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { chromium } from "playwright-core";
import { agGridBundle, blotterModuleScript } from "./barePage.ts";

const FIELDS = [
  "time",
  "platform",
  "login",
  "group",
  "deal",
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
];

function pageHtml(pacing: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>AG Grid row models (benchmark)</title>
<style>html,body{margin:0;height:100%}#grid{height:700px;width:1400px}</style>
<script src="/ag-grid-community.min.js"></script>
${pacing}</head><body><div id="grid"></div><script>
const params = new URLSearchParams(location.search);
const MODE = params.get("mode");
const RATE = Number(params.get("rate"));
const MAX = 20000;
let seq = 0;
const deal = () => {
  const id = ++seq;
  return { id: String(id), time: Date.now(), platform: "MT5 Live", login: String(1000 + (id % 500)), group: "real\\\\usd", deal: id,
    position: id * 3, symbol: ["EURUSD", "GBPUSD", "XAUUSD"][id % 3], side: id % 2 ? "buy" : "sell", entry: "in",
    volume: (id % 10) / 10 + 0.1, price: 1.1 + (id % 100) / 10000, sl: 0, tp: 0, profit: (id % 200) - 100, commission: -7,
    swap: 0, reason: "client", comment: "c" + id };
};
let model = [];
for (let i = 0; i < MAX; i++) model.unshift(deal());
const columnDefs = ${JSON.stringify(FIELDS)}.map((field) => ({ field, width: 76, enableCellChangeFlash: true }));
const common = { columnDefs, getRowId: (p) => p.data.id, rowBuffer: 0, animateRows: false };
const api = MODE === "infinite"
  ? agGrid.createGrid(document.getElementById("grid"), { ...common, rowModelType: "infinite", cacheBlockSize: 100, maxBlocksInCache: 5,
      datasource: { getRows: (p) => p.successCallback(model.slice(p.startRow, p.endRow), model.length) } })
  : agGrid.createGrid(document.getElementById("grid"), { ...common, rowData: model.slice(),
      initialState: { sort: { sortModel: [{ colId: "time", sort: "desc" }] } } });
window.stats = { frames: 0, long: 0, longMax: 0, updates: 0, updateMs: 0, behind: 0, behindSamples: 0 };
new PerformanceObserver((list) => { for (const e of list.getEntries()) { stats.long++; stats.longMax = Math.max(stats.longMax, e.duration); } })
  .observe({ entryTypes: ["longtask"] });
const frame = () => {
  stats.frames++;
  const top = document.querySelector('.ag-row[row-index="0"] [col-id="deal"]');
  if (top) { stats.behind += seq - Number(top.textContent); stats.behindSamples++; }
  requestAnimationFrame(frame);
};
requestAnimationFrame(frame);
window.resetStats = () => Object.assign(stats, { frames: 0, long: 0, longMax: 0, updates: 0, updateMs: 0, behind: 0, behindSamples: 0 });
let pending = [];
let last = performance.now();
setInterval(() => {
  const now = performance.now();
  const n = Math.round((RATE * (now - last)) / 1000);
  last = now;
  for (let i = 0; i < n; i++) pending.push(deal());
}, 10);
const update = () => {
  const started = performance.now();
  const added = pending;
  pending = [];
  if (added.length > 0) {
    if (MODE === "infinite") {
      model = added.reverse().concat(model);
      model.length = Math.min(model.length, MAX);
      api.refreshInfiniteCache();
    } else {
      const removed = model.splice(Math.max(0, MAX - added.length));
      model = added.slice().reverse().concat(model).slice(0, MAX);
      api.applyTransaction({ add: added, remove: removed });
    }
  }
  const took = performance.now() - started;
  stats.updates++;
  stats.updateMs += took;
  setTimeout(update, window.__framePacer.refreshGap(took));
};
setTimeout(update, 50);
</script></body></html>`;
}

interface Figures {
  fps: number;
  longTasks: number;
  longMax: number;
  updateMs: number;
  behind: number;
}

export async function rowModelsBench({ line }: { line: (text: string) => void }): Promise<void> {
  const seconds = Number(process.env.BENCH_ROW_MODELS_SECONDS ?? 10);
  const rates = (process.env.BENCH_ROW_MODELS_RATES ?? "5000,20000").split(",").map(Number);
  const html = pageHtml(await blotterModuleScript("framePacer"));
  const bundle = agGridBundle();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname === "/ag-grid-community.min.js") res.setHeader("content-type", "text/javascript").end(bundle);
    else if (url.pathname === "/") res.setHeader("content-type", "text/html").end(html);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: ["--no-sandbox"] });
  const spinners: ChildProcess[] = [];
  try {
    line(`== AG Grid's row models at the blotter's rates (a page of AG Grid alone, ${seconds} s each) ==`);
    for (const busy of [false, true]) {
      if (busy) {
        // Two processes spinning for as long as the loaded runs last: the benchmark's server and database in miniature.
        for (let i = 0; i < 2; i++) spinners.push(spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }));
      }
      line(busy ? "both cores kept busy by two spinning processes:" : "quiet:");
      for (const rate of rates) {
        const figures: Partial<Record<"client" | "infinite", Figures>> = {};
        for (const mode of ["client", "infinite"] as const) {
          const page = await browser.newPage({ viewport: { width: 1450, height: 800 } });
          await page.goto(`${base}/?mode=${mode}&rate=${rate}`);
          await page.locator(".ag-row").first().waitFor({ timeout: 30_000 });
          await page.waitForTimeout(2_000);
          await page.evaluate(() => (window as unknown as { resetStats: () => void }).resetStats());
          await page.waitForTimeout(seconds * 1_000);
          const s = await page.evaluate(
            () =>
              (
                window as unknown as {
                  stats: { frames: number; long: number; longMax: number; updates: number; updateMs: number; behind: number; behindSamples: number };
                }
              ).stats,
          );
          await page.close();
          const f: Figures = {
            fps: s.frames / seconds,
            longTasks: s.long,
            longMax: s.longMax,
            updateMs: s.updateMs / Math.max(1, s.updates),
            behind: s.behind / Math.max(1, s.behindSamples),
          };
          figures[mode] = f;
          line(
            `  ${rate.toLocaleString("en-US")}/s ${mode.padEnd(8)} ${f.fps.toFixed(1)} fps, ${f.longTasks} long tasks (max ${f.longMax.toFixed(0)} ms), ` +
              `${f.updateMs.toFixed(1)} ms per update, top row ${Math.round(f.behind).toLocaleString("en-US")} deals behind the newest`,
          );
        }
        line(`  ${rate.toLocaleString("en-US")}/s fps infinite / client: ${(figures.infinite!.fps / figures.client!.fps).toFixed(2)}×`);
      }
    }
  } finally {
    for (const spinner of spinners) spinner.kill();
    await browser.close();
    server.close();
  }
}
