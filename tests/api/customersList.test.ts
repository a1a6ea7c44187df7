/**
 * The customers list's page from a statement prepared per query shape, its rows written as JSON by
 * the database (issue 30): the same shape asked again and again with other values (past
 * PostgreSQL's switch to a generic plan after five runs) answers each time exactly the customers
 * those values select, in order, with their owner's name.
 */
// Databases: PGlite and PostgreSQL (the list's SQL, trigram search).
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory } from "../helpers/tokens.ts";
import { addMember, signUp } from "./support/fixtures.ts";

describeDb("customers list by shape", () => {
  let t: TestApp;
  let h: Record<string, string>;
  const admin = newPerson("Ada Admin");
  const clerk = newPerson("Cleo Clerk");
  const tag = `Shape${Date.now().toString(36)}`;
  const statuses = ["lead", "active"] as const;
  const kycs = ["pending", "verified"] as const;
  const made: { name: string; status: string; kyc: string; owned: boolean }[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    const tokens = await tokenFactory(t.ctx);
    const org = await signUp(t, tokens, admin);
    await addMember(t.ctx, org, clerk, { [`Module.customers.${org}`]: "read,write" });
    h = apiHeaders(await tokens.mint(clerk), org);
    for (let i = 0; i < 8; i++) {
      const c = { name: `Client ${String.fromCharCode(72 - i)}${i}`, status: statuses[i % 2]!, kyc: kycs[(i >> 1) % 2]!, owned: i % 3 === 0 };
      const res = await t.app.inject({
        method: "POST",
        url: "/api/customers",
        headers: h,
        payload: { kind: "person", name: c.name, status: c.status, kyc: c.kyc, tags: [tag], ownerSub: c.owned ? clerk.sub : null },
      });
      expect(res.statusCode, res.body).toBe(201);
      made.push(c);
    }
  }, 60_000);
  afterAll(() => t?.close());

  it("answers the same shape with other values by the customers those values select, every time", async () => {
    for (let run = 0; run < 8; run++) {
      const status = statuses[run % 2]!;
      const kyc = kycs[(run >> 1) % 2]!;
      const dir = "desc";
      const res = await t.app.inject({ url: `/api/customers?tag=${tag}&status=${status}&kyc=${kyc}&sort=name&dir=${dir}`, headers: h });
      expect(res.statusCode, res.body).toBe(200);
      const expected = made
        .filter((c) => c.status === status && c.kyc === kyc)
        .map((c) => c.name)
        .sort()
        .reverse();
      const body = res.json();
      expect(body.items.map((c: { name: string }) => c.name)).toEqual(expected);
      expect(body.total).toBe(expected.length);
      for (const item of body.items) {
        const owned = made.find((c) => c.name === item.name)!.owned;
        expect(item).toMatchObject({ ownerSub: owned ? clerk.sub : null, ownerName: owned ? clerk.name : null, accountCount: 0, tags: [tag] });
      }
    }
  });

  it("pages a prepared shape by its limit and offset values", async () => {
    const all = made.map((c) => c.name).sort();
    for (let offset = 0; offset < 7; offset++) {
      const res = await t.app.inject({ url: `/api/customers?tag=${tag}&sort=name&limit=2&offset=${offset}`, headers: h });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().items.map((c: { name: string }) => c.name)).toEqual(all.slice(offset, offset + 2));
      expect(res.json().total).toBe(8);
    }
  });
});
