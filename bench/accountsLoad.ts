/**
 * The accounts list under load, and what the accounts mirror writes, at 100,000 accounts.
 *
 *  1. A simulated MT5 server with 100,000 accounts is created through the API and mirrored; the
 *     longest event-loop stall while the mirror's first sync runs.
 *  2. Resyncs: with prices moving, then where nothing changed on the platform (prices frozen):
 *     rows written (target 0), counted by the mirror and, independently, by the row versions the
 *     database holds newer than the resync (xmin).
 *  3. `GET /api/accounts` over HTTP on loopback with autocannon (100 connections): req/s, p50,
 *     p99 for filtered, sorted pages, a name search and a deep page; and, for scale, a bare
 *     Fastify hello-world under the same load at the same moment.
 *
 * The real server (every plugin, the guard, validation and serialization, logging off) on a
 * fresh PostgreSQL database when one answers, else on PGlite; a real access token signed with the
 * app's keys. Run alone with `node --import tsx bench/accountsLoad.ts`.
 */
import os from "node:os";
import { sql } from "drizzle-orm";
import autocannon from "autocannon";
import Fastify from "fastify";
import { accountsMirrorOf } from "../server/modules/accounts/mirror/plugin.ts";
import { rowsOf } from "../server/db/rows.ts";
import { withBenchDatabase } from "./benchDatabase.ts";
import { benchApp } from "./benchApp.ts";

export interface AccountsLoadOptions {
  adminUrl?: string;
  accounts?: number;
  connections?: number;
  /** Seconds of load per query. */
  seconds?: number;
  line?: (text: string) => void;
}

const rate = (value: number) => Math.round(value).toLocaleString("en-US");

/** Lateness of a 5 ms heartbeat, with when it was seen: the longest stall in any time window. */
function stallProbe() {
  const samples: { at: number; late: number }[] = [];
  let expected = performance.now() + 5;
  const timer = setInterval(() => {
    const now = performance.now();
    samples.push({ at: now, late: Math.max(0, now - expected) });
    expected = now + 5;
  }, 5);
  return {
    stop: () => clearInterval(timer),
    /**
     * The longest stall that began within [from, to] (performance.now() times), and how many
     * passed 50 ms. (One that began before — creating the simulated server — is not the sync's.)
     */
    stalls(from: number, to: number) {
      const within = samples.filter((s) => s.at - s.late >= from && s.at <= to);
      const longest = within.reduce((max, s) => Math.max(max, s.late), 0);
      return `longest event-loop stall ${longest.toFixed(0)} ms, ${within.filter((s) => s.late > 50).length} over 50 ms`;
    },
  };
}

/** The framework's own ceiling on this machine at this moment: a hello-world route under the same load. */
async function bareFastify(connections: number, seconds: number): Promise<number> {
  const bare = Fastify();
  bare.get("/", async () => ({ hello: "world" }));
  await bare.listen({ host: "127.0.0.1", port: 0 });
  try {
    const { port } = bare.server.address() as { port: number };
    const result = await autocannon({ url: `http://127.0.0.1:${port}/`, connections, duration: seconds });
    return result.requests.average;
  } finally {
    await bare.close();
  }
}

export async function accountsLoad(options: AccountsLoadOptions = {}): Promise<void> {
  const adminUrl = options.adminUrl ?? process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const accounts = options.accounts ?? Number(process.env.BENCH_ACCOUNTS ?? 100_000);
  const connections = options.connections ?? 100;
  const seconds = options.seconds ?? Number(process.env.BENCH_LOAD_SECONDS ?? 6);
  const line = options.line ?? ((text: string) => console.log(text));

  await withBenchDatabase(adminUrl, async (database) => {
    const bench = await benchApp(database, { env: { NODE_ENV: "production" } });
    const { app, ctx } = bench;
    const probe = stallProbe();
    try {
      const base = await bench.listen();
      const { headers } = await bench.signUp("Load Dealer");
      const mirror = accountsMirrorOf(ctx)!;
      const dbName = database.kind === "postgres" ? "PostgreSQL" : "PGlite";

      // 1. The first sync, and the event loop meanwhile.
      line("");
      line(
        `== Accounts mirror at ${rate(accounts)} accounts (simulated MT5, ${dbName}; load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} CPUs) ==`,
      );
      const created = await app.inject({
        method: "POST",
        url: "/api/tradePlatforms",
        headers,
        payload: { type: "MT5", name: "Load MT5", timeZone: "UTC", connection: { kind: "simulated", accounts, tradeRate: 0, seed: 11 } },
      });
      if (created.statusCode !== 201) throw new Error(`creating the platform answered ${created.statusCode}: ${created.body}`);
      const platformId = created.json().id as string;
      const status = await mirror.whenSynced(platformId, 300_000);
      const syncEnd = performance.now();
      const syncMs = status.lastSyncMs ?? 0;
      line(`first sync: ${rate(status.accounts)} accounts in ${(syncMs / 1000).toFixed(2)} s; ${probe.stalls(syncEnd - syncMs, syncEnd)} (target ≤ 50 ms)`);

      // 2. Resyncs: with prices moving (accounts with open positions change equity), then with
      // the price feed frozen (its tick made a no-op), where nothing changes on the platform.
      const moving = await mirror.resync(platformId);
      line(`resync with prices moving: ${rate(moving.written)} rows written (accounts whose figures moved), ${rate(moving.removed)} removed`);
      const server = app.platforms.simulatedServer(platformId)!;
      server.engine.tickPrices = () => {};
      await mirror.resync(platformId);
      const xid = async () => rowsOf<{ xid: string }>(await database.db.execute(sql`select (txid_current() % 4294967296)::text as xid`))[0]!.xid;
      const before = await xid();
      const resyncStarted = performance.now();
      const resync = await mirror.resync(platformId);
      const resyncEnd = performance.now();
      const newer = rowsOf<{ n: string | number }>(
        await database.db.execute(
          sql`select count(*) as n from trading_accounts where platform_id = ${platformId}::uuid and xmin::text::bigint > ${before}::bigint`,
        ),
      )[0]!.n;
      line(
        `resync with nothing changed: ${rate(resync.written)} rows written, ${rate(resync.removed)} removed (target 0); ` +
          `${rate(Number(newer))} row versions in the table newer than the resync; ` +
          `${((resyncEnd - resyncStarted) / 1000).toFixed(2)} s, ${probe.stalls(resyncStarted, resyncEnd)}`,
      );
      probe.stop();

      // 3. The list under load.
      line("");
      line(`== GET /api/accounts at ${rate(accounts)} accounts (${dbName}): autocannon, ${connections} connections, ${seconds} s each, loopback ==`);
      const queries: [string, string][] = [
        ["filtered + sorted: groupMask=real*, balanceMin=5000, sort equity desc", "groupMask=real*&balanceMin=5000&sort=equity&dir=desc&limit=100"],
        ["the same, next page (offset 100)", "groupMask=real*&balanceMin=5000&sort=equity&dir=desc&limit=100&offset=100"],
        ["name contains 'ann', sort balance asc", "name=ann&sort=balance&dir=asc&limit=100"],
        ["no filter, sort login, offset 50,000", "sort=login&limit=100&offset=50000"],
        [
          "groupMask=*,!demo*, equity 1000–50000, sort marginLevel desc",
          "groupMask=*,!demo*&equityMin=1000&equityMax=50000&sort=marginLevel&dir=desc&limit=100",
        ],
      ];
      const bare = await bareFastify(connections, seconds);
      line(`bare Fastify (hello world, same machine, now): ${rate(bare)} req/s`);
      for (const [label, query] of queries) {
        const url = `/api/accounts?${query}`;
        const check = await app.inject({ url, headers });
        if (check.statusCode !== 200) throw new Error(`${url} answered ${check.statusCode}: ${check.body}`);
        const result = await autocannon({ url: `${base}${url}`, headers, connections, duration: seconds });
        const failed = result.non2xx + result.errors + result.timeouts;
        line(
          `${label}: ${rate(check.json().total)} matching — ${rate(result.requests.average)} req/s ` +
            `(${(result.requests.average / bare).toFixed(3)}× bare), p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms` +
            `${failed > 0 ? ` (${failed} failed)` : ""} (target ≥ 1,000 req/s, p99 ≤ 100 ms)`,
        );
      }
    } finally {
      probe.stop();
      await bench.close();
    }
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  accountsLoad().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
