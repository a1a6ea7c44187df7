/**
 * A database for one benchmark: a fresh PostgreSQL database (created, then dropped) when a server
 * answers at `adminUrl`, otherwise in-memory PGlite.
 */
import type { Database } from "../server/db/client.ts";
import { createPgliteDatabase, createPostgresDatabase, postgresProblem, type DroppableDatabase } from "../tests/helpers/postgres.ts";

/** The run's database, and what it is (for the printed figures). */
export async function openBenchDatabase(adminUrl: string): Promise<{ database: DroppableDatabase; label: string }> {
  if ((await postgresProblem(adminUrl)) !== null) return { database: await createPgliteDatabase(), label: "PGlite (in memory; no PostgreSQL answered)" };
  return { database: await createPostgresDatabase(adminUrl, "toolbox_bench"), label: "PostgreSQL" };
}

export async function withBenchDatabase<T>(adminUrl: string, run: (database: Database) => Promise<T>): Promise<T> {
  const { database } = await openBenchDatabase(adminUrl);
  try {
    return await run(database);
  } finally {
    await database.drop();
  }
}
