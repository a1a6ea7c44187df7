/**
 * For suites outside the API projects (tests/server/**), which run in one Vitest project: the
 * suite once on in-memory PGlite and once on a fresh PostgreSQL database (TEST_DATABASE_URL, by
 * default the local server). Without a server the PostgreSQL run is skipped with a message, and
 * fails under CI=true, as the api-postgres project does (tests/helpers/postgresGlobalSetup.ts).
 */
import { describe } from "vitest";
import { createPgliteDatabase, createPostgresDatabase, postgresProblem, type DroppableDatabase } from "./postgres.ts";
import { DEFAULT_TEST_DATABASE_URL } from "./postgresGlobalSetup.ts";
import type { TestDbKind } from "./db.ts";

const adminUrl = process.env.TEST_DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL;

async function postgresAnswers(): Promise<boolean> {
  const problem = await postgresProblem(adminUrl);
  if (problem === null) return true;
  if (process.env.CI === "true") throw new Error(`PostgreSQL runs cannot run: no server answers (${problem})`);
  console.warn(`\n  PostgreSQL runs SKIPPED: no server answers (${problem}). Set TEST_DATABASE_URL to run them.\n`);
  return false;
}

const postgresUp = await postgresAnswers();

export type TestDatabase = DroppableDatabase;

/** A fresh, migrated database of this kind, dropped (or closed) by `drop`. */
export function openDatabaseOf(kind: TestDbKind): Promise<TestDatabase> {
  return kind === "pglite" ? createPgliteDatabase() : createPostgresDatabase(adminUrl);
}

/** `describe` once per database, named with it: `fn` opens its database with `openDatabaseOf(kind)`. */
export function describeEachDb(name: string, fn: (kind: TestDbKind) => void): void {
  describe(`${name} [pglite]`, () => fn("pglite"));
  describe.skipIf(!postgresUp)(`${name} [postgres]`, () => fn("postgres"));
}
