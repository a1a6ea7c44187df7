import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { openDatabase, type Database } from "../../../server/db/client.ts";
import { PgliteProxy } from "../../../server/db/pglite/proxy.ts";

const rowsOf = <T>(result: unknown) => (result as { rows: T[] }).rows;

describe("the embedded database on its own thread (decision 0046)", () => {
  let database: Database;
  beforeAll(async () => {
    database = await openDatabase({ dataDir: "memory://" });
  });
  afterAll(() => database?.close());

  it("keeps the event loop free while a long statement runs", async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const started = performance.now();
    const result = await database.db.execute(sql`select count(*)::int as n from generate_series(1, 4000000) g where g % 7 = 0`);
    const elapsed = performance.now() - started;
    clearInterval(timer);
    expect(rowsOf<{ n: number }>(result)[0]?.n).toBe(571428);
    // On the server's thread the timer could not fire until the statement ended.
    expect(elapsed).toBeGreaterThan(50);
    expect(ticks).toBeGreaterThanOrEqual(3);
  });

  it("commits a transaction that resolves and rolls back one that throws, with PostgreSQL's error fields", async () => {
    await database.db.execute(sql`create table thread_probe (id int primary key, note text)`);
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`insert into thread_probe values (1, 'kept')`);
    });
    const failure = await database.db
      .transaction(async (tx) => {
        await tx.execute(sql`insert into thread_probe values (2, 'rolled back')`);
        await tx.execute(sql`insert into thread_probe values (1, 'duplicate')`);
      })
      .catch((e: unknown) => e as Error & { cause?: { code?: string; constraint?: string } });
    expect(failure).toBeInstanceOf(Error);
    const cause = (failure as { cause?: { code?: string; constraint?: string } }).cause ?? (failure as { code?: string; constraint?: string });
    expect(cause.code).toBe("23505");
    expect(cause.constraint).toBe("thread_probe_pkey");
    const rows = await database.db.execute(sql`select id, note from thread_probe order by id`);
    expect(rowsOf(rows)).toEqual([{ id: 1, note: "kept" }]);
  });

  it("nests savepoints, and other statements wait for an open transaction", async () => {
    const order: string[] = [];
    const outer = database.db.transaction(async (tx) => {
      await tx.execute(sql`insert into thread_probe values (10, 'outer')`);
      await tx
        .transaction(async (inner) => {
          await inner.execute(sql`insert into thread_probe values (11, 'inner')`);
          throw new Error("inner fails");
        })
        .catch(() => order.push("inner rolled back"));
      await new Promise((r) => setTimeout(r, 50));
      order.push("outer done");
    });
    const outside = database.db.execute(sql`select count(*)::int as n from thread_probe where id >= 10`).then((r) => {
      order.push("outside read");
      return rowsOf<{ n: number }>(r)[0]?.n;
    });
    await outer;
    expect(await outside).toBe(1);
    expect(order).toEqual(["inner rolled back", "outer done", "outside read"]);
  });

  it("delivers notifications to a listener until it stops listening", async () => {
    const proxy = await PgliteProxy.open(undefined);
    try {
      const received: string[] = [];
      const unlisten = await proxy.listen("probe_channel", (payload) => received.push(payload));
      await proxy.query("select pg_notify('probe_channel', 'one')");
      await expect.poll(() => received).toEqual(["one"]);
      await unlisten();
      await proxy.query("select pg_notify('probe_channel', 'two')");
      await new Promise((r) => setTimeout(r, 50));
      expect(received).toEqual(["one"]);
    } finally {
      await proxy.close();
    }
  });

  it("refuses queries once closed, with a clear error", async () => {
    const proxy = await PgliteProxy.open(undefined);
    await proxy.close();
    await expect(proxy.query("select 1")).rejects.toThrow(/embedded database stopped/);
  });
});
