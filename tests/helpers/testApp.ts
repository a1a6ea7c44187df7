import type { FastifyInstance } from "fastify";
import { loadConfig, type Config } from "../../server/config.ts";
import { buildApp } from "../../server/http/app.ts";
import type { AppContext } from "../../server/context.ts";
import { openTestDatabase } from "./db.ts";

export interface TestApp {
  app: FastifyInstance;
  ctx: AppContext;
  close(): Promise<void>;
}

/** The real server (API and identity provider, no pages) on a fresh test database. */
export async function createTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const config: Config = loadConfig({ NODE_ENV: "test", LOG_LEVEL: "silent", PUBLIC_URL: "http://localhost:3000", ...env });
  const database = await openTestDatabase();
  const ctx: AppContext = { config, database };
  const app = await buildApp(ctx, { web: false, logger: false });
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
