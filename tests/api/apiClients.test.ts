/**
 * API clients (docs/api.md, decision 0050): created by an administrator, they get JWT access tokens
 * from the embedded provider's real token endpoint with the client-credentials grant, and the same
 * guard lets them read /api/accounts of their own organization with the permissions given — and
 * nothing else. Revoking refuses new tokens and the ones already issued, at once.
 */
import crypto from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { API_RESOURCE } from "../../server/config.ts";
import { accountsMirrorOf } from "../../server/modules/accounts/mirror/plugin.ts";
import { rowsOf } from "../../server/db/rows.ts";
import { apiClients, auditEvents } from "../../server/db/schema.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type Person, type TokenFactory } from "../helpers/tokens.ts";
import { addMember, signUp } from "./support/fixtures.ts";

describeDb("API clients (client credentials)", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  const admin = newPerson("Admin Ada");
  const outsider = newPerson("Outsider Olaf");
  const settingsWriter = newPerson("Settings Sam");
  let org: string;
  let otherOrg: string;
  let platformId: string;

  async function as(person: Person, method: "GET" | "POST" | "DELETE", url: string, payload?: unknown, organizationId = org) {
    const res = await t.app.inject({
      method,
      url,
      headers: apiHeaders(await tokens.mint(person), organizationId),
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return { status: res.statusCode, body: res.body ? res.json() : undefined };
  }

  async function tokenRequest(clientId: string, secret: string, extra: Record<string, string> = {}) {
    return t.app.inject({
      method: "POST",
      url: "/oidc/token",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString("base64")}`,
      },
      payload: new URLSearchParams({ grant_type: "client_credentials", resource: API_RESOURCE, ...extra }).toString(),
    });
  }

  async function accessToken(clientId: string, secret: string): Promise<string> {
    const res = await tokenRequest(clientId, secret);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.token_type).toBe("Bearer");
    return body.access_token as string;
  }

  async function asClient(
    token: string,
    method: "GET" | "POST" | "DELETE" | "PUT",
    url: string,
    payload?: unknown,
    organizationId: string | undefined = org,
    headers: Record<string, string> = {},
  ) {
    const res = await t.app.inject({
      method,
      url,
      headers: { ...apiHeaders(token, organizationId), ...headers },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return { status: res.statusCode, body: res.body ? res.json() : undefined };
  }

  async function createClient(permissions: Record<string, string[]>, name = "Reporting") {
    const res = await as(admin, "POST", "/api/organization/api-clients", { name, permissions });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { clientId: string; clientSecret: string; name: string; permissions: Record<string, string[]> };
  }

  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
    org = await signUp(t, tokens, admin);
    otherOrg = await signUp(t, tokens, outsider);
    await addMember(t.ctx, org, settingsWriter, { [`Module.settings.${org}`]: "read,write", [`Module.users.${org}`]: "read" });
    const res = await as(admin, "POST", "/api/tradePlatforms", {
      type: "MT5",
      name: "Sim MT5",
      timeZone: "UTC",
      connection: { kind: "simulated", accounts: 20, tradeRate: 0, seed: 5 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    platformId = res.body.id;
    await accountsMirrorOf(t.ctx)!.whenSynced(platformId, 30_000);
  });
  afterAll(() => t?.close());
  let adminToken: string;
  beforeAll(async () => {
    adminToken = await tokens.mint(admin);
  });

  it("reads /api/accounts with a token from the provider's token endpoint, then is refused at once after revocation", async () => {
    const client = await createClient({ users: ["read"] });
    expect(client.clientId).toMatch(/^tbc_/);
    expect(client.clientSecret.length).toBeGreaterThanOrEqual(43);
    const token = await accessToken(client.clientId, client.clientSecret);

    const list = await asClient(token, "GET", "/api/accounts?limit=5");
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(list.body.total).toBe(20);
    expect(list.body.items).toHaveLength(5);

    // Listed with its last use, never its secret.
    const listed = await as(admin, "GET", "/api/organization/api-clients");
    expect(listed.status).toBe(200);
    const row = listed.body.find((c: { clientId: string }) => c.clientId === client.clientId);
    expect(row).toMatchObject({ name: "Reporting", permissions: { users: ["read"] }, createdBy: "Admin Ada" });
    expect(row.lastUsedAt).toEqual(expect.any(String));
    expect(JSON.stringify(listed.body)).not.toContain(client.clientSecret);

    const revoked = await as(admin, "DELETE", `/api/organization/api-clients/${client.clientId}`);
    expect(revoked.status).toBe(204);
    // The same token, still unexpired, is refused at once.
    const after = await asClient(token, "GET", "/api/accounts?limit=5");
    expect(after.status).toBe(401);
    expect(after.body.message).toMatch(/revoked/);
    // And the provider gives it no new token.
    const again = await tokenRequest(client.clientId, client.clientSecret);
    expect(again.statusCode).toBe(401);
    expect(again.json().error).toBe("invalid_client");
    // Revoking twice: 404.
    expect((await as(admin, "DELETE", `/api/organization/api-clients/${client.clientId}`)).status).toBe(404);

    const audit = await t.ctx.database.db.select().from(auditEvents).where(eq(auditEvents.targetId, client.clientId));
    expect(audit.map((a) => a.action).sort()).toEqual(["apiClient.created", "apiClient.revoked"]);
    expect(JSON.stringify(audit)).not.toContain(client.clientSecret);
  });

  it("is refused for modules and permissions it lacks, other organizations and routes for people", async () => {
    const client = await createClient({ users: ["read"], customers: ["read"] });
    const token = await accessToken(client.clientId, client.clientSecret);
    const base = `/api/accounts/${platformId}`;
    const first = (await asClient(token, "GET", "/api/accounts?limit=1")).body.items[0];

    const deposit = await asClient(token, "POST", `${base}/${first.login}/balance-operations`, { type: "deposit", amount: "10", comment: "x" });
    expect(deposit.status).toBe(403);
    expect(deposit.body.message).toMatch(/API client does not have the "money" permission on the "users" module/);
    expect((await asClient(token, "GET", "/api/members")).status).toBe(403);
    expect((await asClient(token, "GET", "/api/tradePlatforms")).status).toBe(403);

    // Another organization: refused like a non-member.
    const elsewhere = await asClient(token, "GET", "/api/accounts?limit=1", undefined, otherOrg);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.message).toMatch(/another organization/);

    // Routes about a person, or about access itself.
    for (const [method, url] of [
      ["GET", "/api/organizations"],
      ["GET", "/api/profile/user-claims"],
      ["GET", "/api/preferences/grid"],
      ["GET", "/api/inbox"],
      ["GET", "/api/organization/api-clients"],
    ] as const) {
      const res = await asClient(token, method, url);
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.body.message, `${method} ${url}`).toMatch(/API client/);
    }
    const mint = await asClient(token, "POST", "/api/organization/api-clients", { name: "More", permissions: { users: ["money"] } });
    expect(mint.status).toBe(403);

    // A wrong secret gets nothing.
    const wrong = await tokenRequest(client.clientId, `${client.clientSecret.slice(0, -2)}xx`);
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error).toBe("invalid_client");
    // Nor does a client asking for another resource.
    const target = await tokenRequest(client.clientId, client.clientSecret, { resource: "https://elsewhere.example" });
    expect(target.statusCode).toBe(400);
    expect(target.json().error).toBe("invalid_target");
  });

  it("given every members and settings permission, still cannot touch members, invitations, two-factor or the security policy (people only)", async () => {
    const client = await createClient({ members: ["read", "write"], settings: ["read", "write"], users: ["read"] }, "Over-granted");
    const token = await accessToken(client.clientId, client.clientSecret);
    const invitation = await as(admin, "POST", "/api/members/invitations", { email: `client-check-${Date.now()}@example.test`, role: "viewer" });
    expect(invitation.status).toBe(201);
    const id = invitation.body.invitation.id as string;
    for (const [method, url, payload] of [
      ["GET", "/api/members", undefined],
      ["PUT", `/api/members/${settingsWriter.sub}`, { role: "administrator" }],
      ["DELETE", `/api/members/${settingsWriter.sub}`, undefined],
      ["POST", `/api/members/${settingsWriter.sub}/two-factor/reset`, undefined],
      ["GET", "/api/members/invitations", undefined],
      ["POST", "/api/members/invitations", { email: "takeover@example.test", role: "administrator" }],
      ["POST", `/api/members/invitations/${id}/resend`, undefined],
      ["DELETE", `/api/members/invitations/${id}`, undefined],
      ["GET", "/api/members/outbox", undefined],
      ["GET", "/api/organization/security", undefined],
      ["PUT", "/api/organization/security", { requireTwoFactor: false, sessionLifetimeSeconds: null, allowedIpRanges: [] }],
    ] as const) {
      const res = await asClient(token, method, url, payload);
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.body.message, `${method} ${url}`).toBe("This request is for people signed in to Toolbox; an API client cannot make it.");
    }
    // Nothing changed: the member is no administrator, the invitation is still pending.
    const members = await as(admin, "GET", "/api/members");
    expect(members.body).toContainEqual(expect.objectContaining({ sub: settingsWriter.sub, admin: false }));
    const pending = await as(admin, "GET", "/api/members/invitations");
    expect(pending.body).toContainEqual(expect.objectContaining({ id, status: "pending" }));
    expect(pending.body).not.toContainEqual(expect.objectContaining({ email: "takeover@example.test" }));
  });

  it("is held to the organization's allowed IP ranges, like members", async () => {
    const client = await createClient({ users: ["read"] }, "Office reporting");
    const token = await accessToken(client.clientId, client.clientSecret);
    const fromAddress = async (remoteAddress: string) => t.app.inject({ url: "/api/accounts?limit=1", headers: apiHeaders(token, org), remoteAddress });
    expect((await fromAddress("198.51.100.7")).statusCode).toBe(200);

    const put = (allowedIpRanges: string[]) =>
      t.app.inject({
        method: "PUT",
        url: "/api/organization/security",
        headers: apiHeaders(adminToken, org),
        payload: { requireTwoFactor: false, sessionLifetimeSeconds: null, allowedIpRanges, confirmExcludingOwnAddress: true },
      });
    try {
      expect((await put(["127.0.0.1/32"])).statusCode).toBe(200);
      const refused = await fromAddress("198.51.100.7");
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ code: "address_not_allowed" });
      expect((await fromAddress("127.0.0.1")).statusCode).toBe(200);
    } finally {
      expect((await put([])).statusCode).toBe(200);
    }
    expect((await fromAddress("198.51.100.7")).statusCode).toBe(200);
  });

  it("a permission granted to a client is a claim the same rule reads: write works where given", async () => {
    const client = await createClient({ users: ["read", "write", "money"] }, "Cashier");
    const token = await accessToken(client.clientId, client.clientSecret);
    const first = (await asClient(token, "GET", "/api/accounts?limit=1")).body.items[0];
    const deposit = await asClient(
      token,
      "POST",
      `/api/accounts/${platformId}/${first.login}/balance-operations`,
      { type: "deposit", amount: "10", comment: "by machine" },
      org,
      { "idempotency-key": crypto.randomUUID() },
    );
    expect(deposit.status, JSON.stringify(deposit.body)).toBeLessThan(300);
    const [audit] = await t.ctx.database.db
      .select()
      .from(auditEvents)
      .where(sql`${auditEvents.actorSub} = ${client.clientId}`);
    expect(audit).toMatchObject({ organizationId: org, actorName: "Cashier" });
  });

  it("another organization's clients are invisible (404), and the secret is not stored in clear", async () => {
    const client = await createClient({ users: ["read"] }, "Private");
    const theirs = await as(outsider, "GET", "/api/organization/api-clients", undefined, otherOrg);
    expect(theirs.status).toBe(200);
    expect(theirs.body).toEqual([]);
    expect((await as(outsider, "DELETE", `/api/organization/api-clients/${client.clientId}`, undefined, otherOrg)).status).toBe(404);
    // Still usable: the outsider's attempt changed nothing.
    await accessToken(client.clientId, client.clientSecret);

    const [row] = await t.ctx.database.db.select().from(apiClients).where(eq(apiClients.id, client.clientId));
    expect(row!.secretHash).toMatch(/^[0-9a-f]{64}$/);
    const dump = await t.ctx.database.db.execute(sql`select count(*)::int as n from (
      select to_jsonb(c)::text as t from api_clients c union all select payload::text from idp_records union all select to_jsonb(a)::text from audit_events a
    ) x where x.t like ${`%${client.clientSecret}%`}`);
    expect(rowsOf<{ n: number }>(dump)[0]!.n).toBe(0);
  });

  it("a member gives a client no more than they may do; bad input is 400", async () => {
    const beyond = await as(settingsWriter, "POST", "/api/organization/api-clients", { name: "Too much", permissions: { users: ["read", "money"] } });
    expect(beyond.status).toBe(422);
    expect(beyond.body.message).toMatch(/users: money/);
    const within = await as(settingsWriter, "POST", "/api/organization/api-clients", { name: "Enough", permissions: { users: ["read"] } });
    expect(within.status).toBe(201);

    for (const body of [
      {},
      { name: "", permissions: { users: ["read"] } },
      { name: "x".repeat(101), permissions: { users: ["read"] } },
      { name: "No module", permissions: { nothing: ["read"] } },
      { name: "No value", permissions: { users: ["everything"] } },
      { name: "Empty", permissions: {} },
      { name: "Admin", permissions: { users: ["read"] }, admin: true },
      [],
    ]) {
      const res = await as(admin, "POST", "/api/organization/api-clients", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toEqual(expect.any(String));
    }
    expect((await as(admin, "DELETE", "/api/organization/api-clients/not-a-client")).status).toBe(400);
  });

  it("the OpenAPI document names the client-credentials scheme on routes open to clients", async () => {
    const doc = (await t.app.inject({ url: "/api/docs/json" })).json();
    expect(doc.components.securitySchemes.clientCredentials).toMatchObject({
      type: "oauth2",
      flows: { clientCredentials: { tokenUrl: expect.stringMatching(/\/oidc\/token$/) } },
    });
    expect(doc.paths["/api/accounts"].get.security).toContainEqual({ clientCredentials: [], organization: [] });
    expect(doc.paths["/api/organization/api-clients"].post.security).not.toContainEqual({ clientCredentials: [], organization: [] });
  });
});
