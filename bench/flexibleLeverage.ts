/**
 * Flexible Leverage's rule engine at speed (issue 28, docs/flexible-leverage.md): 100,000
 * synthetic accounts (40 groups, 0–5 positions each on 30 symbols with MT5 paths) through 20
 * rules of every kind (equity and exposure ladders, group and symbol masks with exclusions,
 * weekend and news windows, maxima), in the engine alone: no database, no server.
 *
 *  - compiling the rules;
 *  - evaluation per account, each timed on its own (p50, p99; the clock's own cost included),
 *    and the mean of an untimed pass over the whole population;
 *  - the preview of the whole population (rows, reasons and counts), cold then warm (p50 of 5),
 *    and "what if" it were Saturday (the weekend windows open).
 * Target: evaluation ≤ 5 µs per account.
 *
 * Then the preview through the real API route on PostgreSQL (`flexibleLeverageApiBench`): a
 * simulated MT5 server with 100,000 accounts mirrored into a fresh database, and
 * `POST /api/tradePlatforms/{id}/plugins/{pluginId}/flexibleLeverage/preview` with the same 20 rules
 * through `app.inject` (routing, the guard, validation, the mirror's read, the server's positions,
 * groups and symbols, the engine, serialization), as production runs it: p50 / p99 over repeated
 * requests, for the first page, "only accounts that would change", a login search and "what if"
 * Saturday. Target: ≤ 1 s p99.
 *
 * `npm run bench -- flexibleLeverage` runs both, `npm run bench -- flexibleLeverageApi` the API's part alone. BENCH_FLEX_ACCOUNTS (100,000), BENCH_FLEX_REQUESTS
 * (40 per query).
 */
import fs from "node:fs";
import os from "node:os";
import {
  compileRules,
  evaluateAccount,
  preview,
  type FlexibleLeverageSettingsInput,
  type LeverageAccount,
  type RuleInput,
} from "../core/flexibleLeverage/index.ts";
import { openDatabase } from "../server/db/client.ts";
import { accountsMirrorOf } from "../server/modules/accounts/mirror/plugin.ts";
import { withEmptyPostgresDatabase } from "../tests/helpers/postgres.ts";
import { apiHeaders, tokenFactory } from "../tests/helpers/tokens.ts";
import { benchApp, benchDataDir } from "./benchApp.ts";

type Line = (text: string) => void;

const ACCOUNTS = Number(process.env.BENCH_FLEX_ACCOUNTS ?? 100_000);
const REQUESTS = Number(process.env.BENCH_FLEX_REQUESTS ?? 40);
const TIME_ZONE = "Europe/Nicosia";
/** Wednesday 2 December 2026, 12:00 UTC: no weekend window open. */
const WEDNESDAY = Date.UTC(2026, 11, 2, 12);
/** Saturday 5 December 2026, 10:00 UTC. */
const SATURDAY = Date.UTC(2026, 11, 5, 10);

const n = (value: number) => Math.round(value).toLocaleString("en-US");
const us = (ms: number) => `${(ms * 1000).toFixed(2)} µs`;
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");

function nearestRank(sorted: Float64Array | number[], p: number): number {
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
}

/** A small seeded generator (mulberry32): the same population on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const CURRENCIES = ["USD", "EUR", "GBP", "JPY"];
const GROUPS = [
  ...["std", "pro", "vip", "ecn", "islamic"].flatMap((kind) => CURRENCIES.map((c) => `real\\${c.toLowerCase()}\\${kind}`)),
  ...["std", "pro", "vip", "ecn", "islamic"].flatMap((kind) => CURRENCIES.map((c) => `demo\\${c.toLowerCase()}\\${kind}`)),
];
const SYMBOLS = [
  ...["EURUSD", "GBPUSD", "USDJPY", "USDCHF", "AUDUSD", "USDCAD", "NZDUSD"].map((s) => `Forex\\Majors\\${s}`),
  ...["EURGBP", "EURJPY", "GBPJPY", "EURCHF", "AUDJPY", "EURAUD", "GBPCHF", "CADJPY"].map((s) => `Forex\\Crosses\\${s}`),
  ...["XAUUSD", "XAGUSD", "XPTUSD"].map((s) => `Metals\\${s}`),
  ...["US500", "US30", "NAS100", "DE40", "UK100", "JP225"].map((s) => `Indices\\${s}`),
  ...["BTCUSD", "ETHUSD", "LTCUSD", "XRPUSD", "SOLUSD", "ADAUSD"].map((s) => `Crypto\\${s}`),
];

const ladder = (base: number, steps: number[], leverages: number[]) => steps.map((s, i) => ({ threshold: s * base, leverage: leverages[i]! }));

/** 20 rules a busy broker might run, most specific first. */
function benchRules(): FlexibleLeverageSettingsInput {
  const rules: RuleInput[] = [
    {
      name: "NFP",
      groups: "real*",
      symbols: "Forex\\*,Indices\\US*",
      mode: "equity",
      windows: [{ kind: "news", name: "NFP", date: "2026-12-04", time: "15:30", durationMinutes: 30, leverage: 50 }],
    },
    {
      name: "ECB",
      groups: "real*",
      symbols: "*EUR*",
      mode: "equity",
      windows: [{ kind: "news", name: "ECB", date: "2026-12-17", time: "15:15", durationMinutes: 45, leverage: 50 }],
    },
    { name: "Crypto weekend", groups: "real*", symbols: "Crypto\\*", mode: "exposureLots", tiers: ladder(1, [0, 5, 20], [20, 10, 5]), windows: [weekend(2)] },
    { name: "Gold", groups: "real*,!real\\*\\islamic", symbols: "Metals\\XAU*", mode: "equity", tiers: ladder(1, [0, 50_000, 200_000], [200, 50, 20]) },
    { name: "Silver and platinum", groups: "real*", symbols: "Metals\\*,!Metals\\XAU*", mode: "exposureLots", tiers: ladder(1, [0, 10, 50], [100, 50, 20]) },
    {
      name: "Indices US",
      groups: "real*",
      symbols: "Indices\\US*,Indices\\NAS*",
      mode: "exposureNotional",
      tiers: ladder(1, [0, 1_000_000, 5_000_000], [200, 100, 50]),
    },
    { name: "Indices EU", groups: "real*", symbols: "Indices\\DE*,Indices\\UK*", mode: "exposureNotional", tiers: ladder(1, [0, 1_000_000], [200, 100]) },
    { name: "Indices Asia", groups: "real*", symbols: "Indices\\JP*", mode: "exposureLots", tiers: ladder(1, [0, 10], [100, 50]) },
    { name: "Crosses big", groups: "real*", symbols: "Forex\\Crosses\\*", mode: "exposureLots", tiers: ladder(1, [20, 100], [200, 100]) },
    { name: "VIP weekend", groups: "real\\*\\vip", mode: "equity", tiers: ladder(1, [0], [1000]), windows: [weekend(200)], maxLeverage: 500 },
    { name: "Islamic", groups: "real\\*\\islamic", mode: "equity", tiers: ladder(1, [0, 10_000], [300, 100]) },
    { name: "ECN exposure", groups: "real\\*\\ecn", mode: "exposureNotional", tiers: ladder(1, [0, 500_000, 2_000_000, 10_000_000], [500, 300, 200, 100]) },
    { name: "Weekend", groups: "real*", mode: "equity", windows: [weekend(100)] },
    { name: "JPY accounts", groups: "real\\jpy\\*", mode: "equity", tiers: ladder(100, [0, 1_000_000, 10_000_000], [400, 200, 100]) },
    { name: "GBP accounts", groups: "real\\gbp\\*", mode: "equity", tiers: ladder(1, [0, 20_000, 100_000], [400, 200, 100]) },
    { name: "Pro", groups: "real\\*\\pro", mode: "equity", tiers: ladder(1, [0, 25_000, 250_000], [500, 200, 100]), maxLeverage: 400 },
    { name: "Equity ladder", groups: "real*,!real\\*\\vip", mode: "equity", tiers: ladder(1, [0, 5_000, 50_000, 500_000], [500, 300, 100, 50]) },
    { name: "Demo big", groups: "demo*", mode: "exposureLots", tiers: ladder(1, [50], [100]) },
    { name: "Demo", groups: "demo*", mode: "equity", tiers: ladder(1, [0, 100_000], [1000, 200]) },
    { name: "Old", active: false, groups: "*", mode: "equity", tiers: ladder(1, [0], [1]) },
  ];
  return { managers: ["1000"], rules };
}

function weekend(leverage: number) {
  return { kind: "weekend" as const, from: { day: "friday" as const, time: "23:00" }, to: { day: "sunday" as const, time: "23:00" }, leverage };
}

function population(count: number): { accounts: LeverageAccount[]; groupLeverage: Map<string, number> } {
  const next = random(28);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const groupLeverage = new Map(GROUPS.map((g, i) => [g, [100, 200, 500, 1000][i % 4]!]));
  const accounts: LeverageAccount[] = [];
  for (let i = 0; i < count; i++) {
    const group = pick(GROUPS);
    const currency = group.split("\\")[1]!.toUpperCase();
    // Log-uniform equity from 10 to 1,000,000.
    const equity = Math.round(10 ** (1 + next() * 5) * 100);
    const positions = Array.from({ length: Math.floor(next() * 6) }, () => {
      const lots = Math.round(next() * 500) / 100 + 0.01;
      return { symbol: pick(SYMBOLS), lots, notional: Math.round(lots * 100_000 * 100), openedBeforeChange: next() < 0.5 };
    });
    accounts.push({ login: String(100_000 + i), group, currency, equity, leverage: groupLeverage.get(group)!, positions });
  }
  return { accounts, groupLeverage };
}

export async function flexibleLeverageBench({ line }: { line: Line }): Promise<void> {
  line(`== Flexible Leverage: ${n(ACCOUNTS)} accounts × 20 rules, the engine alone (${TIME_ZONE}) ==`);
  line(`load average before: ${load()} (${os.cpus().length} CPU(s), shared with other work)`);
  const { accounts, groupLeverage } = population(ACCOUNTS);
  const positions = accounts.reduce((sum, a) => sum + a.positions.length, 0);
  line(`population: ${n(accounts.length)} accounts in ${GROUPS.length} groups, ${n(positions)} positions on ${SYMBOLS.length} symbols`);

  const compileStart = performance.now();
  const settings = benchRules();
  const compiled = compileRules(settings, { timeZone: TIME_ZONE });
  line(`compile ${settings.rules!.length} rules: ${(performance.now() - compileStart).toFixed(2)} ms`);

  // Warm up (the JIT, and the group, symbol and window caches), then one untimed pass for the mean.
  let sink = 0;
  for (const account of accounts) sink += evaluateAccount(compiled, account, groupLeverage.get(account.group)!, WEDNESDAY).leverage;
  const passStart = performance.now();
  for (const account of accounts) sink += evaluateAccount(compiled, account, groupLeverage.get(account.group)!, WEDNESDAY).leverage;
  const mean = (performance.now() - passStart) / accounts.length;

  const times = new Float64Array(accounts.length);
  for (let i = 0; i < accounts.length; i++) {
    const account = accounts[i]!;
    const cap = groupLeverage.get(account.group)!;
    const t0 = performance.now();
    sink += evaluateAccount(compiled, account, cap, WEDNESDAY).leverage;
    times[i] = performance.now() - t0;
  }
  times.sort();
  line(
    `evaluation per account: mean ${us(mean)} (untimed pass over all), p50 ${us(nearestRank(times, 0.5))}, p99 ${us(nearestRank(times, 0.99))}, max ${us(times.at(-1)!)} (each timed alone) — target ≤ 5 µs (${(mean / 0.005).toFixed(2)}× of it)`,
  );

  const cold = performance.now();
  let result = preview(compileRules(settings, { timeZone: TIME_ZONE }), accounts, { at: WEDNESDAY, groupLeverage });
  const coldMs = performance.now() - cold;
  const warm: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    result = preview(compiled, accounts, { at: WEDNESDAY, groupLeverage });
    warm.push(performance.now() - t0);
  }
  warm.sort((a, b) => a - b);
  const c = result.counts;
  line(
    `preview of the whole population: ${coldMs.toFixed(1)} ms cold (fresh compile), p50 ${nearestRank(warm, 0.5).toFixed(1)} ms warm (5 runs) — ` +
      `${n(c.matched)} matched, ${n(c.unmatched)} on their group's default, ${n(c.changed)} would change (${n(c.raised)} up, ${n(c.lowered)} down)`,
  );
  const saturdayStart = performance.now();
  const saturday = preview(compiled, accounts, { at: WEDNESDAY, groupLeverage, whatIf: { at: SATURDAY } });
  line(
    `preview "what if it were Saturday": ${(performance.now() - saturdayStart).toFixed(1)} ms — ${n(saturday.rows.filter((r) => r.windowKind === "weekend").length)} accounts in a weekend window, ${n(saturday.counts.changed)} would change`,
  );
  const busiest = [...c.byRule].sort((a, b) => b.accounts - a.accounts).slice(0, 3);
  line(`busiest rules: ${busiest.map((r) => `'${r.ruleName}' ${n(r.accounts)}`).join(", ")}`);
  line(`load average after: ${load()}${sink === 0 ? " " : ""}`);
}

/** The simulated MT5 server's Flexible Leverage plugin (docs/flexible-leverage.md). */
const PLUGIN = "CPlugin.MT5Plugin.FlexibleLeverage";

/** The preview through the API on PostgreSQL: see the file's comment. */
export async function flexibleLeverageApiBench({ adminUrl, line }: { adminUrl: string; line: Line }): Promise<void> {
  line(`== Flexible Leverage preview through the API: ${n(ACCOUNTS)} accounts × 20 rules, PostgreSQL, ${REQUESTS} requests per query ==`);
  line(`load average before: ${load()} (${os.cpus().length} CPU(s), shared with other work)`);
  await withEmptyPostgresDatabase(adminUrl, "toolbox_bench_flex", async (databaseUrl) => {
    const dataDir = benchDataDir();
    const database = await openDatabase({ databaseUrl, dataDir });
    const bench = await benchApp(database, { dataDir, env: { NODE_ENV: "production" } });
    const { app, ctx } = bench;
    try {
      const { person, organizationId, headers } = await bench.signUp("Bench Risk Manager");
      // A fresh token for the measuring (mirroring 100,000 accounts on a busy machine can outlast the first).
      const tokens = await tokenFactory(ctx);
      let previewHeaders = headers;
      const createdAt = performance.now();
      const created = await app.inject({
        method: "POST",
        url: "/api/tradePlatforms",
        headers,
        payload: { type: "MT5", name: "Bench MT5", timeZone: TIME_ZONE, connection: { kind: "simulated", accounts: ACCOUNTS, tradeRate: 0, seed: 28 } },
      });
      if (created.statusCode !== 201) throw new Error(`creating the platform answered ${created.statusCode}: ${created.body}`);
      const platformId = created.json<{ id: string }>().id;
      const status = await accountsMirrorOf(ctx)!.whenSynced(platformId, 900_000);
      line(`simulated MT5 created and ${n(status.accounts)} accounts mirrored in ${((performance.now() - createdAt) / 1000).toFixed(1)} s`);

      const url = `/api/tradePlatforms/${platformId}/plugins/${PLUGIN}/flexibleLeverage/preview`;
      const settings = benchRules();
      const saturday = new Date(SATURDAY).toISOString().slice(0, 16);
      const queries: [string, Record<string, unknown>][] = [
        ["first page of 100", { settings }],
        ["only accounts that would change, page 3", { settings, onlyChanged: true, offset: 200 }],
        ["login starts with 1000", { settings, login: "1000" }],
        [`what if the server's clock read ${saturday.replace("T", " ")} (weekend windows open)`, { settings, whatIf: { serverTime: saturday } }],
      ];
      // The simulated server may drop the connection when the machine is busy (its heartbeat): a
      // 503 is waited out (bounded) and counted, not measured.
      let unavailable = 0;
      const ask = async (payload: Record<string, unknown>) => {
        for (let attempt = 0; ; attempt++) {
          const t0 = performance.now();
          const res = await app.inject({ method: "POST", url, headers: previewHeaders, payload });
          const elapsed = performance.now() - t0;
          if (res.statusCode === 200) return { elapsed, body: res.json<{ total: number; counts: { changed: number } }>() };
          if (res.statusCode !== 503 || attempt >= 120) throw new Error(`${url} answered ${res.statusCode}: ${res.body.slice(0, 500)}`);
          unavailable++;
          await new Promise((resolve) => setTimeout(resolve, 1000));
        }
      };
      const all: number[] = [];
      for (const [label, payload] of queries) {
        previewHeaders = apiHeaders(await tokens.mint(person), organizationId);
        let body = (await ask(payload)).body;
        for (let i = 0; i < 2; i++) body = (await ask(payload)).body;
        const times: number[] = [];
        for (let i = 0; i < REQUESTS; i++) times.push((await ask(payload)).elapsed);
        all.push(...times);
        times.sort((a, b) => a - b);
        line(
          `${label}: ${n(body.total)} rows, ${n(body.counts.changed)} would change — p50 ${nearestRank(times, 0.5).toFixed(1)} ms, p99 ${nearestRank(times, 0.99).toFixed(1)} ms, max ${times.at(-1)!.toFixed(1)} ms`,
        );
      }
      if (unavailable > 0) line(`(${unavailable} answers were 503, the simulated server reconnecting: waited out, not measured)`);
      all.sort((a, b) => a - b);
      const p99 = nearestRank(all, 0.99);
      line(
        `all ${all.length} previews: p50 ${nearestRank(all, 0.5).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms — target ≤ 1 s p99 (${(p99 / 1000).toFixed(2)}× of it)`,
      );
      line(`load average after: ${load()}`);
    } finally {
      await bench.close();
      await database.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
}
