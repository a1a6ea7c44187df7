/**
 * HTTP load figures (docs/benchmarks.md): the real server on loopback under autocannon (100
 * connections, a few seconds each, the load generated in a worker thread), against a bare Fastify
 * hello-world measured in the same run, so the ratio says what the API's own path costs:
 *
 *  - bare Fastify: `GET /` answering `{"hello":"world"}`, no logger, no plugins;
 *  - the guarded `GET /api/members`: bearer token (a real one, from signing up through the
 *    embedded provider's pages), organization membership, permission, the handler's query,
 *    response validation, logging (info level, asynchronously to a file), security headers.
 *
 * Target (docs/requirements.md#r-targets-server): the guarded route keeps ≥ 0.3× bare Fastify's throughput.
 *
 * `runHttpBenchmark()` is called by bench/run.ts; `node --import tsx bench/http.ts` runs it alone.
 * Database: PostgreSQL at TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres)
 * when it answers, a database created for the run and dropped after it; otherwise in-memory PGlite.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import autocannon from "autocannon";
import Fastify, { type FastifyInstance } from "fastify";
import { serializerCompiler, validatorCompiler } from "fastify-type-provider-zod";
import pino from "pino";
import type { AppContext } from "../server/context.ts";
import type { Database } from "../server/db/client.ts";
import { benchConfig } from "./benchApp.ts";
import { openBenchDatabase } from "./benchDatabase.ts";
import { buildApp } from "../server/http/app.ts";
import { accessStatePlugin } from "../server/http/auth/accessState.ts";
import { authGuard } from "../server/http/auth/guard.ts";
import { registerErrorHandling } from "../server/http/errors.ts";
import { loggerOptions, RequestLogController } from "../server/http/logging.ts";
import { signUp } from "../tests/helpers/oidcFlow.ts";
import { apiHeaders } from "../tests/helpers/tokens.ts";

/** One URL to put under load. */
export interface LoadTarget {
  label: string;
  url: string;
  headers?: Record<string, string>;
}

export interface LoadFigures {
  label: string;
  /** Median over the rounds. */
  requestsPerSecond: number;
  /** Latency percentiles of the median round. */
  p50Ms: number;
  p99Ms: number;
  /** Answers other than 2xx, and connection errors or timeouts, over all rounds: a figure with any is not comparable. */
  non2xx: number;
  errors: number;
}

const CONNECTIONS = Number(process.env.BENCH_HTTP_CONNECTIONS ?? 100);
/** Seconds of load per target, split into rounds. */
const SECONDS = Number(process.env.BENCH_HTTP_SECONDS ?? 6);
export const ROUNDS = Number(process.env.BENCH_HTTP_ROUNDS ?? 3);
const TARGET_RATIO = 0.3;

/** One autocannon run on loopback, its load generated in a worker thread so it does not share the server's event loop. */
async function cannon(target: LoadTarget, seconds: number, connections = CONNECTIONS) {
  return autocannon({ url: target.url, connections, headers: target.headers ?? {}, workers: 1, duration: seconds });
}

/**
 * Every target warmed up (1 s), then measured in ROUNDS interleaved rounds (bare, route, …, bare,
 * route, …), each target's figure being its median round: a machine whose load drifts during the
 * run moves every target alike, so the ratios stay meaningful.
 */
export async function measureLoads(targets: LoadTarget[], options: { connections?: number; seconds?: number } = {}): Promise<LoadFigures[]> {
  const connections = options.connections ?? CONNECTIONS;
  for (const target of targets) await cannon(target, 1, connections);
  const rounds = targets.map(() => [] as autocannon.Result[]);
  const perRound = Math.max(1, Math.round((options.seconds ?? SECONDS) / ROUNDS));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, target] of targets.entries()) rounds[i]!.push(await cannon(target, perRound, connections));
  }
  return targets.map((target, i) => {
    const sorted = [...rounds[i]!].sort((x, y) => x.requests.average - y.requests.average);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    return {
      label: target.label,
      requestsPerSecond: median.requests.average,
      p50Ms: median.latency.p50,
      p99Ms: median.latency.p99,
      non2xx: sorted.reduce((n, r) => n + r.non2xx, 0),
      errors: sorted.reduce((n, r) => n + r.errors + r.timeouts, 0),
    };
  });
}

/**
 * The API's guard alone: the real guard plugin (token, membership, permission), the server's
 * logger and error handler, in front of a handler that answers `{"ok":true}` without touching the
 * database — what the guard and logging cost, apart from a route's own work.
 */
async function startGuardOnly(ctx: AppContext, logStream: { write(line: string): void }): Promise<{ url: string; close: () => Promise<void> }> {
  const guarded = Fastify({ logger: loggerOptions(ctx.config, { logStream }), logController: new RequestLogController() });
  guarded.decorate("ctx", ctx);
  guarded.setValidatorCompiler(validatorCompiler);
  guarded.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(guarded);
  await guarded.register(accessStatePlugin);
  await guarded.register(
    async (api) => {
      await api.register(authGuard);
      api.get("/guarded", { config: { permission: { module: "members", value: "read" } } }, async () => ({ ok: true }));
    },
    { prefix: "/api" },
  );
  const address = await guarded.listen({ host: "127.0.0.1", port: 0 });
  return { url: `${address}/api/guarded`, close: () => guarded.close() };
}

/** A bare Fastify hello-world on loopback: the baseline. */
export async function startBareFastify(): Promise<{ url: string; close: () => Promise<void> }> {
  const bare = Fastify({ logger: false });
  bare.get("/", async () => ({ hello: "world" }));
  const address = await bare.listen({ host: "127.0.0.1", port: 0 });
  return { url: `${address}/`, close: () => bare.close() };
}

/** A database for the run: a fresh PostgreSQL database when a server answers, else in-memory PGlite. */
async function benchDatabase(): Promise<{ database: Database; label: string; drop: () => Promise<void> }> {
  const { database, label } = await openBenchDatabase(process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres");
  return { database, label, drop: () => database.drop() };
}

export interface HttpBenchmarkResult {
  database: string;
  bare: LoadFigures;
  figures: LoadFigures[];
}

/**
 * Starts the real server (API and identity provider, as `npm start` minus the pages) on loopback,
 * signs a person up through the provider's pages, and measures bare Fastify and the API.
 */
export async function runHttpBenchmark(opts: { line?: (text: string) => void } = {}): Promise<HttpBenchmarkResult> {
  const line = opts.line ?? ((text: string) => console.log(text));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "toolbox-bench-http-"));
  const logFile = path.join(dataDir, "server.log");
  const { database, label: databaseLabel, drop } = await benchDatabase();
  const logStream = pino.destination({ dest: logFile, sync: false, mkdir: true });
  const config = benchConfig(dataDir, { NODE_ENV: "production", LOG_LEVEL: "info" });
  const ctx: AppContext = { config, database };
  let app: FastifyInstance | undefined;
  const bare = await startBareFastify();
  const closers: (() => Promise<void>)[] = [bare.close];
  try {
    app = await buildApp(ctx, { web: false, logger: true, logStream });
    const base = await app.listen({ host: "127.0.0.1", port: 0 });
    const password = crypto.randomBytes(12).toString("base64url");
    const tokens = await signUp(app, { name: "Bench Member", email: `bench-${Date.now()}@example.test`, password });
    const preflight = await app.inject({ url: "/api/profile/preflight", headers: apiHeaders(tokens.access_token) });
    const org = preflight.json().createdOrganizationId as string;
    const headers = apiHeaders(tokens.access_token, org);
    const check = await app.inject({ url: "/api/members", headers });
    if (check.statusCode !== 200) throw new Error(`GET /api/members answered ${check.statusCode}: ${check.body}`);

    const guardOnly = await startGuardOnly(ctx, logStream);
    closers.push(guardOnly.close);

    const targets: LoadTarget[] = [
      { label: "bare Fastify hello-world", url: bare.url },
      { label: "GET /api/members (guarded: token, membership, permission, query, logging)", url: `${base}/api/members`, headers },
      { label: "the guard alone (same token and checks; handler without query)", url: guardOnly.url, headers },
    ];
    // The accounts list at 100,000 mirrored accounts (docs/requirements.md#r-targets-lists) goes here: once its platform
    // and accounts are set up on this server (`app`, `headers`),
    //   targets.push({ label: "GET /api/accounts (filtered, sorted, 100,000 accounts)", url: `${base}/api/accounts?…`, headers });

    line("");
    line(
      `== HTTP load: autocannon, ${CONNECTIONS} connections, loopback (${databaseLabel}); ` +
        `median of ${ROUNDS} interleaved rounds of ${Math.max(1, Math.round(SECONDS / ROUNDS))} s per target ==`,
    );
    const [baseline, ...figures] = await measureLoads(targets);
    printFigures(line, baseline!, figures);
    return { database: databaseLabel, bare: baseline!, figures };
  } finally {
    for (const close of closers) await close();
    await app?.close();
    try {
      logStream.flushSync();
    } catch {
      // Not opened yet, or already closed: nothing to flush.
    }
    await drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function printFigures(line: (text: string) => void, baseline: LoadFigures, figures: LoadFigures[]) {
  const rate = (v: number) => Math.round(v).toLocaleString("en-US").padStart(8);
  const ms = (v: number) => `${v.toFixed(1)} ms`.padStart(9);
  const health = (f: LoadFigures) => (f.non2xx || f.errors ? `  (!) ${f.non2xx} non-2xx, ${f.errors} errors` : "");
  line(`${"".padEnd(78)}    req/s       p50       p99   × bare`);
  line(`${baseline.label.padEnd(78)} ${rate(baseline.requestsPerSecond)} ${ms(baseline.p50Ms)} ${ms(baseline.p99Ms)}     1.00${health(baseline)}`);
  for (const f of figures) {
    const ratio = f.requestsPerSecond / baseline.requestsPerSecond;
    line(`${f.label.padEnd(78)} ${rate(f.requestsPerSecond)} ${ms(f.p50Ms)} ${ms(f.p99Ms)}     ${ratio.toFixed(2)}${health(f)}`);
  }
  const guarded = figures[0];
  if (guarded) {
    const ratio = guarded.requestsPerSecond / baseline.requestsPerSecond;
    line(`guarded route: ${ratio.toFixed(2)}× bare Fastify (target ≥ ${TARGET_RATIO}×: ${ratio >= TARGET_RATIO ? "met" : "NOT met"})`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runHttpBenchmark().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
