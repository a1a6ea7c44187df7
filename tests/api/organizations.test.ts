import { afterAll, beforeAll, expect, it } from "vitest";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { signUp } from "./support/fixtures.ts";

describeDb("/api/organizations", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
  });
  afterAll(() => t?.close());

  const post = async (token: string, payload: string, contentType = "application/json") =>
    t.app.inject({ method: "POST", url: "/api/organizations", headers: { ...apiHeaders(token), "content-type": contentType }, payload });

  it("creates an organization with the caller as administrator, name trimmed", async () => {
    const ada = newPerson("Ada");
    const token = await tokens.mint(ada);
    const res = await post(token, JSON.stringify({ name: "  Acme Brokers  " }));
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created).toEqual({ id: expect.any(String), name: "Acme Brokers", createdAt: expect.any(String), isAdmin: true, timeZone: "UTC" });

    const list = (await t.app.inject({ url: "/api/organizations", headers: apiHeaders(token) })).json();
    expect(list).toEqual([created]);
    // As administrator of it, the module-guarded routes open.
    expect((await t.app.inject({ url: "/api/members", headers: apiHeaders(token, created.id) })).statusCode).toBe(200);
  });

  it("lists only the caller's organizations, with isAdmin per organization", async () => {
    const ada = newPerson("Ada");
    const bob = newPerson("Bob");
    const adaOrg = await signUp(t, tokens, ada);
    const bobOrg = await signUp(t, tokens, bob);
    const adaList = (await t.app.inject({ url: "/api/organizations", headers: apiHeaders(await tokens.mint(ada)) })).json();
    expect(adaList.map((o: { id: string }) => o.id)).toEqual([adaOrg]);
    expect(adaList.map((o: { id: string }) => o.id)).not.toContain(bobOrg);
  });

  it.each([
    ["an empty name", JSON.stringify({ name: "" }), /^Name: Enter a name for the organization/],
    ["a blank name", JSON.stringify({ name: "   " }), /^Name: Enter a name for the organization/],
    ["a name over 100 characters", JSON.stringify({ name: "x".repeat(101) }), /^Name: Use at most 100 characters/],
    ["a number as name", JSON.stringify({ name: 42 }), /^Name must be text/],
    ["no name", JSON.stringify({}), /^Name is required/],
    ["a control character", JSON.stringify({ name: "A\u0007B" }), /control characters/],
    ["a NUL character", JSON.stringify({ name: "A\u0000B" }), /NUL character/],
    ["an array body", JSON.stringify([]), /must be a JSON object/],
    ["no body at all", "null", /must be a JSON object/],
    ["bad JSON", "{ name: 'Acme'", /^The request body is not valid JSON\.$/],
  ])("answers 400 with a readable message for %s", async (_what, payload, message) => {
    const res = await post(await tokens.mint(newPerson()), payload);
    expect(res.statusCode).toBe(400);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    const body = res.json();
    expect(body.statusCode).toBe(400);
    expect(body.message).toMatch(message);
    expect(res.body).not.toMatch(/at .*\.(ts|js):\d+|stack|node_modules/i);
  });

  it("accepts exactly 100 characters", async () => {
    const res = await post(await tokens.mint(newPerson()), JSON.stringify({ name: "x".repeat(100) }));
    expect(res.statusCode).toBe(201);
  });

  it("answers 401 before reading the body of an unauthenticated request", async () => {
    const res = await t.app.inject({ method: "POST", url: "/api/organizations", headers: { "content-type": "application/json" }, payload: "{bad" });
    expect(res.statusCode).toBe(401);
  });

  it("refuses a body that is not JSON", async () => {
    const res = await post(await tokens.mint(newPerson()), "name=Acme", "application/x-www-form-urlencoded");
    expect(res.statusCode).toBe(415);
    expect(res.json().message).toEqual(expect.any(String));
  });
});
