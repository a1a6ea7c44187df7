/**
 * The same event-loop measure as ./platformCreationStall.ts, on the embedded database (PGlite,
 * the default): a fresh app on its own PGlite, a 100,000-account simulated server created through
 * the API, and the longest stall until its first mirror sync ends. PGlite runs on its own thread
 * (decision 0046), so the database's work should not show here.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../server/config.ts";
import type { AppContext } from "../server/context.ts";
import { openDatabase } from "../server/db/client.ts";
import { buildApp } from "../server/http/app.ts";
import { apiHeaders, newPerson, tokenFactory } from "../tests/helpers/tokens.ts";
import { measurePlatformCreationStall } from "./platformCreationStall.ts";

export async function measurePgliteCreationStall(accounts: number, line: (text: string) => void): Promise<number> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "toolbox-bench-pglite-"));
  const config = loadConfig({
    NODE_ENV: "test",
    LOG_LEVEL: "silent",
    PUBLIC_URL: "http://localhost:3000",
    DATA_DIR: dataDir,
    SECRETS_KEY: crypto.randomBytes(32).toString("base64"),
  });
  const database = await openDatabase({ dataDir });
  const ctx: AppContext = { config, database };
  const app = await buildApp(ctx, { web: false, logger: false });
  try {
    await app.ready();
    const tokens = await tokenFactory(ctx);
    const token = await tokens.mint(newPerson("Bench PGlite"));
    const preflight = await app.inject({ url: "/api/profile/preflight", headers: apiHeaders(token) });
    const headers = apiHeaders(token, preflight.json().createdOrganizationId as string);
    line("");
    line("(on the embedded database, PGlite)");
    return await measurePlatformCreationStall({ app, ctx, headers, accounts, line });
  } finally {
    await app.close();
    await database.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
