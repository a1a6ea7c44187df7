/**
 * `npm run bench`: figures for the accounts area at scale, on PostgreSQL. Not a test: it prints
 * numbers and asserts nothing beyond "it worked".
 *
 *  0. The longest event-loop stall while a 100,000-account simulated server is created, on
 *     PostgreSQL and on the embedded PGlite.
 *  1. A simulated MT5 server with 100,000 accounts, connected through the platforms API; the
 *     time the accounts mirror takes to copy it into a fresh PostgreSQL database.
 *  2. The accounts list endpoint (through `app.inject`, so routing, the auth guard, validation
 *     and serialization included) for filtered, sorted pages: p50 / p99 over 200 requests each.
 *  3. The simulated servers' event rates: normalized trade events per second reaching a
 *     subscriber at full speed, and in real time at a high trade rate with the mirror following.
 *  4. The event bus (in-process and NATS JetStream) at 20,000 trade events a second (./eventBus.ts).
 *
 * Then the HTTP load of the accounts list (./accountsLoad.ts), the customers list's and the stall
 * of a 100,000-row customers import and export (./customersList.ts, ./customersStall.ts), the trade history's queries at
 * 1,000,000 deals (./tradeHistory.ts) and its live writer's events a second (./historyWriter.ts), and the Trades Blotter streaming to headless Chromium at
 * 5,000–20,000 trade events a second (./tradesBlotter.ts; after `npm run build`).
 *
 * Last, the Quotes Monitor at 5 servers × 2,000 symbols × 5 ticks/s beside a bare grid (./quotesMonitor.ts;
 * after `npm run build`); `npm run bench -- quotes` runs it alone.
 *
 * Then the Trades Copier: one source → 1, 100 and 1,000 followers, and 100 on the MT5 Web API out of
 * process (./tradesCopier.ts); `npm run bench -- copier` runs it alone.
 *
 * Then Flexible Leverage's rule engine: 100,000 accounts × 20 rules, evaluation per account and the
 * preview of the population, then the preview through the API route on PostgreSQL (./flexibleLeverage.ts);
 * `npm run bench -- flexibleLeverage` runs it alone, `npm run bench -- flexibleLeverageApi` only the API's part.
 *
 * `npm run bench -- api` runs only the table of issue 30 (./apiSpeed.ts): bare Fastify, the guarded
 * routes, the accounts and customers lists at 100,000 rows and the shell's weight, with the ratios.
 *
 * `npm run bench -- customers` runs only the customers' import and export stall (./customersStall.ts;
 * `customers postgres` or `customers pglite` for one database).
 *
 * `npm run bench -- blotter` runs the Trades Blotter's part alone, `npm run bench -- writer` the writer's; `npm run bench -- stall` only
 * the creation stall (0.) on both databases (`stall postgres`, `stall pglite`: one of them;
 * BENCH_STALL_RUNS runs each), to measure or profile it alone (./creationStall.ts).
 *
 * PostgreSQL: TEST_DATABASE_URL, or postgres://postgres@127.0.0.1:5432/postgres; a database is
 * created for the run and dropped after it.
 */
import fs from "node:fs";
import os from "node:os";
import { moneyToDecimal, type TradePlatformType } from "../core/trading/index.ts";
import { accountsMirrorOf } from "../server/modules/accounts/mirror/plugin.ts";
import { measureSimulatedEventRate } from "./simulatedEventRate.ts";
import { measurePlatformCreationStall } from "./platformCreationStall.ts";
import { creationStallBench, measureCreationStallOnFreshApp, type StallDatabase } from "./creationStall.ts";
import { accountsLoad } from "./accountsLoad.ts";
import { apiSpeedBench } from "./apiSpeed.ts";
import { customersListBench } from "./customersList.ts";
import { customersStallBench, type CustomersBenchDatabase } from "./customersStall.ts";
import { tradeHistoryBench } from "./tradeHistory.ts";
import { historyWriterBench } from "./historyWriter.ts";
import { measureEventBus } from "./eventBus.ts";
import { tradesBlotterBench } from "./tradesBlotter.ts";
import { quotesMonitorBench } from "./quotesMonitor.ts";
import { tradesCopierBench } from "./tradesCopier.ts";
import { flexibleLeverageApiBench, flexibleLeverageBench } from "./flexibleLeverage.ts";
import { simulatedHostCostBench } from "./simulatedHostCost.ts";
import { rowModelsBench } from "./blotter/rowModels.ts";
import { openDatabase } from "../server/db/client.ts";
import { runHttpBenchmark } from "./http.ts";
import { shellSize } from "../scripts/shellSize.ts";
import { withEmptyPostgresDatabase } from "../tests/helpers/postgres.ts";
import { benchApp, benchDataDir } from "./benchApp.ts";

const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 100_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const HIGH_TRADE_RATE = 5_000;
const adminUrl = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

const line = (text: string) => console.log(text);
const ms = (value: number) => `${value.toFixed(1)} ms`;
const rate = (value: number) => Math.round(value).toLocaleString("en-US");

function percentile(sorted: number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

async function main() {
  const started = performance.now();
  line(`Toolbox benchmark — Node ${process.version}, ${os.cpus().length} CPU(s), PostgreSQL at ${adminUrl.replace(/\/\/([^:@/]+):[^@/]+@/, "//$1:***@")}`);
  await withEmptyPostgresDatabase(adminUrl, "toolbox_bench", async (databaseUrl) => {
    const dataDir = benchDataDir();
    const database = await openDatabase({ databaseUrl, dataDir });
    const bench = await benchApp(database, { dataDir });
    const { app, ctx } = bench;
    try {
      const { organizationId: org, headers } = await bench.signUp("Bench Dealer");
      const mirror = accountsMirrorOf(ctx)!;
      await measurePlatformCreationStall({ app, ctx, headers, accounts: ACCOUNTS, line });
      await measureCreationStallOnFreshApp({ accounts: ACCOUNTS, line });

      // 1. Mirror 100,000 accounts.
      line("");
      line(`== Accounts mirror: initial sync of ${rate(ACCOUNTS)} accounts (simulated MT5, PostgreSQL) ==`);
      const createdAt = performance.now();
      const created = await app.inject({
        method: "POST",
        url: "/api/tradePlatforms",
        headers,
        payload: { type: "MT5", name: "Bench MT5", timeZone: "UTC", connection: { kind: "simulated", accounts: ACCOUNTS, tradeRate: 10, seed: 1 } },
      });
      if (created.statusCode !== 201) throw new Error(`creating the platform answered ${created.statusCode}: ${created.body}`);
      const platformId = created.json().id as string;
      const status = await mirror.whenSynced(platformId, 150_000);
      const total = performance.now() - createdAt;
      const syncMs = status.lastSyncMs ?? total;
      line(`accounts mirrored: ${rate(status.accounts)}`);
      line(`sync time: ${(syncMs / 1000).toFixed(2)} s (${rate(status.accounts / (syncMs / 1000))} accounts/s)`);
      line(`platform created → list complete: ${(total / 1000).toFixed(2)} s (includes starting the simulated server and connecting)`);

      // 2. The list endpoint.
      line("");
      line(`== GET /api/accounts at ${rate(ACCOUNTS)} accounts: ${REQUESTS} requests per query through app.inject ==`);
      const queries: [string, string][] = [
        ["groupMask=real*, balanceMin=5000, sort equity desc, limit 100", "groupMask=real*&balanceMin=5000&sort=equity&dir=desc&limit=100"],
        ["the same, page 10 (offset 900)", "groupMask=real*&balanceMin=5000&sort=equity&dir=desc&limit=100&offset=900"],
        ["name contains 'ann', sort balance asc, limit 100", "name=ann&sort=balance&dir=asc&limit=100"],
        ["no filter, sort login, limit 100", "sort=login&limit=100"],
        [
          "groupMask=*,!demo*, equity 1000–50000, sort marginLevel desc",
          "groupMask=*,!demo*&equityMin=1000&equityMax=50000&sort=marginLevel&dir=desc&limit=100",
        ],
      ];
      for (const [label, query] of queries) {
        const url = `/api/accounts?${query}`;
        let matching = 0;
        for (let i = 0; i < 10; i++) {
          const warm = await app.inject({ url, headers });
          if (warm.statusCode !== 200) throw new Error(`${url} answered ${warm.statusCode}: ${warm.body}`);
          matching = warm.json().total;
        }
        const times: number[] = [];
        for (let i = 0; i < REQUESTS; i++) {
          const t0 = performance.now();
          const res = await app.inject({ url, headers });
          times.push(performance.now() - t0);
          if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}`);
        }
        times.sort((a, b) => a - b);
        line(`${label}: ${rate(matching)} matching — p50 ${ms(percentile(times, 50))}, p99 ${ms(percentile(times, 99))}, max ${ms(times.at(-1)!)}`);
      }
      const detailLogin = (await app.inject({ url: "/api/accounts?limit=1&sort=balance&dir=desc", headers })).json().items[0].login;
      const detailTimes: number[] = [];
      for (let i = 0; i < 50; i++) {
        const t0 = performance.now();
        await app.inject({ url: `/api/accounts/${platformId}/${detailLogin}`, headers });
        detailTimes.push(performance.now() - t0);
      }
      detailTimes.sort((a, b) => a - b);
      line(`GET /api/accounts/:platformId/:login (live from the platform): p50 ${ms(percentile(detailTimes, 50))}, p99 ${ms(percentile(detailTimes, 99))}`);

      // 3. Event rates.
      line("");
      line("== Simulated servers: trade events per second ==");
      for (const platform of ["MT4", "MT5", "MatchTrader"] as TradePlatformType[]) {
        const r = await measureSimulatedEventRate(platform, { accounts: 10_000, actions: 20_000 });
        line(
          `${platform} at full speed: ${rate(r.actionsPerSecond)} trading actions/s → ${rate(r.eventsPerSecond)} normalized events/s to a subscriber (${rate(r.events)} events in ${r.seconds.toFixed(2)} s)`,
        );
      }

      const live = await app.inject({
        method: "POST",
        url: "/api/tradePlatforms",
        headers,
        payload: { type: "MT5", name: "Busy MT5", timeZone: "UTC", connection: { kind: "simulated", accounts: 10_000, tradeRate: HIGH_TRADE_RATE, seed: 2 } },
      });
      if (live.statusCode !== 201) throw new Error(`creating the busy platform answered ${live.statusCode}: ${live.body}`);
      const busyId = live.json().id as string;
      await mirror.whenSynced(busyId, 60_000);
      const connector = await app.platforms.connectorFor(org, busyId);
      const stream = connector.subscribe();
      const first = stream.lastSequence;
      const firstApplied = mirror.status(busyId)!.lastSequence;
      const busyServer = app.platforms.simulatedServer(busyId)!;
      const firstAttempted = busyServer.traders.attempted;
      let events = 0;
      const reading = (async () => {
        for await (const _event of stream) events++;
      })();
      const seconds = 3;
      const t0 = performance.now();
      await new Promise((r) => setTimeout(r, seconds * 1000));
      const elapsed = (performance.now() - t0) / 1000;
      const delivered = stream.lastSequence - first;
      const applied = mirror.status(busyId)!.lastSequence - firstApplied;
      const attempted = busyServer.traders.attempted - firstAttempted;
      stream.close();
      await reading;
      line(
        `MT5 in real time at ${rate(HIGH_TRADE_RATE)} actions/s for ${elapsed.toFixed(1)} s: ${rate(attempted / elapsed)} actions/s attempted, ` +
          `${rate(delivered / elapsed)} events/s delivered (${rate(events)} read); the accounts mirror applied ${rate(applied / elapsed)} events/s`,
      );
      line("(in real time, orders on closed markets — weekends, off-session indices — are refused and make no events)");
      const catchUp = performance.now();
      await mirror.whenCaughtUp(busyId, 30_000);
      line(`mirror lag when stopped watching: caught up in ${ms(performance.now() - catchUp)}`);
      const check = await app.inject({ url: `/api/accounts?platformId=${busyId}&limit=1&sort=balance&dir=desc`, headers });
      const top = check.json().items[0];
      const platformTop = await connector.getAccount(top.login);
      line(`spot check: account ${top.login} balance ${top.balance} in the list, ${moneyToDecimal(platformTop.balance)} on the platform`);
    } finally {
      await bench.close();
      await database.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
  await runHttpBenchmark({ line });
  await apiSpeedBench({ adminUrl, line });
  await accountsLoad({ adminUrl, line });
  await customersListBench({ adminUrl, line });
  await customersStallBench({ adminUrl, line });
  await tradeHistoryBench({ adminUrl, deals: Number(process.env.BENCH_DEALS ?? 1_000_000), line });
  line("");
  await historyWriterBench({ adminUrl, line });
  line("");
  await measureEventBus({ line });
  line("");
  // The JavaScript a signed-in person loads for `/` (target ≤ 150 KB compressed, decision 0027).
  if (fs.existsSync("build/client")) {
    const shell = shellSize("build");
    line(`shell for /: ${shell.servedKb} KB as sent (Brotli), ${shell.totalKb} KB gzip -9, target ≤ 150 KB (${(shell.servedKb / 150).toFixed(2)}× of it)`);
  } else line("shell for /: no build (run `npm run build` first)");
  line("");
  await tradesBlotterBench({ adminUrl, line });
  line("");
  await quotesMonitorBench({ adminUrl, line });
  line("");
  await tradesCopierBench({ adminUrl, line });
  line("");
  await flexibleLeverageBench({ line });
  line("");
  await flexibleLeverageApiBench({ adminUrl, line });
  line("");
  line(`benchmark finished in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

const only = process.argv.slice(2);
const stallDatabases = (["postgres", "pglite"] as StallDatabase[]).filter((kind) => only.includes(kind));
(only.includes("api")
  ? apiSpeedBench({ adminUrl, line })
  : only.includes("customers")
    ? customersStallBench({ adminUrl, line, databases: stallDatabases.length > 0 ? (stallDatabases as CustomersBenchDatabase[]) : undefined })
    : only.includes("blotter")
      ? tradesBlotterBench({ adminUrl, line })
      : only.includes("quotes")
        ? quotesMonitorBench({ adminUrl, line })
        : only.includes("copier")
          ? tradesCopierBench({ adminUrl, line })
          : only.includes("flexibleLeverageApi")
            ? flexibleLeverageApiBench({ adminUrl, line })
            : only.includes("flexibleLeverage")
              ? flexibleLeverageBench({ line }).then(() => flexibleLeverageApiBench({ adminUrl, line }))
              : only.includes("simhost")
                ? simulatedHostCostBench({ adminUrl, line })
                : only.includes("writer")
                  ? historyWriterBench({ adminUrl, line })
                  : only.includes("rowmodels")
                    ? rowModelsBench({ line })
                    : only.includes("stall")
                      ? creationStallBench({
                          adminUrl,
                          accounts: ACCOUNTS,
                          runs: Number(process.env.BENCH_STALL_RUNS ?? 1),
                          databases: stallDatabases.length > 0 ? stallDatabases : ["postgres", "pglite"],
                          line,
                        })
                      : main()
).then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
