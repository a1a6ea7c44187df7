/**
 * Audit records carry what changed (docs/logs.md "What is audited"): a creation its after, a
 * deletion its before, a change both, and every one the source address of the request that made
 * it. Representative changes go through the real API, from a distinct address each, and the audit
 * log (GET /api/logs/audit) is read back on both databases.
 */
// Databases: PGlite and PostgreSQL (before and after kept as JSON).
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { tradingAccounts } from "../../server/db/schema.ts";
import { accountsMirrorOf } from "../../server/modules/accounts/mirror/plugin.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { addMember, signUp } from "./support/fixtures.ts";

interface AuditItem {
  action: string;
  targetType: string;
  targetId: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  sourceIp: string | null;
}

describeDb("audit records: before, after and source address", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  let org: string;
  let h: Record<string, string>;
  let platformId: string;
  let login: string;
  const admin = newPerson("Ada Audit");
  const member = newPerson("Mia Member");

  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
    org = await signUp(t, tokens, admin);
    await addMember(t.ctx, org, member);
    h = apiHeaders(await tokens.mint(admin), org);
    const res = await call("POST", "/api/tradePlatforms", "198.51.100.1", {
      type: "MT5",
      name: "Audit MT5",
      timeZone: "UTC",
      connection: { kind: "simulated", accounts: 3, tradeRate: 0, seed: 9 },
    });
    expect(res.statusCode, res.body).toBe(201);
    platformId = res.json().id;
    await accountsMirrorOf(t.ctx)!.whenSynced(platformId, 30_000);
    const [account] = await t.ctx.database.db
      .select({ login: tradingAccounts.login })
      .from(tradingAccounts)
      .where(and(eq(tradingAccounts.organizationId, org), eq(tradingAccounts.platformId, platformId)))
      .limit(1);
    login = account!.login;
  }, 120_000);
  afterAll(() => t?.close());

  function call(method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE", url: string, remoteAddress: string, payload?: unknown) {
    return t.app.inject({ method, url, headers: h, remoteAddress, ...(payload === undefined ? {} : { payload: payload as object }) });
  }
  async function change(method: "POST" | "PUT" | "PATCH" | "DELETE", url: string, remoteAddress: string, payload?: unknown) {
    const res = await call(method, url, remoteAddress, payload);
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
    return res;
  }
  /** The newest audit record of this action on this target. */
  async function latest(action: string, targetId: string): Promise<AuditItem> {
    const res = await call("GET", `/api/logs/audit?action=${encodeURIComponent(action)}&target=${encodeURIComponent(targetId)}&limit=1`, "127.0.0.1");
    expect(res.statusCode, res.body).toBe(200);
    const [item] = res.json<{ items: AuditItem[] }>().items;
    expect(item, `no ${action} record for ${targetId}`).toBeDefined();
    return item!;
  }

  it("a platform's creation has its after, an update its before and after", async () => {
    expect(await latest("tradePlatform.created", platformId)).toMatchObject({
      before: null,
      after: expect.objectContaining({ name: "Audit MT5" }),
      sourceIp: "198.51.100.1",
    });
    await change("PATCH", `/api/tradePlatforms/${platformId}`, "198.51.100.2", { name: "Audit MT5 renamed" });
    expect(await latest("tradePlatform.updated", platformId)).toMatchObject({
      targetType: "tradePlatform",
      before: expect.objectContaining({ name: "Audit MT5" }),
      after: expect.objectContaining({ name: "Audit MT5 renamed" }),
      sourceIp: "198.51.100.2",
    });
  });

  it("a customer's creation, account link, unlink, edit and deletion", async () => {
    const created = (await change("POST", "/api/customers", "198.51.100.3", { kind: "person", name: "Audited Person" })).json<{
      id: string;
      version: number;
    }>();
    expect(await latest("customer.created", created.id)).toMatchObject({
      before: null,
      after: expect.objectContaining({ name: "Audited Person" }),
      sourceIp: "198.51.100.3",
    });

    await change("POST", `/api/customers/${created.id}/accounts`, "198.51.100.4", { platformId, login });
    expect(await latest("customer.accountLinked", created.id)).toMatchObject({
      before: { customer: "Audited Person", accounts: [] },
      after: { customer: "Audited Person", accounts: [expect.objectContaining({ platformId, login })] },
      sourceIp: "198.51.100.4",
    });

    await change("PATCH", `/api/customers/${created.id}`, "198.51.100.5", { status: "active", version: created.version });
    expect(await latest("customer.updated", created.id)).toMatchObject({
      before: expect.objectContaining({ status: "lead" }),
      after: expect.objectContaining({ status: "active" }),
      sourceIp: "198.51.100.5",
    });

    await change("DELETE", `/api/customers/${created.id}/accounts/${platformId}/${login}`, "198.51.100.6");
    expect(await latest("customer.accountUnlinked", created.id)).toMatchObject({
      before: { accounts: [expect.objectContaining({ platformId, login })] },
      after: { accounts: [] },
      sourceIp: "198.51.100.6",
    });

    await change("DELETE", `/api/customers/${created.id}`, "198.51.100.7");
    expect(await latest("customer.deleted", created.id)).toMatchObject({
      before: expect.objectContaining({ name: "Audited Person" }),
      after: null,
      sourceIp: "198.51.100.7",
    });
  });

  it("a member's role change has the access before and after", async () => {
    await change("PUT", `/api/members/${encodeURIComponent(member.sub)}`, "198.51.100.8", { role: "support" });
    const record = await latest("member.roleChanged", member.sub);
    expect(record.sourceIp).toBe("198.51.100.8");
    expect(record.before).not.toBeNull();
    expect(record.after).toMatchObject({ role: "support" });
    expect(record.before).not.toEqual(record.after);
  });

  it("an invitation sent again has the old and new expiry; a password reset says which password changed, never the password", async () => {
    const email = `audit-${Date.now().toString(36)}@example.test`;
    const sent = (await change("POST", "/api/members/invitations", "198.51.100.9", { email, role: "viewer" })).json<{ invitation: { id: string } }>();
    const id = sent.invitation.id;
    expect(await latest("invitation.created", id)).toMatchObject({ before: null, after: expect.objectContaining({ email }), sourceIp: "198.51.100.9" });
    await change("POST", `/api/members/invitations/${id}/resend`, "198.51.100.10");
    const resent = await latest("invitation.resent", id);
    expect(resent).toMatchObject({
      before: { email, sendCount: 1, expiresAt: expect.any(String) },
      after: { email, sendCount: 2, expiresAt: expect.any(String) },
      sourceIp: "198.51.100.10",
    });
    expect(Date.parse(resent.after!.expiresAt as string)).toBeGreaterThanOrEqual(Date.parse(resent.before!.expiresAt as string));

    const password = "Audit-pass-4417";
    await change("POST", `/api/accounts/${platformId}/${login}/reset-password`, "198.51.100.11", { password });
    const reset = await latest("account.password.reset", `${platformId}/${login}`);
    expect(reset).toMatchObject({ before: { mainPassword: expect.any(String) }, after: { mainPassword: expect.any(String) }, sourceIp: "198.51.100.11" });
    expect(JSON.stringify(reset)).not.toContain(password);
  });

  it("an organization created through the API starts its own audit log with its creation, and its address", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/api/organizations",
      headers: apiHeaders(await tokens.mint(admin)),
      remoteAddress: "198.51.100.12",
      payload: { name: "Audit Second Desk" },
    });
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json<{ id: string }>().id;
    const log = await t.app.inject({
      url: `/api/logs/audit?action=organization.created&limit=5`,
      headers: apiHeaders(await tokens.mint(admin), created),
      remoteAddress: "127.0.0.1",
    });
    expect(log.statusCode, log.body).toBe(200);
    expect(log.json<{ items: AuditItem[] }>().items).toEqual([
      expect.objectContaining({ targetType: "organization", targetId: created, before: null, after: { name: "Audit Second Desk" }, sourceIp: "198.51.100.12" }),
    ]);
    // Not in the organization it was created from.
    expect((await latest("tradePlatform.created", platformId)).action).toBe("tradePlatform.created");
    const here = await call("GET", `/api/logs/audit?action=organization.created&limit=5`, "127.0.0.1");
    expect(here.json<{ items: AuditItem[] }>().items.map((i) => i.targetId)).not.toContain(created);
  });
});
