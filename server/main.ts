import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import { symbols } from "pino";
import { loadConfig, type Config } from "./config.ts";
import { openDatabase } from "./db/client.ts";
import { buildApp } from "./http/app.ts";
import { seedDemo, type SeedResult } from "./seed.ts";
import { secretCipherOf } from "./secrets/context.ts";
import { reencryptPlatformSecrets } from "./secrets/rotation.ts";
import type { AppContext } from "./context.ts";

/** How long the banner waits for the platforms' first connections at most (a slow server does not hold it longer). */
const STARTUP_BANNER_WAIT_MS = 15_000;

/** Until every enabled platform's first connection has an outcome and, for those connected, the trade feed first tried its lease. */
async function afterConnectionLines(app: FastifyInstance, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const connected = await app.platforms.whenFirstConnected(timeoutMs);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now()))));
  await Promise.race([Promise.all(connected.map((id) => app.tradeFeed.firstLeaseAttempt(id))), late]);
  clearTimeout(timer);
}

type LogStream = { write(text: string): unknown; fd?: unknown };

/**
 * Prints plain text after every log line written so far. The JSON log is written asynchronously
 * (server/http/logging.ts: a buffer on stdout), so a console.log could overtake lines still in it:
 * the text goes into that same buffer instead, behind them, then the buffer is flushed. (While
 * developing the log goes through pino-pretty's worker: there, the log is flushed first.)
 */
async function printAfterLog(app: FastifyInstance, text: string): Promise<void> {
  const log = app.log as FastifyBaseLogger & { flush?: (cb?: (err?: Error) => void) => void; [symbols.streamSym]?: LogStream };
  const flush = () => new Promise<void>((resolve) => (log.flush ? log.flush(() => resolve()) : resolve()));
  const stream = log[symbols.streamSym];
  if (stream && typeof stream.fd === "number") {
    stream.write(text);
    await flush();
    return;
  }
  await flush();
  console.log(text);
}

/** The start-up banner: plain lines (never JSON), where to go and how to sign in. */
function startupBanner({ url, config, database, seeded }: { url: string; config: Config; database: { kind: string }; seeded: SeedResult }): string {
  const lines = [
    "",
    `  Toolbox is running at ${url}`,
    `  Database: ${database.kind === "pglite" ? `embedded PostgreSQL (PGlite) in ${config.dataDir}` : "PostgreSQL (DATABASE_URL)"}`,
    config.oidc.embedded ? `  Identity provider: embedded, at ${config.oidc.authority}` : `  Identity provider: ${config.oidc.authority}`,
  ];
  if (seeded.demo) {
    lines.push(`  Sign in as ${seeded.demo.email} with password ${seeded.demo.password ?? "(DEMO_PASSWORD)"}`);
    if (seeded.demo.password) lines.push("  This password is shown only once; set DEMO_PASSWORD to choose your own.");
  } else if (config.oidc.embedded) {
    lines.push("  Sign in as demo@toolbox.local (password printed at first start, or DEMO_PASSWORD), or create an account.");
  }
  return lines.join("\n") + "\n";
}

export interface Running {
  app: FastifyInstance;
  ctx: AppContext;
  url: string;
  close(): Promise<void>;
}

/** Composition root: config → database (migrated) → seed → HTTP (API, provider, pages). */
export async function startToolbox(
  config: Config = loadConfig(),
  opts: { dev?: boolean; quiet?: boolean; web?: boolean; bannerWaitMs?: number } = {},
): Promise<Running> {
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const ctx: AppContext = { config, database };
  const seeded = await seedDemo(ctx, opts.quiet ? { log: () => {} } : {});
  // `web: false` serves the API and the provider without pages (no build needed: tests/helpers/toolboxMain.ts).
  const web = opts.web === false ? false : ({ mode: opts.dev ? "development" : "production" } as const);
  const app = await buildApp(ctx, { web, logger: !opts.quiet });
  // After a key rotation (SECRETS_KEY = new key, then the older ones), bring every secret under the new key.
  const rotation = await reencryptPlatformSecrets(
    database.db,
    secretCipherOf(ctx, (message) => app.log.warn(message)),
  );
  if (rotation.reencrypted > 0) app.log.info(rotation, "platform secrets re-encrypted under the current SECRETS_KEY");
  if (rotation.unreadable > 0)
    app.log.warn(rotation, "some platform secrets cannot be decrypted with any configured SECRETS_KEY; those platforms ask for their secret again");
  await app.listen({ port: config.port, host: config.host });
  const url = config.publicUrl;
  if (!opts.quiet) {
    // Last, after the connection lines (each platform's first outcome and trade feed), so it is not lost among them.
    await afterConnectionLines(app, opts.bannerWaitMs ?? STARTUP_BANNER_WAIT_MS);
    await printAfterLog(app, startupBanner({ url, config, database, seeded }));
  }
  let closed = false;
  return {
    app,
    ctx,
    url,
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      await database.close();
    },
  };
}
