import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import pg from "pg";
import { PgliteProxy } from "./pglite/proxy.ts";
import * as schema from "./schema.ts";

export type Schema = typeof schema;
/** One type for both drivers: code above this file never knows which one runs. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

/** The database or a transaction on it: what a repository function runs its statements on. */
export type DbOrTx = Db | Parameters<Parameters<Db["transaction"]>[0]>[0];

export interface Database {
  db: Db;
  kind: "pglite" | "postgres";
  /** Cheap liveness probe for /api/health. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** PGlite only: writes the whole database to a file that `openDatabase`'s `pgliteTemplate` can start from. */
  dumpTo?(file: string): Promise<void>;
}

const migrationsFolder = fileURLToPath(new URL("./migrations", import.meta.url));

/**
 * PostgreSQL when `databaseUrl` is set, otherwise PGlite under `dataDir/pglite`
 * (or in memory when `dataDir` is "memory://", for tests). Migrations run here, at start.
 */
export async function openDatabase(opts: {
  databaseUrl?: string;
  dataDir: string;
  /**
   * In memory only: start from this file (`Database.dumpTo`) instead of an empty cluster. Saves
   * PGlite's initdb, seconds on a small machine; tests open dozens of databases.
   */
  pgliteTemplate?: string;
}): Promise<Database> {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10 });
    // An idle connection the server ends (restart, failover, a dropped test database) must not
    // crash the process; the pool replaces it on the next query.
    pool.on("error", () => {});
    const db = drizzlePg(pool, { schema });
    await migratePg(db, { migrationsFolder });
    return {
      db: db as unknown as Db,
      kind: "postgres",
      ping: async () => void (await pool.query("select 1")),
      close: () => pool.end(),
    };
  }
  let dir: string | undefined;
  if (opts.dataDir !== "memory://") {
    dir = path.join(opts.dataDir, "pglite");
    fs.mkdirSync(dir, { recursive: true });
  }
  // PGlite runs on its own thread (./pglite/worker.mjs, with the extensions the migrations create).
  const client = await PgliteProxy.open(dir, dir === undefined ? opts.pgliteTemplate : undefined);
  const db = drizzlePglite({ client: client as never, schema });
  try {
    await migratePglite(db, { migrationsFolder });
  } catch (error) {
    await client.close();
    throw error;
  }
  return {
    db: db as unknown as Db,
    kind: "pglite",
    ping: async () => void (await client.query("select 1")),
    close: () => client.close(),
    dumpTo: (file) => client.dumpTo(file),
  };
}
