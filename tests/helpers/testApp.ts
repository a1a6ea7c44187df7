import crypto from "node:crypto";
import type { FastifyInstance } from "fastify";
import { loadConfig, type Config } from "../../server/config.ts";
import { buildApp, type BuildAppOptions } from "../../server/http/app.ts";
import type { AppContext } from "../../server/context.ts";
import { openTestDatabase } from "./db.ts";

export interface TestApp {
  app: FastifyInstance;
  ctx: AppContext;
  close(): Promise<void>;
}

/** One key for the whole test run (tests that restart an app on the same database need the same key). */
export const TEST_SECRETS_KEY = crypto.randomBytes(32).toString("base64");

export interface TestAppOptions extends Pick<BuildAppOptions, "onRoute"> {
  /** Collect every log line here (at LOG_LEVEL, `trace` unless `env` says otherwise). */
  logs?: string[];
}

/** The real server (API and identity provider, no pages) on a fresh test database. */
export async function createTestApp(env: Record<string, string> = {}, opts: TestAppOptions = {}): Promise<TestApp> {
  const logs = opts.logs;
  const config: Config = loadConfig({
    NODE_ENV: "test",
    LOG_LEVEL: logs ? "trace" : "silent",
    PUBLIC_URL: "http://localhost:3000",
    // Secrets at rest are encrypted under this key; without it a key file would be made in ./data.
    SECRETS_KEY: TEST_SECRETS_KEY,
    ...env,
  });
  const database = await openTestDatabase();
  const ctx: AppContext = { config, database };
  const logging = logs ? { logger: true, logStream: { write: (line: string) => void logs.push(line) } } : { logger: false };
  const app = await buildApp(ctx, { web: false, ...logging, onRoute: opts.onRoute });
  await app.ready();
  return {
    app,
    ctx,
    async close() {
      await app.close();
      await database.drop();
    },
  };
}
