/**
 * transactionWithRetry against a real deadlock on PostgreSQL. PGlite has one connection, so two
 * transactions never wait on each other there and a deadlock cannot happen: this runs on
 * PostgreSQL only (and fails under CI=true when no server answers, as every PostgreSQL run does).
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { databaseErrorCode } from "../../../server/db/errors.ts";
import { transactionWithRetry } from "../../../server/db/retry.ts";
import { describeEachDb, openDatabaseOf, type TestDatabase } from "../../helpers/eachDb.ts";

describeEachDb("transactionWithRetry", (kind) => {
  if (kind === "pglite") {
    it("runs the work once when nothing conflicts", async () => {
      const database = await openDatabaseOf(kind);
      try {
        let runs = 0;
        const answer = await transactionWithRetry(database.db, async (tx) => {
          runs++;
          await tx.execute(sql`select 1`);
          return "done";
        });
        expect([answer, runs]).toEqual(["done", 1]);
      } finally {
        await database.drop();
      }
    });
    return;
  }

  let database: TestDatabase;
  beforeAll(async () => {
    database = await openDatabaseOf(kind);
    await database.db.execute(sql`create table deadlock_probe (id int primary key, value text not null)`);
  });
  afterAll(async () => {
    await database?.drop();
  });

  /** Two transactions that lock rows 1 and 2 in opposite orders: PostgreSQL aborts one with 40P01. */
  async function collide(run: (work: (tx: Parameters<Parameters<typeof database.db.transaction>[0]>[0]) => Promise<void>) => Promise<void>) {
    await database.db.execute(sql`delete from deadlock_probe`);
    await database.db.execute(sql`insert into deadlock_probe values (1, 'start'), (2, 'start')`);
    let firstTry = true;
    let releaseOther!: () => void;
    const otherHolds = new Promise<void>((resolve) => (releaseOther = resolve));
    let otherMayGo!: () => void;
    const otherGo = new Promise<void>((resolve) => (otherMayGo = resolve));
    let runs = 0;
    const victim = run(async (tx) => {
      runs++;
      await tx.execute(sql`update deadlock_probe set value = 'victim' where id = 1`);
      if (firstTry) {
        firstTry = false;
        await otherHolds; // the other holds row 2
        otherMayGo(); // it will ask for row 1 shortly after this one waits for row 2
      }
      await tx.execute(sql`update deadlock_probe set value = 'victim' where id = 2`);
    });
    const other = database.db.transaction(async (tx) => {
      await tx.execute(sql`update deadlock_probe set value = 'other' where id = 2`);
      releaseOther();
      await otherGo;
      await new Promise((resolve) => setTimeout(resolve, 100));
      await tx.execute(sql`update deadlock_probe set value = 'other' where id = 1`);
    });
    const outcomes = await Promise.allSettled([victim, other]);
    const rows = await database.db.execute(sql`select id, value from deadlock_probe order by id`);
    return { outcomes, runs, rows: (rows as { rows: { id: number; value: string }[] }).rows };
  }

  it("runs a transaction PostgreSQL chose as a deadlock's victim again, and it lands", async () => {
    const { outcomes, runs, rows } = await collide((work) => transactionWithRetry(database.db, work));
    // The victim waits first (for row 2, 100 ms before the other asks for row 1), so its deadlock
    // check runs first and PostgreSQL aborts it; the retry then runs after the other committed.
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "fulfilled"]);
    expect(runs).toBe(2);
    expect(rows.map((r) => r.value)).toEqual(["victim", "victim"]);
  });

  it("without the retry, the deadlock's victim fails with 40P01", async () => {
    const { outcomes } = await collide((work) => database.db.transaction(work));
    expect(outcomes[0].status).toBe("rejected");
    expect(databaseErrorCode((outcomes[0] as PromiseRejectedResult).reason)).toBe("40P01");
    expect(outcomes[1].status).toBe("fulfilled");
  });
});
