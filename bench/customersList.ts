/**
 * The customers list (GET /api/customers) at 100,000 customers on PostgreSQL (docs/requirements.md#r-targets-lists): req/s,
 * p50 and p99 with autocannon (in a worker thread) at 100 connections over loopback, against bare Fastify in the same run, for the default page, an e-mail
 * search, filters with a sort, a tag, and a deep page. The customers are written by one SQL
 * statement (generate_series), with tags, countries, statuses and owners spread over them.
 *
 * The real server (every plugin, the guard, validation, serialization; logging off), a real access
 * token. Run alone with `node --import tsx bench/customersList.ts`; BENCH_CUSTOMERS and
 * BENCH_LOAD_SECONDS make it smaller (e.g. 2000 and 5 to check that it runs).
 */
import { pathToFileURL } from "node:url";
import { sql } from "drizzle-orm";
import { withBenchDatabase } from "./benchDatabase.ts";
import { measureLoads, ROUNDS, startBareFastify, type LoadTarget } from "./http.ts";
import { benchApp } from "./benchApp.ts";

export interface CustomersListOptions {
  adminUrl?: string;
  customers?: number;
  connections?: number;
  seconds?: number;
  line?: (text: string) => void;
}

const rate = (value: number) => Math.round(value).toLocaleString("en-US");

export async function customersListBench(options: CustomersListOptions = {}): Promise<void> {
  const adminUrl = options.adminUrl ?? process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const count = options.customers ?? Number(process.env.BENCH_CUSTOMERS ?? 100_000);
  const connections = options.connections ?? 100;
  const seconds = options.seconds ?? Number(process.env.BENCH_LOAD_SECONDS ?? 9);
  const line = options.line ?? ((text: string) => console.log(text));

  await withBenchDatabase(adminUrl, async (database) => {
    const bench = await benchApp(database, { env: { NODE_ENV: "production" } });
    const { app } = bench;
    const bare = await startBareFastify();
    try {
      const base = await bench.listen();
      const { person, organizationId, headers } = await bench.signUp("Load Clerk");
      const dbName = database.kind === "postgres" ? "PostgreSQL" : "PGlite";

      const started = performance.now();
      await database.db.execute(sql`
        insert into customers (organization_id, kind, name, email, phone, country, status, kyc, tags, owner_sub, created_at, updated_at)
        select ${organizationId}::uuid,
          case when i % 5 = 0 then 'company' else 'person' end,
          'Client ' || i || case when i % 7 = 0 then ' Holdings' else '' end,
          'client' || i || '@example' || (i % 50) || '.com',
          '+46 8 ' || lpad((i % 1000000)::text, 6, '0'),
          (array['SE','NO','DE','FR','GB','US','CY','AE'])[1 + i % 8],
          (array['lead','active','blocked'])[1 + i % 3],
          (array['notStarted','pending','verified','rejected'])[1 + i % 4],
          case when i % 10 = 0 then array['vip'] when i % 3 = 0 then array['retail','eu'] else array['retail'] end,
          case when i % 4 = 0 then ${person.sub} else null end,
          now() - (i || ' minutes')::interval,
          now() - (i || ' seconds')::interval
        from generate_series(1, ${count}) as i`);
      await database.db.execute(sql`analyze customers`);
      line("");
      line(
        `== GET /api/customers at ${rate(count)} customers (${dbName}): written in ${((performance.now() - started) / 1000).toFixed(1)} s; autocannon in a worker thread, ${connections} connections, loopback; median of ${ROUNDS} interleaved rounds, ${seconds} s per query in all ==`,
      );

      const queries: [string, string][] = [
        ["first page by name", "/api/customers?limit=100"],
        ["e-mail search", "/api/customers?q=client4242%40&limit=100"],
        ["status + country, newest first", "/api/customers?status=active&country=SE&sort=createdAt&dir=desc&limit=100"],
        ["tag vip, by e-mail desc", "/api/customers?tag=vip&sort=email&dir=desc&limit=100"],
        ["my customers, by KYC", `/api/customers?owner=${encodeURIComponent(person.sub)}&sort=kyc&limit=100`],
        ["deep page (the middle)", `/api/customers?offset=${Math.floor(count / 2)}&limit=100`],
      ];
      const targets: LoadTarget[] = [{ label: "bare Fastify hello-world", url: bare.url }];
      for (const [label, url] of queries) {
        const check = await app.inject({ url, headers });
        if (check.statusCode !== 200) throw new Error(`${label}: ${check.statusCode} ${check.body}`);
        targets.push({ label: `${label} (${rate(check.json().total)} matching)`, url: `${base}${url}`, headers });
      }
      const [baseline, ...figures] = await measureLoads(targets, { connections, seconds });
      line(`${baseline!.label.padEnd(50)} ${rate(baseline!.requestsPerSecond)} req/s`);
      for (const f of figures) {
        const failed = f.non2xx + f.errors;
        line(
          `${f.label.padEnd(50)} ${rate(f.requestsPerSecond)} req/s (${(f.requestsPerSecond / baseline!.requestsPerSecond).toFixed(3)}× bare), ` +
            `p50 ${f.p50Ms} ms, p99 ${f.p99Ms} ms${failed > 0 ? ` (${failed} failed)` : ""}`,
        );
      }
    } finally {
      await bare.close();
      await bench.close();
    }
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await customersListBench();
