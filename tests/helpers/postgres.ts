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
  const name = `${prefix}_${crypto.randomBytes(6).toString("hex")}`;
  await onServer(adminUrl, `create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: url.toString(), dataDir: "" });
  return {
    ...database,
    async drop() {
      await database.close();
      await onServer(adminUrl, `drop database if exists ${name} with (force)`);
    },
  };
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
