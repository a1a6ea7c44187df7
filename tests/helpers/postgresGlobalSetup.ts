import pg from "pg";
import type { TestProject } from "vitest/node";

export const DEFAULT_TEST_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/postgres";

/**
 * Does a PostgreSQL server answer at TEST_DATABASE_URL? If not, the PostgreSQL suite is skipped
 * with a plain message — except under CI=true, where a skip is a failure.
 */
export default async function setup(project: TestProject) {
  const url = process.env.TEST_DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  let available = true;
  try {
    await client.connect();
    await client.query("select 1");
  } catch (err) {
    available = false;
    const why = (err as Error).message;
    if (process.env.CI === "true") {
      throw new Error(`PostgreSQL suite cannot run: no server answers at ${redact(url)} (${why}). Under CI=true this is a failure.`);
    }
    console.warn(`\n  PostgreSQL suite SKIPPED: no server answers at ${redact(url)} (${why}). Set TEST_DATABASE_URL to run it.\n`);
  } finally {
    await client.end().catch(() => {});
  }
  project.provide("postgresAvailable", available);
  project.provide("testDatabaseUrl", url);
}

function redact(url: string) {
  return url.replace(/\/\/([^:@/]+):[^@/]+@/, "//$1:***@");
}

declare module "vitest" {
  export interface ProvidedContext {
    postgresAvailable: boolean;
    testDatabaseUrl: string;
  }
}
