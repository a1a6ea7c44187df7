/**
 * A transaction that only touches the database, run again when PostgreSQL chose it as a deadlock
 * victim or could not serialize it (40P01, 40001): the other transaction went through, and this one
 * was rolled back whole, so running it again is safe. Only for work with no effect outside the
 * database (no connector call, no bus message inside), since that would repeat too.
 */
import pRetry from "p-retry";
import type { Db } from "./client.ts";
import { isTransientConflict } from "./errors.ts";

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

export const TRANSACTION_RETRIES = 4;

export function transactionWithRetry<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  return pRetry(() => db.transaction(work), {
    retries: TRANSACTION_RETRIES,
    minTimeout: 20,
    maxTimeout: 500,
    randomize: true,
    shouldRetry: ({ error }) => isTransientConflict(error),
  });
}
