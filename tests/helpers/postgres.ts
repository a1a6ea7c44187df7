/**
 * Throw-away PostgreSQL databases for tests and benchmarks: one per suite or run, created on the
 * server at an admin URL, migrated by `openDatabase`, dropped after. No Vitest imports, so the
 * benchmarks can use it too.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { openDatabase, type Database } from "../../server/db/client.ts";

export type DroppableDatabase = Database & { drop(): Promise<void> };

/** Why no PostgreSQL server answers at `url`, or null when one does. */
export async function postgresProblem(url: string, timeoutMs = 3000): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  try {
    await client.connect();
    await client.query("select 1");
    return null;
  } catch (err) {
    return (err as Error).message;
  } finally {
    await client.end().catch(() => {});
  }
}

/** A fresh, migrated database on the server at `adminUrl`; `drop` closes it and drops it. */
export async function createPostgresDatabase(adminUrl: string, prefix = "toolbox_test"): Promise<DroppableDatabase> {
  const empty = await createEmptyPostgresDatabase(adminUrl, prefix, await postgresTemplate(adminUrl));
  const database = await openDatabase({ databaseUrl: empty.url, dataDir: "" });
  return {
    ...database,
    async drop() {
      await database.close();
      await empty.drop();
    },
  };
}

/** A new, empty database on the server at `adminUrl` (for a process of its own to migrate); `drop` removes it. */
export async function createEmptyPostgresDatabase(adminUrl: string, prefix: string, template?: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${crypto.randomBytes(6).toString("hex")}`;
  await onServer(adminUrl, `create database ${name}${template ? ` template ${template}` : ""}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => onServer(adminUrl, `drop database if exists ${name} with (force)`) };
}

/** Runs `run` with the URL of a new, empty database, and drops it after. */
export async function withEmptyPostgresDatabase<T>(adminUrl: string, prefix: string, run: (url: string) => Promise<T>): Promise<T> {
  const empty = await createEmptyPostgresDatabase(adminUrl, prefix);
  try {
    return await run(empty.url);
  } finally {
    await empty.drop();
  }
}

/** In-memory PGlite, migrated; `drop` closes it. */
export async function createPgliteDatabase(): Promise<DroppableDatabase> {
  const database = await openDatabase({ dataDir: "memory://", pgliteTemplate: await pgliteTemplate() });
  return { ...database, drop: () => database.close() };
}

const templates = new Map<string, Promise<string>>();
/** Templates kept on the server, this one included: one per set of migrations in use at once. */
const KEPT_TEMPLATES = 4;

/**
 * The name of a migrated, empty database on the server to copy (CREATE DATABASE … TEMPLATE),
 * made once per set of migrations: a copy takes a tenth of the time of running every migration.
 * Made under an advisory lock, under a temporary name and renamed when complete, so parallel
 * test processes neither build it twice nor copy half of it. Only templates older than the
 * newest few are dropped, so checkouts with other migrations can run their tests at the same time.
 */
function postgresTemplate(adminUrl: string): Promise<string> {
  let made = templates.get(adminUrl);
  if (!made) {
    made = (async () => {
      const name = `toolbox_template_${migrationsHash()}`;
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      try {
        await admin.query("select pg_advisory_lock(hashtext('toolbox test template'))");
        const exists = await admin.query("select 1 from pg_database where datname = $1", [name]);
        if (exists.rowCount === 0) {
          // Other checkouts (a branch with other migrations) may be copying their own template right
          // now: keep the newest few, drop only what is older than them.
          const old = await admin.query<{ datname: string }>(
            `select datname from pg_database where datname like 'toolbox\\_template\\_%' and datname not like '%\\_partial'
              order by oid desc offset ${KEPT_TEMPLATES - 1}`,
          );
          for (const { datname } of old.rows) await admin.query(`drop database if exists ${datname} with (force)`);
          const building = `${name}_partial`;
          await admin.query(`drop database if exists ${building} with (force)`);
          await admin.query(`create database ${building}`);
          const url = new URL(adminUrl);
          url.pathname = `/${building}`;
          const database = await openDatabase({ databaseUrl: url.toString(), dataDir: "" });
          await database.close();
          await admin.query(`alter database ${building} rename to ${name}`);
        }
        return name;
      } finally {
        await admin.query("select pg_advisory_unlock(hashtext('toolbox test template'))").catch(() => {});
        await admin.end();
      }
    })();
    made.catch(() => templates.delete(adminUrl));
    templates.set(adminUrl, made);
  }
  return made;
}

/** What a template depends on: every migration file and the PGlite version. */
function migrationsHash(): string {
  const migrations = fileURLToPath(new URL("../../server/db/migrations", import.meta.url));
  const hash = crypto.createHash("sha256");
  hash.update(fs.readFileSync(fileURLToPath(new URL("../../node_modules/@electric-sql/pglite/package.json", import.meta.url))));
  for (const file of fs.readdirSync(migrations, { recursive: true, encoding: "utf8" }).sort()) {
    const full = path.join(migrations, file);
    if (fs.statSync(full).isFile()) hash.update(file).update(fs.readFileSync(full));
  }
  return hash.digest("hex").slice(0, 16);
}

let template: Promise<string> | undefined;

/**
 * A migrated, empty PGlite database as a file, made once per set of migrations and PGlite
 * version and shared by every test process: opening from it skips initdb, which takes seconds
 * on a two-core machine (about 10× faster). Migrations still run on open, so a stale file could
 * only cost time, never correctness. It is written under a name of its own and renamed into
 * place, so a process never opens another's half-written file; a build that failed is not kept,
 * and the next test tries again.
 */
function pgliteTemplate(): Promise<string> {
  template ??= (async () => {
    const file = path.join(os.tmpdir(), `toolbox-pglite-template-${migrationsHash()}.tar`);
    if (fs.existsSync(file)) return file;
    const partial = `${file}.${process.pid}.${crypto.randomUUID()}.partial`;
    const fresh = await openDatabase({ dataDir: "memory://" });
    try {
      await fresh.dumpTo!(partial);
      fs.renameSync(partial, file);
    } finally {
      fs.rmSync(partial, { force: true });
      await fresh.close();
    }
    return file;
  })().catch((error: unknown) => {
    template = undefined;
    throw error;
  });
  return template;
}

async function onServer(adminUrl: string, statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}
