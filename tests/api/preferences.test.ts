import { afterAll, beforeAll, expect, it } from "vitest";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type Person, type TokenFactory } from "../helpers/tokens.ts";
import { addMember, signUp } from "./support/fixtures.ts";

describeDb("/api/preferences/:key", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  const ada = newPerson("Ada");
  const bob = newPerson("Bob");
  let org: string;
  let otherOrg: string;

  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
    org = await signUp(t, tokens, ada);
    otherOrg = await signUp(t, tokens, newPerson("Carol"));
    await addMember(t.ctx, org, bob); // a member without any module permission
    await addMember(t.ctx, otherOrg, ada);
  });
  afterAll(() => t?.close());

  async function call(person: Person, organizationId: string | undefined, method: "GET" | "PUT", key: string, payload?: unknown) {
    const res = await t.app.inject({
      method,
      url: `/api/preferences/${encodeURIComponent(key)}`,
      headers: apiHeaders(await tokens.mint(person), organizationId),
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return { status: res.statusCode, body: res.json() };
  }

  it("keeps a value per member and organization", async () => {
    expect((await call(ada, org, "GET", "users.grid.columns")).body).toEqual({ key: "users.grid.columns", value: null, updatedAt: null });
    const columns = {
      columns: [
        { colId: "login", width: 90 },
        { colId: "balance", width: 120, sort: "desc" },
      ],
      pinned: ["login"],
    };
    const saved = await call(ada, org, "PUT", "users.grid.columns", { value: columns });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ key: "users.grid.columns", value: columns });
    expect((await call(ada, org, "GET", "users.grid.columns")).body.value).toEqual(columns);

    // Bob (no module permission needed) has his own; Ada's other organization has its own.
    expect((await call(bob, org, "GET", "users.grid.columns")).body.value).toBeNull();
    expect((await call(ada, otherOrg, "GET", "users.grid.columns")).body.value).toBeNull();
    await call(bob, org, "PUT", "users.grid.columns", { value: [1, 2, 3] });
    expect((await call(ada, org, "GET", "users.grid.columns")).body.value).toEqual(columns);

    // Replaced, then cleared with null; any JSON value works.
    await call(ada, org, "PUT", "users.grid.columns", { value: "compact" });
    expect((await call(ada, org, "GET", "users.grid.columns")).body.value).toBe("compact");
    await call(ada, org, "PUT", "users.grid.columns", { value: null });
    expect((await call(ada, org, "GET", "users.grid.columns")).body.value).toBeNull();
  });

  it("refuses bad keys, missing or oversized values, and outsiders", async () => {
    const badKey = await call(ada, org, "GET", "bad key!");
    expect(badKey.status).toBe(400);
    expect(badKey.body.message).toMatch(/preference key/);
    // Longer than 100 characters: Fastify's router already refuses the path (its parameters stop at 100).
    expect([400, 404]).toContain((await call(ada, org, "PUT", "x".repeat(101), { value: 1 })).status);
    const missing = await call(ada, org, "PUT", "ok.key", { other: 1 });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toMatch(/value/i);
    const big = await call(ada, org, "PUT", "ok.key", { value: "x".repeat(33 * 1024) });
    expect(big.status).toBe(400);
    expect(big.body.message).toMatch(/larger than 32 KB/);
    expect((await call(ada, org, "PUT", "ok.key", { value: "x".repeat(30 * 1024) })).status).toBe(200);

    expect((await call(ada, undefined, "GET", "ok.key")).status).toBe(400);
    const stranger = newPerson("Stranger");
    await signUp(t, tokens, stranger);
    expect((await call(stranger, org, "GET", "ok.key")).status).toBe(404);
    expect((await call(stranger, org, "PUT", "ok.key", { value: 1 })).status).toBe(404);
  });
});
