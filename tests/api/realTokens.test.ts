import { afterAll, beforeAll, expect, it } from "vitest";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { signUp, type TokenSet } from "../helpers/oidcFlow.ts";
import { apiHeaders } from "../helpers/tokens.ts";

/** The guard against the embedded provider's own tokens, obtained through its real pages. */
describeDb("API with tokens from the embedded provider", () => {
  let t: TestApp;
  let tokens: TokenSet;
  beforeAll(async () => {
    t = await createTestApp();
    tokens = await signUp(t.app, { name: "Newcomer Nia", email: `nia-${Date.now()}@example.test`, password: "correct horse battery staple" });
  });
  afterAll(() => t?.close());

  it("a newcomer's first preflight gives them an organization they administer", async () => {
    const preflight = await t.app.inject({ url: "/api/profile/preflight", headers: apiHeaders(tokens.access_token) });
    expect(preflight.statusCode).toBe(200);
    const body = preflight.json();
    expect(body.user).toMatchObject({ name: "Newcomer Nia" });
    expect(body.createdOrganizationId).toEqual(expect.any(String));

    const orgs = (await t.app.inject({ url: "/api/organizations", headers: apiHeaders(tokens.access_token) })).json();
    expect(orgs).toEqual([expect.objectContaining({ id: body.createdOrganizationId, name: "Newcomer Nia's organization", isAdmin: true })]);
    const members = await t.app.inject({ url: "/api/members", headers: apiHeaders(tokens.access_token, body.createdOrganizationId) });
    expect(members.statusCode).toBe(200);
  });

  it("refuses the ID token as an access token (its audience is the client, not the API)", async () => {
    const res = await t.app.inject({ url: "/api/organizations", headers: apiHeaders(tokens.id_token) });
    expect(res.statusCode).toBe(401);
  });
});
