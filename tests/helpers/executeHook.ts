/**
 * A database whose `execute` calls (the statements the trade history's writer and backfills send)
 * first go through `before`, given the statement's text: a test holds them, or fails one, to play
 * a slow or failing database under the real app. Every other call goes through as it is.
 */
import type { SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { Db } from "../../server/db/client.ts";

const dialect = new PgDialect();

export function withExecuteHook(db: Db, before: (statement: string) => Promise<void>): Db {
  return new Proxy(db, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      if (property !== "execute") return value.bind(target);
      return async (...args: unknown[]) => {
        await before(dialect.sqlToQuery(args[0] as SQL).sql);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}
