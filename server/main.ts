import type { FastifyInstance } from "fastify";
import { loadConfig, type Config } from "./config.ts";
import { openDatabase } from "./db/client.ts";
import { buildApp } from "./http/app.ts";
import { seedDemo } from "./seed.ts";
import { secretCipherOf } from "./secrets/context.ts";
import { reencryptPlatformSecrets } from "./secrets/rotation.ts";
import type { AppContext } from "./context.ts";

export interface Running {
  app: FastifyInstance;
  ctx: AppContext;
  url: string;
  close(): Promise<void>;
}

/** Composition root: config → database (migrated) → seed → HTTP (API, provider, pages). */
export async function startToolbox(config: Config = loadConfig(), opts: { dev?: boolean; quiet?: boolean; web?: boolean } = {}): Promise<Running> {
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
    console.log(lines.join("\n") + "\n");
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
