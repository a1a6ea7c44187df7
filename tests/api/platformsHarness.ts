/**
 * The real app for the platform tests, with what they need beyond createTestApp: a database that
 * can outlive one app (restart tests), the log captured line by line (to prove no secret reaches
 * it), every response body kept (same), and short timeouts.
 */
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from "fastify";
import { loadConfig } from "../../server/config.ts";
import type { AppContext } from "../../server/context.ts";
import type { EventBus } from "../../server/events/bus.ts";
import type { TradeFeedPluginOptions } from "../../server/events/tradeFeedPlugin.ts";
import { buildApp } from "../../server/http/app.ts";
import type { QuotesMonitorPluginOptions } from "../../server/modules/quotesMonitor/monitor/plugin.ts";
import type { PlatformRuntimeOptions } from "../../server/modules/tradePlatforms/runtime/types.ts";
import { openTestDatabase } from "../helpers/db.ts";

export type TestDatabase = Awaited<ReturnType<typeof openTestDatabase>>;

export interface PlatformsApp {
  app: FastifyInstance;
  ctx: AppContext;
  /** Every log line written so far (JSON, level trace). */
  logs: string[];
  /** Every response body answered through `call`. */
  bodies: string[];
  call(options: InjectOptions): Promise<LightMyRequestResponse>;
  /** Closes the app; the database stays (see `drop`). */
  close(): Promise<void>;
  drop(): Promise<void>;
}

export const TEST_SECRETS_KEY = Buffer.alloc(32, 7).toString("base64");

export const FAST_RUNTIME: PlatformRuntimeOptions = {
  manager: { backoff: { initialMs: 50, maxMs: 400, multiplier: 2, jitter: 0.5 }, connectTimeoutMs: 3_000 },
  testConnectionTimeoutMs: 1_500,
  connectWaitMs: 3_000,
};

export async function startPlatformsApp(
  opts: {
    database?: TestDatabase;
    env?: Record<string, string>;
    runtime?: PlatformRuntimeOptions;
    bus?: EventBus;
    tradeFeed?: TradeFeedPluginOptions;
    quotesMonitor?: QuotesMonitorPluginOptions;
  } = {},
): Promise<PlatformsApp> {
  const config = loadConfig({
    NODE_ENV: "test",
    LOG_LEVEL: "trace",
    PUBLIC_URL: "http://localhost:3000",
    SECRETS_KEY: TEST_SECRETS_KEY,
    // These tests make many small simulated platforms in one organization; the quotas have tests of their own.
    TOOLBOX_MAX_SIMULATED_PLATFORMS: "100",
    ...opts.env,
  });
  const database = opts.database ?? (await openTestDatabase());
  const ctx: AppContext = { config, database };
  const logs: string[] = [];
  const bodies: string[] = [];
  const app = await buildApp(ctx, {
    web: false,
    logger: true,
    logStream: { write: (line) => void logs.push(line) },
    platforms: opts.runtime ?? FAST_RUNTIME,
    bus: opts.bus,
    tradeFeed: opts.tradeFeed,
    quotesMonitor: opts.quotesMonitor,
  });
  await app.ready();
  return {
    app,
    ctx,
    logs,
    bodies,
    async call(options) {
      const res = await app.inject(options);
      bodies.push(res.body);
      return res;
    },
    close: () => app.close(),
    drop: () => database.drop(),
  };
}

/** Polls until `check` returns a value (not undefined/false), or fails with the last value seen. */
export async function waitFor<T>(check: () => Promise<T | undefined | false>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    last = value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what} (last: ${JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
