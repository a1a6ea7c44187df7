import { describe, expect, inject } from "vitest";
import { createPgliteDatabase, createPostgresDatabase, type DroppableDatabase } from "./postgres.ts";

export type TestDbKind = "pglite" | "postgres";

/** Which database this project runs against (set per Vitest project). */
export function testDbKind(): TestDbKind {
  return process.env.TOOLBOX_TEST_DB === "postgres" ? "postgres" : "pglite";
}

function postgresAvailable(): boolean {
  return testDbKind() !== "postgres" || inject("postgresAvailable");
}

/** `describe` that names the database and skips when the PostgreSQL server is absent (outside CI). */
export const describeDb = (name: string, fn: () => void) => describe.skipIf(!postgresAvailable())(`${name} [${testDbKind()}]`, fn);

/**
 * A fresh, migrated database: in-memory PGlite, or a new PostgreSQL database created for this
 * test file and dropped afterwards.
 */
export async function openTestDatabase(): Promise<DroppableDatabase> {
  return testDbKind() === "pglite" ? createPgliteDatabase() : createPostgresDatabase(inject("testDatabaseUrl"));
}

/** The one row a query must find: fails the test (showing what came back) unless there is exactly one. */
export function theOnly<T>(rows: readonly T[]): T {
  expect(rows).toHaveLength(1);
  return rows[0]!;
}
