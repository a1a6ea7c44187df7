/**
 * The app a benchmark measures: the real API (`buildApp`, without the web pages and the request
 * log) on the benchmark's database, with a data folder and a secrets key of its own, and a way to
 * sign a person up into an organization of their own. The benchmark owns the database (it drops or
 * closes it); `close()` closes the app and removes the data folder it made.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { loadConfig, type Config } from "../server/config.ts";
import type { AppContext } from "../server/context.ts";
import type { Database } from "../server/db/client.ts";
import { buildApp } from "../server/http/app.ts";
import { apiHeaders, newPerson, tokenFactory, type Person } from "../tests/helpers/tokens.ts";

export interface BenchApp {
  app: FastifyInstance;
  ctx: AppContext;
  /** Listens on a loopback port; the base URL (`http://127.0.0.1:<port>`). */
  listen(): Promise<string>;
  /** A new person (`name`), signed in, in an organization the preflight created for them: their API headers. */
  signUp(name: string): Promise<{ person: Person; organizationId: string; headers: Record<string, string> }>;
  close(): Promise<void>;
}

/** A data folder for a benchmark's app, under the system's temporary folder. */
export const benchDataDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "toolbox-bench-"));

/** A benchmark app's configuration: test mode, no log, a fresh secrets key, data in `dataDir`; `env` overrides any of it. */
export function benchConfig(dataDir: string, env: Record<string, string> = {}): Config {
  return loadConfig({
    NODE_ENV: "test",
    LOG_LEVEL: "silent",
    PUBLIC_URL: "http://localhost:3000",
    DATA_DIR: dataDir,
    SECRETS_KEY: crypto.randomBytes(32).toString("base64"),
    ...env,
  });
}

/**
 * The app on `database`, ready. `dataDir`: a folder the caller made (and removes), e.g. the one an
 * embedded database lives in; without it the app gets one of its own. `env`: settings over
 * `benchConfig`'s, e.g. `NODE_ENV: "production"` to measure answers as production writes them
 * (without the test-only check of each answer against its schema, decision 0073).
 */
export async function benchApp(database: Database, options: { dataDir?: string; env?: Record<string, string> } = {}): Promise<BenchApp> {
  const dataDir = options.dataDir ?? benchDataDir();
  const ctx: AppContext = { config: benchConfig(dataDir, options.env), database };
  const app = await buildApp(ctx, { web: false, logger: false });
  const close = async () => {
    await app.close();
    if (!options.dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await app.ready();
  } catch (err) {
    await close();
    throw err;
  }
  let tokens: Awaited<ReturnType<typeof tokenFactory>> | undefined;
  return {
    app,
    ctx,
    close,
    async listen() {
      await app.listen({ host: "127.0.0.1", port: 0 });
      const address = app.server.address();
      if (!address || typeof address === "string") throw new Error("the server has no TCP address");
      return `http://127.0.0.1:${address.port}`;
    },
    async signUp(name) {
      tokens ??= await tokenFactory(ctx);
      const person = newPerson(name);
      const token = await tokens.mint(person);
      const preflight = await app.inject({ url: "/api/profile/preflight", headers: apiHeaders(token) });
      const organizationId = preflight.json().createdOrganizationId as string;
      if (!organizationId) throw new Error(`the preflight answered ${preflight.statusCode}: ${preflight.body.slice(0, 300)}`);
      return { person, organizationId, headers: apiHeaders(token, organizationId) };
    },
  };
}
