/**
 * The blotter's historical queries at 1,000,000 deals (the target of docs/requirements.md#r-targets-blotter: by login and date range,
 * p99 ≤ 100 ms). The real app on a fresh PostgreSQL database (PGlite when none answers); the deals
 * are made by the database itself in one `generate_series` insert (10,000 accounts over 90 days,
 * 12 symbols), then analyzed; every request goes through `app.inject` (guard, validation,
 * serialization included) with a real token.
 *
 * Run alone with `node --import tsx bench/tradeHistory.ts` (BENCH_DEALS to change the size).
 */
import crypto from "node:crypto";
import { sql } from "drizzle-orm";
import { openBenchDatabase } from "./benchDatabase.ts";
import { benchApp } from "./benchApp.ts";

export interface TradeHistoryBenchOptions {
  adminUrl: string;
  deals?: number;
  requests?: number;
  line?: (text: string) => void;
}

const ACCOUNTS = 10_000;
const DAYS = 90;
const DAY = 86_400_000;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export async function tradeHistoryBench({ adminUrl, deals = 1_000_000, requests = 200, line = console.log }: TradeHistoryBenchOptions): Promise<void> {
  const { database, label } = await openBenchDatabase(adminUrl);
  const bench = await benchApp(database);
  const { app } = bench;
  try {
    const { db } = database;
    const { organizationId: org, headers } = await bench.signUp("Bench Dealer");
    line("");
    line(`== Trade history: ${deals.toLocaleString("en-US")} deals of ${ACCOUNTS.toLocaleString("en-US")} accounts over ${DAYS} days (${label}) ==`);

    // A disabled platform (the runtime leaves it alone) with the blotter assigned, its accounts mirrored.
    const now = Date.now();
    const platformId = crypto.randomUUID();
    await db.execute(
      sql`insert into trade_platforms (id, organization_id, type, name, enable) values (${platformId}::uuid, ${org}::uuid, 'MT5', 'Bench MT5', false)`,
    );
    await db.execute(sql`insert into trade_platform_apps (platform_id, app) values (${platformId}::uuid, 'tradesBlotter')`);
    await db.execute(sql`
      insert into trading_accounts (organization_id, platform_id, login, "group", name, email, leverage, currency, balance, credit, equity, margin,
        free_margin, margin_state, enabled, read_only, registration)
      select ${org}::uuid, ${platformId}::uuid, (100000 + i)::text, case when i % 5 = 0 then 'demo\\standard' else 'real\\standard' end,
        'Trader ' || i, 'trader' || i || '@example.com', 100, 'USD', 1000, 0, 1000, 0, 1000, 'ok', true, false, now()
      from generate_series(1, ${ACCOUNTS}) as i`);
    const loadStart = performance.now();
    await db.execute(sql`
      insert into trade_deals (organization_id, platform_id, deal_id, login, time, action, entry, position_id, symbol, volume, price,
        profit, commission, swap, reason, comment, native)
      select ${org}::uuid, ${platformId}::uuid, (8000000 + i)::text, (100001 + (i::bigint * 7919) % ${ACCOUNTS})::text,
        to_timestamp((${now} - (${deals} - i)::float8 * ${(DAYS * DAY) / deals}) / 1000),
        case when i % 2 = 0 then 'buy' else 'sell' end, case when i % 4 < 2 then 'in' else 'out' end, (5000000 + i / 2)::text,
        (array['EURUSD','GBPUSD','USDJPY','USDCHF','AUDUSD','USDCAD','XAUUSD','XAGUSD','US30','GER40','BTCUSD','ETHUSD'])[1 + i % 12],
        (1 + i % 50)::numeric / 100, 1.1, ((i % 2001) - 1000)::numeric / 10, -0.7, 0, 'client', '',
        jsonb_build_object('platform', 'MT5', 'deal', 8000000 + i, 'order', 0, 'position', 5000000 + i / 2)
      from generate_series(1, ${deals}) as i`);
    await db.execute(sql`analyze trade_deals`);
    await db.execute(sql`analyze trading_accounts`);
    line(`loaded in ${((performance.now() - loadStart) / 1000).toFixed(1)} s (one insert … select generate_series, then analyze)`);

    const iso = (ms: number) => new Date(ms).toISOString();
    const randomLogin = () => String(100001 + Math.floor(Math.random() * ACCOUNTS));
    const queries: [string, () => string][] = [
      ["by login, last 7 days, limit 200", () => `login=${randomLogin()}&from=${iso(now - 7 * DAY)}&to=${iso(now + 1000)}&limit=200`],
      ["by login, 90 days, limit 200", () => `login=${randomLogin()}&from=${iso(now - 91 * DAY)}&to=${iso(now + 1000)}&limit=200`],
      [
        "by login, a random day in the range",
        () => {
          const day = now - Math.floor(Math.random() * DAYS) * DAY;
          return `login=${randomLogin()}&from=${iso(day - DAY)}&to=${iso(day)}&limit=200`;
        },
      ],
      ["org-wide, last 30 days, first page of 200 (count capped at 10,000)", () => `from=${iso(now - 30 * DAY)}&to=${iso(now + 1000)}&limit=200`],
      ["org-wide, last 30 days, symbolMask=XAU*,BTC*, first page", () => `from=${iso(now - 30 * DAY)}&to=${iso(now + 1000)}&symbolMask=XAU*,BTC*&limit=200`],
      ["org-wide, groupMask=demo*, side=buy, first page", () => `from=${iso(now - 30 * DAY)}&to=${iso(now + 1000)}&groupMask=demo*&side=buy&limit=200`],
    ];
    for (const [name, query] of queries) {
      for (let i = 0; i < 10; i++) {
        const warm = await app.inject({ url: `/api/tradesBlotter/deals?${query()}`, headers });
        if (warm.statusCode !== 200) throw new Error(`${name} answered ${warm.statusCode}: ${warm.body}`);
      }
      const times: number[] = [];
      let rows = 0;
      for (let i = 0; i < requests; i++) {
        const t0 = performance.now();
        const res = await app.inject({ url: `/api/tradesBlotter/deals?${query()}`, headers });
        times.push(performance.now() - t0);
        rows += res.json<{ items: unknown[] }>().items.length;
      }
      times.sort((a, b) => a - b);
      line(
        `${name}: p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms, max ${times.at(-1)!.toFixed(1)} ms (${Math.round(rows / requests)} rows a page)`,
      );
    }
    const csvStart = performance.now();
    const csv = await app.inject({ url: `/api/tradesBlotter/deals.csv?from=${iso(now - 7 * DAY)}&to=${iso(now + 1000)}`, headers });
    const csvMs = performance.now() - csvStart;
    const lines = Number(csv.headers["x-total-count"]);
    line(
      `deals.csv, org-wide, last 7 days: ${lines.toLocaleString("en-US")} rows in ${(csvMs / 1000).toFixed(2)} s (${Math.round(lines / (csvMs / 1000)).toLocaleString("en-US")} rows/s)`,
    );
    // The range's totals (GET /api/tradesBlotter/deals/totals): their own request beside the first
    // page, one pass over every matching deal; fewer requests, an org-wide range reads them all.
    const totalsQueries: [string, () => string][] = [
      ["totals by login, 90 days", () => `login=${randomLogin()}&from=${iso(now - 91 * DAY)}&to=${iso(now + 1000)}`],
      ["totals org-wide, last 7 days", () => `from=${iso(now - 7 * DAY)}&to=${iso(now + 1000)}`],
      ["totals org-wide, last 30 days", () => `from=${iso(now - 30 * DAY)}&to=${iso(now + 1000)}`],
      ["totals org-wide, 90 days (every deal)", () => `from=${iso(now - 91 * DAY)}&to=${iso(now + 1000)}`],
    ];
    for (const [name, query] of totalsQueries) {
      const times: number[] = [];
      for (let i = 0; i < 22; i++) {
        const t0 = performance.now();
        const res = await app.inject({ url: `/api/tradesBlotter/deals/totals?${query()}`, headers });
        if (res.statusCode !== 200) throw new Error(`${name} answered ${res.statusCode}: ${res.body}`);
        if (i >= 2) times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      line(`${name}: p50 ${percentile(times, 50).toFixed(1)} ms, max ${times.at(-1)!.toFixed(1)} ms (20 requests)`);
    }
  } finally {
    await bench.close();
    await database.drop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await tradeHistoryBench({
    adminUrl: process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
    deals: Number(process.env.BENCH_DEALS ?? 1_000_000),
  });
  process.exit(0);
}
