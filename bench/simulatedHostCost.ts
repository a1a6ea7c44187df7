/**
 * What running simulated platforms costs the server's process (the blotter bench's server side,
 * without the browser): the real server (`startToolbox`, production settings, PostgreSQL) with the
 * demo organization's three simulated platforms, plus the blotter bench's own ("Bench MT5", 2,000
 * accounts, no trading of its own) and, for a few seconds before, its rate probe at the
 * organization's maximum trade rate (deleted again), as the blotter bench does. Then
 * BENCH_SIMHOST_SECONDS (20) of nothing else: the process's CPU as a share of one core, the load
 * average before and after, and the command log's rows written.
 *
 * `npm run bench -- simhost`. Profile it with `node --cpu-prof --import tsx bench/run.ts simhost`.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import inspector from "node:inspector/promises";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import pg from "pg";
import { loadConfig } from "../server/config.ts";
import { rowsOf } from "../server/db/rows.ts";
import { startToolbox } from "../server/main.ts";
import { accountsMirrorOf } from "../server/modules/accounts/mirror/plugin.ts";
import { withEmptyPostgresDatabase } from "../tests/helpers/postgres.ts";
import { apiHeaders, newPerson, tokenFactory } from "../tests/helpers/tokens.ts";

/** The window's CPU profile (node:inspector), written to `file` as a .cpuprofile. */
async function startProfile() {
  const session = new inspector.Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  return {
    async stop(file: string) {
      const { profile } = await session.post("Profiler.stop");
      fs.writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
      return file;
    },
  };
}

/** Queries sent to PostgreSQL in the window, by their text (pg's Client.query, wrapped). */
function countQueries() {
  const counts = new Map<string, number>();
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    const first = args[0] as string | { text?: string };
    const text = (typeof first === "string" ? first : (first?.text ?? "?")).replace(/\s+/g, " ").slice(0, 110);
    counts.set(text, (counts.get(text) ?? 0) + 1);
    return original.apply(this, args);
  };
  return {
    stop() {
      proto.query = original;
      return [...counts].sort((a, b) => b[1] - a[1]).slice(0, 25);
    },
  };
}

type Line = (text: string) => void;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(", ");

export async function simulatedHostCostBench({ adminUrl, line }: { adminUrl: string; line: Line }): Promise<void> {
  const seconds = Number(process.env.BENCH_SIMHOST_SECONDS ?? 20);
  line(`== Simulated platforms' cost to the server's process, ${seconds} s ==`);
  await withEmptyPostgresDatabase(adminUrl, "toolbox_bench_simhost", async (databaseUrl) => {
    const config = loadConfig({
      NODE_ENV: "production",
      LOG_LEVEL: "silent",
      PORT: "0",
      HOST: "127.0.0.1",
      PUBLIC_URL: "http://localhost:3999",
      DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "toolbox-bench-simhost-")),
      DATABASE_URL: databaseUrl,
      DEMO_PASSWORD: "bench-demo-password-1",
      SECRETS_KEY: crypto.randomBytes(32).toString("base64"),
    });
    const running = await startToolbox(config, { quiet: true });
    try {
      const tokens = await tokenFactory(running.ctx);
      const person = newPerson("Bench");
      const first = await running.app.inject({ url: "/api/profile/preflight", headers: apiHeaders(await tokens.mint(person)) });
      const organizationId = first.json<{ createdOrganizationId: string }>().createdOrganizationId;
      const api = async (method: "POST" | "DELETE", url: string, payload: object) => {
        const res = await running.app.inject({ method, url, headers: apiHeaders(await tokens.mint(person), organizationId), payload });
        if (res.statusCode >= 300) throw new Error(`${method} ${url} answered ${res.statusCode}: ${res.body}`);
        return res.body ? res.json<{ id: string }>() : undefined;
      };
      const mirror = accountsMirrorOf(running.ctx)!;
      const maxRate = running.ctx.config.quotas.simulatedTradeRate - 50;
      const probe = (await api("POST", "/api/tradePlatforms", {
        type: "MT5",
        name: "Rate probe",
        timeZone: "UTC",
        connection: { kind: "simulated", accounts: 2000, tradeRate: maxRate, seed: 3 },
      }))!;
      await sleep(4000);
      await api("DELETE", `/api/tradePlatforms/${probe.id}`, { confirmName: "Rate probe" });
      const platform = (await api("POST", "/api/tradePlatforms", {
        type: "MT5",
        name: "Bench MT5",
        timeZone: "UTC",
        connection: { kind: "simulated", accounts: 2000, tradeRate: 0, seed: 11 },
      }))!;
      await mirror.whenSynced(platform.id, 60_000);
      await sleep(2000);
      const count = async () =>
        rowsOf<{ n: number }>(await running.ctx.database.db.execute(sql`select count(*)::int as n from simulated_server_commands`))[0]?.n ?? 0;
      const rowsBefore = await count();
      line(`load average before: ${load()}`);
      const profiler = process.env.BENCH_SIMHOST_PROFILE ? await startProfile() : null;
      const queries = process.env.BENCH_SIMHOST_QUERIES ? countQueries() : null;
      const cpu = process.cpuUsage();
      const started = performance.now();
      await sleep(seconds * 1000);
      const used = process.cpuUsage(cpu);
      const elapsed = (performance.now() - started) / 1000;
      line(`load average after:  ${load()}`);
      if (profiler) line(`profile of the window: ${await profiler.stop(process.env.BENCH_SIMHOST_PROFILE!)}`);
      line(
        `server process CPU: ${(((used.user + used.system) / 1e6 / elapsed) * 100).toFixed(1)} % of a core (user ${((used.user / 1e6 / elapsed) * 100).toFixed(1)} %)`,
      );
      if (queries) for (const [text, n] of queries.stop()) line(`  ${(n / elapsed).toFixed(1)}/s  ${text}`);
      line(`command log rows now: ${await count()} (were ${rowsBefore})`);
    } finally {
      await running.close();
    }
  });
}
