import crypto from "node:crypto";
import pg from "pg";
import { describe, inject } from "vitest";
import { openDatabase, type Database } from "../../server/db/client.ts";

export type TestDbKind = "pglite" | "postgres";

/** Which database this project runs against (set per Vitest project). */
export function testDbKind(): TestDbKind {
  return process.env.TOOLBOX_TEST_DB === "postgres" ? "postgres" : "pglite";
}

function postgresAvailable(): boolean {
  return testDbKind() !== "postgres" || inject("postgresAvailable");
}

/** `describe` that names the database and skips when the PostgreSQL server is absent (outside CI). */
export const describeDb = (name: string, fn: () => void) =>
  describe.skipIf(!postgresAvailable())(`${name} [${testDbKind()}]`, fn);

/**
 * A fresh, migrated database: in-memory PGlite, or a new PostgreSQL database created for this
 * test file and dropped afterwards.
 */
export async function openTestDatabase(): Promise<Database & { drop(): Promise<void> }> {
  if (testDbKind() === "pglite") {
    const database = await openDatabase({ dataDir: "memory://" });
    return { ...database, drop: () => database.close() };
  }
  const adminUrl = inject("testDatabaseUrl");
  const name = `toolbox_test_${crypto.randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: url.toString(), dataDir: "" });
  return {
    ...database,
    async drop() {
      await database.close();
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}
