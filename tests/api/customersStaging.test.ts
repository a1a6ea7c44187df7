/**
 * An import's write is staged (docs/customers.md, "Import"): its rows go in short transactions, so
 * other requests are served in between even on the embedded database's single connection, and
 * they stay invisible to every read until one short transaction publishes them all. A failed
 * import leaves nothing visible and no staged row; what a stopped node left is removed by the
 * organization's next import. Through the real server on both databases.
 */
// Databases: PGlite and PostgreSQL (an import staged and published in one transaction).
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { and, eq, isNotNull, sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { auditEvents, customerImports, customerImportStaging, customers } from "../../server/db/schema.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory } from "../helpers/tokens.ts";
import { signUp } from "./support/fixtures.ts";

function file(prefix: string, rows: number, name = (i: number) => `${prefix} ${String(i).padStart(5, "0")}`): string {
  const lines = ["kind,name,email,country,tags"];
  for (let i = 0; i < rows; i++) lines.push(`person,${name(i)},${prefix.toLowerCase()}${i}@staging.example,SE,${prefix}`);
  return lines.join("\r\n");
}

describeDb("customers: an import's write is staged, then published at once", () => {
  let t: TestApp;
  let a: Record<string, string>;
  let orgA: string;

  beforeAll(async () => {
    t = await createTestApp();
    const tokens = await tokenFactory(t.ctx);
    const ada = newPerson("Ada Stager");
    orgA = await signUp(t, tokens, ada);
    a = apiHeaders(await tokens.mint(ada), orgA);
  }, 60_000);
  afterAll(() => t?.close());

  const rawCount = async (onlyStaged = false) =>
    Number(
      (
        await t.ctx.database.db
          .select({ n: sql<number>`count(*)::int` })
          .from(customers)
          .where(and(eq(customers.organizationId, orgA), onlyStaged ? isNotNull(customers.importId) : undefined))
      )[0]!.n,
    );
  const staged = () => t.ctx.database.db.select().from(customerImportStaging).where(eq(customerImportStaging.organizationId, orgA));
  const listTotal = async () => (await t.app.inject({ url: "/api/customers?limit=10", headers: a })).json().total as number;
  const importInto = (csv: string, extra: object = {}) =>
    t.app.inject({ method: "POST", url: "/api/customers/import", headers: a, payload: { csv, ...extra } });
  const importAudits = () =>
    t.ctx.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.organizationId, orgA), eq(auditEvents.action, "customers.imported")));

  it("serves other requests while the rows are written, and shows none of them until all are published", async () => {
    let done = false;
    const running = importInto(file("Big", 5000)).finally(() => (done = true));
    let seenWhileStaged = false;
    while (!done) {
      // Rows written, the import not yet published: the list (and its count) shows none of them.
      if ((await rawCount(true)) > 0) {
        const total = await listTotal();
        if ((await staged()).length === 1) {
          expect(total).toBe(0);
          seenWhileStaged = true;
          break;
        }
      }
      await yieldToEventLoop();
    }
    const res = await running;
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ imported: 5000 });
    expect(seenWhileStaged, "another request was answered while the import's rows were staged").toBe(true);
    expect(await listTotal()).toBe(5000);
    expect(await staged()).toEqual([]);
    expect(await importAudits()).toHaveLength(1);
  });

  it("leaves nothing visible and no staged row when the write fails midway", async () => {
    const { db } = t.ctx.database;
    const before = await rawCount();
    // A failure of the database in the third chunk of rows, after two were written.
    await db.execute(sql`create function test_customers_boom() returns trigger language plpgsql as $$
      begin
        if new.name = 'Boom Row' then raise exception 'simulated failure'; end if;
        return new;
      end $$`);
    await db.execute(sql`create trigger test_customers_boom before insert on customers for each row execute function test_customers_boom()`);
    try {
      const res = await importInto(file("Fail", 1500, (i) => (i === 1300 ? "Boom Row" : `Fail ${i}`)));
      expect(res.statusCode, res.body).toBe(500);
    } finally {
      await db.execute(sql`drop trigger test_customers_boom on customers`);
      await db.execute(sql`drop function test_customers_boom()`);
    }
    expect(await rawCount()).toBe(before);
    expect(await listTotal()).toBe(before);
    expect(await staged()).toEqual([]);
    expect(await db.select().from(customerImports)).toEqual([]);
    expect(await importAudits()).toHaveLength(1);
  });

  it("stops an import whose claim another took over (409), publishing nothing of it", async () => {
    const { db } = t.ctx.database;
    const before = await rawCount();
    let done = false;
    const slow = importInto(file("Slow", 5000)).finally(() => (done = true));
    // Once its first rows are staged, its node looks stopped: its claim is made old, and the next
    // import takes it over and removes what it staged.
    while (!done && (await staged()).length === 0) await yieldToEventLoop();
    expect(done, "the first import was still writing").toBe(false);
    await db.update(customerImports).set({ startedAt: sql`now() - interval '11 minutes'` });
    const next = await importInto(file("Next", 3));
    expect(next.statusCode, next.body).toBe(200);
    const res = await slow;
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json().message).toBe(
      "This import ran longer than 10 minutes and another import took its place; nothing of it was imported. Import the file again.",
    );
    expect((await t.app.inject({ url: "/api/customers?tag=Slow&limit=10", headers: a })).json().total).toBe(0);
    expect(await rawCount()).toBe(before + 3);
    expect(await staged()).toEqual([]);
    expect(await db.select().from(customerImports)).toEqual([]);
  });

  it("hides what a stopped node left staged from every read, and the next import removes it", async () => {
    const { db } = t.ctx.database;
    const before = await rawCount();
    // A node stopped mid-import: its claim is old, its staged rows and staging row remain.
    await db.insert(customerImports).values({ organizationId: orgA, startedBy: "stopped-node", startedAt: sql`now() - interval '11 minutes'` });
    const [left] = await db.insert(customerImportStaging).values({ organizationId: orgA }).returning();
    const ghosts = await db
      .insert(customers)
      .values(
        Array.from({ length: 30 }, (_, i) => ({
          organizationId: orgA,
          kind: "person" as const,
          name: `Ghost ${i}`,
          status: "lead" as const,
          kyc: "notStarted" as const,
          tags: ["Ghost"],
          importId: left!.id,
        })),
      )
      .returning({ id: customers.id });

    // Counted (a filter not asked before: a count answers the same filters for a few seconds).
    expect((await t.app.inject({ url: "/api/customers?q=%40staging.example&limit=1", headers: a })).json().total).toBe(before);
    expect((await t.app.inject({ url: "/api/customers?q=Ghost", headers: a })).json()).toEqual({ items: [], total: 0 });
    // Counted, not a short page (every customer so far is in Sweden).
    expect((await t.app.inject({ url: "/api/customers?country=SE&limit=1", headers: a })).json().total).toBe(before);
    const ghost = ghosts[0]!.id;
    expect((await t.app.inject({ url: `/api/customers/${ghost}`, headers: a })).statusCode).toBe(404);
    expect((await t.app.inject({ url: `/api/customers/${ghost}/notes`, headers: a })).statusCode).toBe(404);
    expect((await t.app.inject({ method: "POST", url: `/api/customers/${ghost}/notes`, headers: a, payload: { text: "hi" } })).statusCode).toBe(404);
    expect((await t.app.inject({ method: "DELETE", url: `/api/customers/${ghost}`, headers: a })).statusCode).toBe(404);
    const exported = await t.app.inject({ url: "/api/customers.csv?tag=Ghost", headers: a });
    expect(exported.body.trim().split(/\r?\n/)).toHaveLength(1);

    const res = await importInto(file("After", 2));
    expect(res.statusCode, res.body).toBe(200);
    expect(await db.select().from(customers).where(eq(customers.importId, left!.id))).toEqual([]);
    expect(await staged()).toEqual([]);
    // A filter not counted before (a count answers the same filters for a few seconds).
    expect((await t.app.inject({ url: "/api/customers?q=staging.example&limit=1", headers: a })).json().total).toBe(before + 2);
  });
});
