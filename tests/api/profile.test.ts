import { afterAll, beforeAll, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { describeDb, theOnly } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { users } from "../../server/db/schema.ts";
import { addMember, signUp } from "./support/fixtures.ts";

describeDb("GET /api/profile/*", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
  });
  afterAll(() => t?.close());

  const preflight = async (token: string) => t.app.inject({ url: "/api/profile/preflight", headers: apiHeaders(token) });

  it("first preflight of a new person creates their organization, with them as administrator; later ones do not", async () => {
    const ada = newPerson("Ada Lovelace");
    const token = await tokens.mint(ada);
    const first = await preflight(token);
    expect(first.statusCode).toBe(200);
    const body = first.json();
    expect(body).toMatchObject({ user: { sub: ada.sub, email: ada.email, name: "Ada Lovelace" }, organizationCount: 1 });
    expect(body.createdOrganizationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(Math.abs(Date.parse(body.serverTime) - Date.now())).toBeLessThan(60_000);

    const orgs = (await t.app.inject({ url: "/api/organizations", headers: apiHeaders(token) })).json();
    expect(orgs).toEqual([
      { id: body.createdOrganizationId, name: "Ada Lovelace's organization", createdAt: expect.any(String), isAdmin: true, timeZone: "UTC" },
    ]);
    const claims = (await t.app.inject({ url: "/api/profile/user-claims", headers: apiHeaders(token) })).json();
    expect(claims).toEqual([{ type: "organization:admin", value: body.createdOrganizationId }]);

    const second = (await preflight(token)).json();
    expect(second.createdOrganizationId).toBeUndefined();
    expect(second.organizationCount).toBe(1);
  });

  it("names the organization after the email when the token has no name", async () => {
    const person = newPerson();
    const token = await tokens.mint(person, { claims: { name: undefined } });
    const { createdOrganizationId } = (await preflight(token)).json();
    const orgs = (await t.app.inject({ url: "/api/organizations", headers: apiHeaders(token) })).json();
    expect(orgs[0]).toMatchObject({ id: createdOrganizationId, name: `${person.email.split("@")[0]}'s organization` });
  });

  it("creates exactly one organization when five preflights race", async () => {
    const person = newPerson("Racer");
    const token = await tokens.mint(person);
    const answers = await Promise.all(Array.from({ length: 5 }, () => preflight(token)));
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
    const created = answers.map((r) => r.json().createdOrganizationId).filter(Boolean);
    expect(created).toHaveLength(1);
    const orgs = (await t.app.inject({ url: "/api/organizations", headers: apiHeaders(token) })).json();
    expect(orgs.map((o: { id: string }) => o.id)).toEqual(created);
  });

  it("creates no organization for someone invited before their first sign-in", async () => {
    const owner = newPerson("Owner");
    const orgId = await signUp(t, tokens, owner);
    const invited = newPerson("Invited");
    await addMember(t.ctx, orgId, invited, { [`Module.customers.${orgId}`]: "read" });
    const body = (await preflight(await tokens.mint(invited))).json();
    expect(body.createdOrganizationId).toBeUndefined();
    expect(body.organizationCount).toBe(1);
    const row = theOnly(await t.ctx.database.db.select().from(users).where(eq(users.sub, invited.sub)));
    expect(row.provisionedAt).not.toBeNull();
  });

  it("keeps the email and name already known when a later token lacks them", async () => {
    const person = newPerson("Grace Hopper");
    await preflight(await tokens.mint(person));
    const body = (await preflight(await tokens.mint(person, { claims: { email: undefined, name: undefined } }))).json();
    expect(body.user).toEqual({ sub: person.sub, email: person.email, name: "Grace Hopper" });
  });

  it("user-claims lists the caller's claims in every organization, and nobody else's", async () => {
    const ada = newPerson("Ada");
    const adaOrg = await signUp(t, tokens, ada);
    const bob = newPerson("Bob");
    const bobOrg = await signUp(t, tokens, bob);
    await addMember(t.ctx, adaOrg, bob, { [`Module.members.${adaOrg}`]: "read, write" });
    const claims = (await t.app.inject({ url: "/api/profile/user-claims", headers: apiHeaders(await tokens.mint(bob)) })).json();
    expect(claims).toHaveLength(2);
    expect(claims).toEqual(
      expect.arrayContaining([
        { type: "organization:admin", value: bobOrg },
        { type: `Module.members.${adaOrg}`, value: "read, write" },
      ]),
    );
  });
});
