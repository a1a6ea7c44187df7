/**
 * The API at the speed of its database (issue 30): every row of its table in one run, each beside
 * a bare Fastify hello-world of the project's own Fastify measured in the same run (interleaved
 * rounds, ./http.ts `measureLoads`), so the ratios hold on a loaded machine:
 *
 *  - the guarded `GET /api/members` (a few rows): target ≥ 0.25× bare;
 *  - a guarded route answered from memory (`GET /api/profile/user-claims`): ≥ 0.5× bare;
 *  - the accounts list at 100,000 accounts on PostgreSQL (`groupMask=real*&balanceMin=5000&sort=equity`
 *    descending, 100 rows): ≥ 1,000 req/s, p99 ≤ 100 ms;
 *  - the customers list at 100,000, first page by name: ≥ 1,000 req/s, p99 ≤ 100 ms;
 *  - the JavaScript a signed-in person loads for `/` (≤ 160 KB): from the build's manifest, and as a
 *    signed-in Chromium receives it, after load too (./shellLoad.ts; BENCH_SHELL_BROWSER=0 skips it).
 *
 * The real server as `npm start` runs it (NODE_ENV=production, info logging written asynchronously
 * to a file, every plugin), on a fresh PostgreSQL database, a real access token. Autocannon: 100
 * connections on loopback, in a worker thread. `npm run bench -- api` runs this part alone;
 * BENCH_ACCOUNTS / BENCH_CUSTOMERS make it smaller, BENCH_HTTP_SECONDS longer.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { sql } from "drizzle-orm";
import pino from "pino";
import { loadConfig } from "../server/config.ts";
import type { AppContext } from "../server/context.ts";
import { buildApp } from "../server/http/app.ts";
import { accountsMirrorOf } from "../server/modules/accounts/mirror/plugin.ts";
import { apiHeaders, newPerson, tokenFactory } from "../tests/helpers/tokens.ts";
import { shellSize } from "../scripts/shellSize.ts";
import { withBenchDatabase } from "./benchDatabase.ts";
import { shellLoadBench } from "./shellLoad.ts";
import { measureLoads, ROUNDS, startBareFastify, type LoadFigures, type LoadTarget } from "./http.ts";

export interface ApiSpeedOptions {
  adminUrl?: string;
  accounts?: number;
  customers?: number;
  line?: (text: string) => void;
}

const rate = (value: number) => Math.round(value).toLocaleString("en-US");

export async function apiSpeedBench(options: ApiSpeedOptions = {}): Promise<void> {
  const adminUrl = options.adminUrl ?? process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const accounts = options.accounts ?? Number(process.env.BENCH_ACCOUNTS ?? 100_000);
  const customers = options.customers ?? Number(process.env.BENCH_CUSTOMERS ?? 100_000);
  const line = options.line ?? ((text: string) => console.log(text));

  await withBenchDatabase(adminUrl, async (database) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "toolbox-bench-api-"));
    const logStream = pino.destination({ dest: path.join(dataDir, "server.log"), sync: false, mkdir: true });
    const config = loadConfig({
      NODE_ENV: "production",
      LOG_LEVEL: "info",
      PUBLIC_URL: "http://localhost:3000",
      DATA_DIR: dataDir,
      SECRETS_KEY: crypto.randomBytes(32).toString("base64"),
    });
    const ctx: AppContext = { config, database };
    const app = await buildApp(ctx, { web: false, logger: true, logStream });
    const bare = await startBareFastify();
    try {
      const base = await app.listen({ host: "127.0.0.1", port: 0 });
      const tokens = await tokenFactory(ctx);
      const person = newPerson("Speed Dealer");
      const token = await tokens.mint(person);
      const preflight = await app.inject({ url: "/api/profile/preflight", headers: apiHeaders(token) });
      const organizationId = preflight.json().createdOrganizationId as string;
      const headers = apiHeaders(token, organizationId);
      const dbName = database.kind === "postgres" ? "PostgreSQL" : "PGlite";

      const setup = performance.now();
      const created = await app.inject({
        method: "POST",
        url: "/api/tradePlatforms",
        headers,
        payload: { type: "MT5", name: "Speed MT5", timeZone: "UTC", connection: { kind: "simulated", accounts, tradeRate: 0, seed: 11 } },
      });
      if (created.statusCode !== 201) throw new Error(`creating the platform answered ${created.statusCode}: ${created.body}`);
      await accountsMirrorOf(ctx)!.whenSynced(created.json().id as string, 600_000);
      await database.db.execute(sql`
        insert into customers (organization_id, kind, name, email, country, status, kyc, tags, created_at, updated_at)
        select ${organizationId}::uuid, 'person', 'Client ' || i, 'client' || i || '@example' || (i % 50) || '.com',
          (array['SE','NO','DE','FR'])[1 + i % 4], (array['lead','active','blocked'])[1 + i % 3],
          (array['notStarted','pending','verified','rejected'])[1 + i % 4], array['retail'],
          now() - (i || ' minutes')::interval, now() - (i || ' seconds')::interval
        from generate_series(1, ${customers}) as i`);
      await database.db.execute(sql`analyze`);

      const rows: [string, string, string][] = [
        ["Guarded GET /api/members (a few rows)", "/api/members", "≥ 0.25× bare"],
        ["Guarded route from memory (GET /api/profile/user-claims)", "/api/profile/user-claims", "≥ 0.5× bare"],
        [
          `Accounts list, ${rate(accounts)} accounts on ${dbName}, real*, balance ≥ 5000, equity desc, 100`,
          "/api/accounts?groupMask=real*&balanceMin=5000&sort=equity&dir=desc&limit=100",
          "≥ 1,000 req/s, p99 ≤ 100 ms",
        ],
        [`Customers list at ${rate(customers)}, first page by name`, "/api/customers?limit=100", "≥ 1,000 req/s, p99 ≤ 100 ms"],
      ];
      const targets: LoadTarget[] = [{ label: "Bare Fastify hello-world", url: bare.url }];
      for (const [label, url] of rows) {
        const check = await app.inject({ url, headers });
        if (check.statusCode !== 200) throw new Error(`${label}: ${check.statusCode} ${check.body}`);
        targets.push({ label, url: `${base}${url}`, headers });
      }
      line("");
      line(
        `== Issue 30: the API beside bare Fastify (${dbName}; set up in ${((performance.now() - setup) / 1000).toFixed(1)} s; ` +
          `load average ${os
            .loadavg()
            .map((l) => l.toFixed(1))
            .join(" ")} on ${os.cpus().length} CPUs; autocannon, 100 connections, median of ${ROUNDS} interleaved rounds) ==`,
      );
      const [baseline, ...figures] = await measureLoads(targets);
      printTable(line, baseline!, figures, rows);
      if (fs.existsSync("build/client")) {
        const shell = shellSize("build");
        line(`${"JavaScript for / (the build's manifest; Brotli as sent)".padEnd(84)} ${shell.servedKb} KB (gzip -9: ${shell.totalKb} KB)  target ≤ 160 KB`);
      } else line("JavaScript for /: no build (run `npm run build` first)");
      // As the browser counts it: what a signed-in Chromium receives for `/`, after load too (./shellLoad.ts).
      if (process.env.BENCH_SHELL_BROWSER !== "0") await shellLoadBench({ adminUrl, line });
      line(
        `load average after: ${os
          .loadavg()
          .map((l) => l.toFixed(1))
          .join(" ")}`,
      );
    } finally {
      await bare.close();
      await app.close();
      try {
        logStream.flushSync();
      } catch {
        // Not opened yet, or already closed.
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
}

function printTable(line: (text: string) => void, baseline: LoadFigures, figures: LoadFigures[], rows: [string, string, string][]) {
  const health = (f: LoadFigures) => (f.non2xx || f.errors ? `  (!) ${f.non2xx} non-2xx, ${f.errors} errors` : "");
  line(`${"Measure".padEnd(84)} ${"req/s".padStart(8)} ${"p50".padStart(8)} ${"p99".padStart(8)} ${"× bare".padStart(7)}  target`);
  line(
    `${baseline.label.padEnd(84)} ${rate(baseline.requestsPerSecond).padStart(8)} ${`${baseline.p50Ms} ms`.padStart(8)} ${`${baseline.p99Ms} ms`.padStart(8)} ${"1.000".padStart(7)}${health(baseline)}`,
  );
  for (const [i, f] of figures.entries()) {
    const ratio = f.requestsPerSecond / baseline.requestsPerSecond;
    line(
      `${f.label.padEnd(84)} ${rate(f.requestsPerSecond).padStart(8)} ${`${f.p50Ms} ms`.padStart(8)} ${`${f.p99Ms} ms`.padStart(8)} ${ratio.toFixed(3).padStart(7)}  ${rows[i]![2]}${health(f)}`,
    );
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  apiSpeedBench().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
