/**
 * Throw-away PostgreSQL databases for tests and benchmarks: one per suite or run, created on the
 * server at an admin URL, migrated by `openDatabase`, dropped after. No Vitest imports, so the
 * benchmarks can use it too.
 */
import crypto from "node:crypto";
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
  const empty = await createEmptyPostgresDatabase(adminUrl, prefix);
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
export async function createEmptyPostgresDatabase(adminUrl: string, prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${crypto.randomBytes(6).toString("hex")}`;
  await onServer(adminUrl, `create database ${name}`);
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
  const database = await openDatabase({ dataDir: "memory://" });
  return { ...database, drop: () => database.close() };
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
