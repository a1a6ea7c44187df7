/**
 * What keeps one organization's customers from holding up the others (docs/customers.md, "Import"
 * and "Export"; docs/security.md, "Limits per organization"), through the real server on both
 * databases: one import at a time per organization (across nodes: the claim is a row), the
 * customers quota (TOOLBOX_MAX_CUSTOMERS) refusing an import whole and a single creation, and the
 * export of more than one page keeping the view's order. How long the event loop stalls during a
 * 100,000-row import and export is a benchmark (`npm run bench -- customers`), not a test.
 */
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { auditEvents, customerImports, customers } from "../../server/db/schema.ts";
import { parseCsv, parseCsvInSlices } from "../../server/modules/customers/csv.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory } from "../helpers/tokens.ts";
import { signUp } from "./support/fixtures.ts";

const QUOTA = 4000;

function file(prefix: string, rows: number): string {
  const lines = ["kind,name,email,country,tags"];
  for (let i = 0; i < rows; i++) lines.push(`person,${prefix} ${String(i).padStart(5, "0")},${prefix.toLowerCase()}${i}@limits.example,SE,${prefix}`);
  return lines.join("\r\n");
}

describeDb("customers: imports one at a time, the quota, the export in pages", () => {
  let t: TestApp;
  let a: Record<string, string>;
  let b: Record<string, string>;
  let orgA: string;
  let orgB: string;

  beforeAll(async () => {
    t = await createTestApp({ TOOLBOX_MAX_CUSTOMERS: String(QUOTA) });
    const tokens = await tokenFactory(t.ctx);
    const ada = newPerson("Ada Importer");
    const bob = newPerson("Bob Importer");
    orgA = await signUp(t, tokens, ada);
    orgB = await signUp(t, tokens, bob);
    a = apiHeaders(await tokens.mint(ada), orgA);
    b = apiHeaders(await tokens.mint(bob), orgB);
  }, 60_000);
  afterAll(() => t?.close());

  const countOf = async (organizationId: string) =>
    Number(
      (
        await t.ctx.database.db
          .select({ n: sql<number>`count(*)::int` })
          .from(customers)
          .where(eq(customers.organizationId, organizationId))
      )[0]!.n,
    );
  const importInto = (headers: Record<string, string>, csv: string, extra: object = {}) =>
    t.app.inject({ method: "POST", url: "/api/customers/import", headers, payload: { csv, ...extra } });

  it("refuses a second import while one runs in the organization (409), not in another organization", async () => {
    const csv = file("Conc", 3000);
    const [first, second, other] = await Promise.all([importInto(a, csv), importInto(a, csv), importInto(b, file("Other", 10))]);
    const statuses = [first.statusCode, second.statusCode].sort();
    expect(statuses, `${first.body} ${second.body}`).toEqual([200, 409]);
    const refused = first.statusCode === 409 ? first : second;
    expect(refused.json().message).toBe(
      "Another import of customers is running in this organization. Wait until it has finished, then import this file again.",
    );
    expect(other.statusCode, other.body).toBe(200);
    expect(await countOf(orgA)).toBe(3000);
    // The claim goes with the import: the next one runs.
    expect(await t.ctx.database.db.select().from(customerImports)).toEqual([]);
    expect((await importInto(a, file("Again", 2), { dryRun: true })).statusCode).toBe(200);
  });

  it("holds across nodes (the claim is a row), and a claim left by a node that stopped is taken over", async () => {
    const { db } = t.ctx.database;
    await db.insert(customerImports).values({ organizationId: orgA, startedBy: "another-node" });
    const refused = await importInto(a, file("Blocked", 2));
    expect(refused.statusCode, refused.body).toBe(409);
    await db
      .update(customerImports)
      .set({ startedAt: sql`now() - interval '11 minutes'` })
      .where(eq(customerImports.organizationId, orgA));
    const taken = await importInto(a, file("Taken", 2));
    expect(taken.statusCode, taken.body).toBe(200);
    expect(taken.json()).toMatchObject({ imported: 2 });
    expect(await db.select().from(customerImports)).toEqual([]);
  });

  it("refuses an import past the customers quota whole (422, nothing written, no audit), also on a dry run, and a creation past it", async () => {
    const { db } = t.ctx.database;
    expect((await importInto(b, file("Base", 3000))).statusCode).toBe(200);
    const before = await countOf(orgB);
    const over = QUOTA - before + 1;
    for (const extra of [{}, { mode: "validOnly" }, { dryRun: true }]) {
      const res = await importInto(b, file("Over", over), extra);
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json().message).toMatch(/at most 4,000 are allowed \(TOOLBOX_MAX_CUSTOMERS\)/);
    }
    expect(await countOf(orgB)).toBe(before);
    const audits = await db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.organizationId, orgB), eq(auditEvents.action, "customers.imported")));
    expect(audits).toHaveLength(2);

    expect((await importInto(b, file("Fill", QUOTA - before))).statusCode).toBe(200);
    expect(await countOf(orgB)).toBe(QUOTA);
    const one = await t.app.inject({ method: "POST", url: "/api/customers", headers: b, payload: { kind: "person", name: "One Too Many" } });
    expect(one.statusCode, one.body).toBe(422);
    expect(one.json().message).toBe("This organization already has 4,000 customers, the most allowed (TOOLBOX_MAX_CUSTOMERS).");
    // Another organization is not held back by this one's customers.
    expect((await t.app.inject({ method: "POST", url: "/api/customers", headers: a, payload: { kind: "person", name: "Fine" } })).statusCode).toBe(201);
  });

  it("exports more than a page in the view's order, exactly the view's rows", async () => {
    const res = await t.app.inject({ url: "/api/customers.csv?tag=Conc&sort=name&dir=desc", headers: a });
    expect(res.statusCode).toBe(200);
    const rows = parseCsv(res.body).map((r) => r.fields);
    expect(rows).toHaveLength(3001);
    const names = rows.slice(1).map((r) => r[1]);
    expect(names[0]).toBe("Conc 02999");
    expect(names.at(-1)).toBe("Conc 00000");
    expect(names).toEqual([...names].sort().reverse());
    const list = await t.app.inject({ url: "/api/customers?tag=Conc&sort=name&dir=desc&offset=1500&limit=3", headers: a });
    expect(list.json().items.map((c: { name: string }) => c.name)).toEqual(names.slice(1500, 1503));
  });
});

it("parses in slices exactly as in one piece: lines, CRLF cut at a slice's end, quoted line breaks, characters outside the BMP", async () => {
  const text = '\uFEFFkind,name\r\nperson,"Two\r\nlines"\r\n\r\ncompany,Emoji 😀 AB\rperson,"a ""quote"""\nperson,Last';
  const whole = parseCsv(text);
  for (const size of [1, 2, 3, 5, 7, 16, 1000]) expect(await parseCsvInSlices(text, size), `slices of ${size}`).toEqual(whole);
  await expect(parseCsvInSlices('kind,name\nperson,"never closed\n', 4)).rejects.toThrow(/Line 2: a quoted field is never closed/);
});
