/**
 * `npm run bench -- customers`: the longest event-loop stall, and how long `/api/health` takes to
 * answer, while one organization imports 100,000 customers (a 10 MB CSV through
 * POST /api/customers/import) and then exports them (GET /api/customers.csv, read to the end).
 * Everything else the process serves waits for as long as the loop is stalled; the target is no
 * stall over 50 ms (docs/security.md, "Limits per organization"). Not a timed test.
 *
 * The real server on loopback (every plugin, the guard; logging off), a real access token. The
 * stall is measured twice: a 1 ms timer chain (each late firing is a stall) and Node's
 * `monitorEventLoopDelay`. `/api/health` is asked every 25 ms, one request at a time, over HTTP
 * (it pings the database and the identity provider). On PostgreSQL (TEST_DATABASE_URL) and on the
 * embedded PGlite; `customers postgres` or `customers pglite` for one. BENCH_IMPORT_ROWS makes it
 * smaller (e.g. 5000, to check that it runs).
 */
import os from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import type { Database } from "../server/db/client.ts";
import { createPgliteDatabase, createPostgresDatabase } from "../tests/helpers/postgres.ts";
import { threadCpuReader } from "./platformCreationStall.ts";
import { benchApp } from "./benchApp.ts";

export type CustomersBenchDatabase = "postgres" | "pglite";

const rate = (value: number) => Math.round(value).toLocaleString("en-US");

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** The customers file: varied names, e-mails, countries, statuses and tags, like a CRM's export. */
function customersFile(rows: number): string {
  const countries = ["SE", "NO", "DE", "FR", "GB", "US", "CY", "AE"];
  const statuses = ["lead", "active", "blocked"];
  const lines = ["kind,name,email,phone,country,status,kyc,tags,owner"];
  for (let i = 1; i <= rows; i++)
    lines.push(
      [
        i % 5 === 0 ? "company" : "person",
        i % 7 === 0 ? `"Client ${i} Holdings, AB"` : `Client ${i}`,
        `client${i}@example${i % 50}.com`,
        `+46 8 ${String(i % 1_000_000).padStart(6, "0")}`,
        countries[i % countries.length],
        statuses[i % statuses.length],
        "",
        i % 10 === 0 ? "vip;eu" : "retail",
        "",
      ].join(","),
    );
  return lines.join("\r\n");
}

interface Probe {
  stop(): {
    longestMs: number;
    longestRanMs: number | null;
    histogramMaxMs: number;
    healthP50: number;
    healthP99: number;
    healthMax: number;
    healthCount: number;
  };
}

/** The 1 ms timer chain, the histogram and the health requests, from now until `stop`. */
function startProbe(base: string): Probe {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  let longest = 0;
  let longestRan = 0;
  const cpu = threadCpuReader();
  let last = performance.now();
  let lastCpu = cpu?.() ?? null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const tick = () => {
    const now = performance.now();
    const nowCpu = cpu?.() ?? null;
    longest = Math.max(longest, now - last - 1);
    if (nowCpu && lastCpu) longestRan = Math.max(longestRan, Math.min(now - last - 1, nowCpu.ran - lastCpu.ran));
    last = now;
    lastCpu = nowCpu;
    timer = setTimeout(tick, 1);
  };
  timer = setTimeout(tick, 1);
  const health: number[] = [];
  let running = true;
  const asking = (async () => {
    while (running) {
      const t0 = performance.now();
      const res = await fetch(`${base}/api/health`);
      await res.arrayBuffer();
      health.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 25));
    }
  })();
  return {
    stop() {
      running = false;
      void asking;
      if (timer) clearTimeout(timer);
      histogram.disable();
      const sorted = [...health].sort((a, b) => a - b);
      return {
        longestMs: longest,
        longestRanMs: cpu ? longestRan : null,
        histogramMaxMs: histogram.max / 1e6,
        healthP50: percentile(sorted, 50),
        healthP99: percentile(sorted, 99),
        healthMax: sorted.at(-1) ?? 0,
        healthCount: sorted.length,
      };
    },
  };
}

/** The wall-clock stall, and (on Linux) how much of it the event loop's thread itself ran: on a busy machine the rest is waiting for a core. */
function stallText(f: { longestMs: number; longestRanMs: number | null }): string {
  return `${f.longestMs.toFixed(1)} ms${f.longestRanMs === null ? "" : ` (the loop's own work ${f.longestRanMs.toFixed(1)} ms)`}`;
}

async function measureOn(kind: CustomersBenchDatabase, database: Database, rows: number, line: (text: string) => void): Promise<void> {
  const bench = await benchApp(database);
  try {
    const base = await bench.listen();
    const { headers } = await bench.signUp("Bench Importer");
    const body = JSON.stringify({ csv: customersFile(rows), mode: "all" });
    line("");
    line(`load average (1 min) ${os.loadavg()[0]!.toFixed(2)} on ${os.availableParallelism()} cores`);
    line(
      `== Customers: ${rate(rows)}-row import and export (${kind === "postgres" ? "PostgreSQL" : "PGlite"}); longest event-loop stall (target ≤ 50 ms) and GET /api/health meanwhile ==`,
    );
    // Warm up the routes (and the health check's first discovery document).
    for (let i = 0; i < 5; i++) await (await fetch(`${base}/api/health`)).arrayBuffer();
    await new Promise((r) => setTimeout(r, 200));

    let probe = startProbe(base);
    let t0 = performance.now();
    const imported = await fetch(`${base}/api/customers/import`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body });
    const report = (await imported.json()) as { imported?: number; message?: string };
    const importMs = performance.now() - t0;
    let figures = probe.stop();
    if (imported.status !== 200 || report.imported !== rows) throw new Error(`the import answered ${imported.status}: ${JSON.stringify(report).slice(0, 300)}`);
    line(
      `import of ${rate(rows)} rows (${(body.length / 1e6).toFixed(1)} MB): ${(importMs / 1000).toFixed(1)} s; longest stall ${stallText(figures)} ` +
        `(monitorEventLoopDelay max ${figures.histogramMaxMs.toFixed(1)} ms); /api/health p50 ${figures.healthP50.toFixed(1)} ms, p99 ${figures.healthP99.toFixed(1)} ms, ` +
        `max ${figures.healthMax.toFixed(1)} ms over ${figures.healthCount} requests`,
    );

    await new Promise((r) => setTimeout(r, 200));
    probe = startProbe(base);
    t0 = performance.now();
    const exported = await fetch(`${base}/api/customers.csv?sort=name`, { headers });
    let bytes = 0;
    let lines = 0;
    for await (const chunk of exported.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.byteLength;
      for (const byte of chunk) if (byte === 10) lines++;
    }
    const exportMs = performance.now() - t0;
    figures = probe.stop();
    if (exported.status !== 200 || lines !== rows + 1) throw new Error(`the export answered ${exported.status} with ${lines} lines`);
    line(
      `export of ${rate(rows)} rows (${(bytes / 1e6).toFixed(1)} MB, streamed): ${(exportMs / 1000).toFixed(1)} s; longest stall ${stallText(figures)} ` +
        `(monitorEventLoopDelay max ${figures.histogramMaxMs.toFixed(1)} ms); /api/health p50 ${figures.healthP50.toFixed(1)} ms, p99 ${figures.healthP99.toFixed(1)} ms, ` +
        `max ${figures.healthMax.toFixed(1)} ms over ${figures.healthCount} requests`,
    );
  } finally {
    await bench.close();
  }
}

export async function customersStallBench(options: {
  adminUrl: string;
  databases?: readonly CustomersBenchDatabase[];
  rows?: number;
  line?: (text: string) => void;
}): Promise<void> {
  const line = options.line ?? ((text: string) => console.log(text));
  const rows = options.rows ?? Number(process.env.BENCH_IMPORT_ROWS ?? 100_000);
  for (const kind of options.databases ?? ["postgres", "pglite"]) {
    const database = kind === "postgres" ? await createPostgresDatabase(options.adminUrl, "toolbox_bench_customers") : await createPgliteDatabase();
    try {
      await measureOn(kind, database, rows, line);
    } finally {
      await database.drop();
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href)
  await customersStallBench({ adminUrl: process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres" });
