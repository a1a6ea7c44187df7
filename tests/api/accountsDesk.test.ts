/**
 * What the /users screen needs of /api/accounts at a dealer's desk (issue 24 §3): the platform's
 * groups for the group field, the client's name, e-mail, phone and country edited, and the
 * investor password set, each through the platform, audited without a password.
 */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Account } from "../../core/trading/index.ts";
import { accountsMirrorOf } from "../../server/modules/accounts/mirror/plugin.ts";
import { auditEvents } from "../../server/db/schema.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type Person, type TokenFactory } from "../helpers/tokens.ts";
import { addMember, signUp } from "./support/fixtures.ts";

describeDb("/api/accounts at a dealer's desk", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  const dealer = newPerson("Dealer");
  const viewer = newPerson("Viewer");
  const outsider = newPerson("Outsider");
  let org: string;
  let otherOrg: string;
  let platformId: string;
  let accounts: Account[];

  async function call(person: Person, organizationId: string, method: "GET" | "POST" | "PATCH", url: string, payload?: unknown) {
    const res = await t.app.inject({
      method,
      url,
      headers: apiHeaders(await tokens.mint(person), organizationId),
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return { status: res.statusCode, body: res.body ? res.json() : undefined };
  }
  const connector = () => t.app.platforms.connectorFor(org, platformId);

  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
    org = await signUp(t, tokens, dealer);
    otherOrg = await signUp(t, tokens, outsider);
    await addMember(t.ctx, org, viewer, { [`Module.users.${org}`]: "read" });
    const res = await call(dealer, org, "POST", "/api/tradePlatforms", {
      type: "MT5",
      name: "Desk MT5",
      timeZone: "UTC",
      connection: { kind: "simulated", accounts: 30, tradeRate: 0, seed: 5 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    platformId = res.body.id;
    await accountsMirrorOf(t.ctx)!.whenSynced(platformId, 30_000);
    accounts = (await (await connector()).listAccounts({ limit: 1000 })).items;
  }, 60_000);
  afterAll(() => t?.close());

  it("lists a platform's groups with the platform's own names, for anyone who reads accounts; another organization's platform is not found", async () => {
    const res = await call(viewer, org, "GET", `/api/accounts/groups?platformId=${platformId}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const own = (await (await connector()).listGroups()).map((g) => g.name).sort((a, b) => a.localeCompare(b, "en"));
    expect(res.body.map((g: { name: string }) => g.name)).toEqual(own);
    expect(res.body).toContainEqual({ name: "demo\\retail-usd", currency: "USD", defaultLeverage: 100 });
    // Every account's group is one of them.
    for (const a of accounts) expect(own).toContain(a.group);

    expect((await call(outsider, otherOrg, "GET", `/api/accounts/groups?platformId=${platformId}`)).status).toBe(404);
    const bad = await call(dealer, org, "GET", "/api/accounts/groups?platformId=nope");
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/Platform ID must be a platform id/);
  });

  it("changes the client's name, e-mail, phone and country on the platform, with before and after in the audit", async () => {
    const account = accounts[3]!;
    const base = `/api/accounts/${platformId}/${account.login}`;
    const change = { name: "Ada Lovelace", email: "ada@example.com", phone: "+44 20 7946 0000", country: "United Kingdom" };
    const res = await call(dealer, org, "PATCH", base, change);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ name: "Ada Lovelace", email: "ada@example.com" });
    expect(await (await connector()).getAccount(account.login)).toMatchObject(change);
    const detail = await call(dealer, org, "GET", base);
    expect(detail.body).toMatchObject(change);
    const [audit] = await t.ctx.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, "account.changed"), eq(auditEvents.targetId, `${platformId}/${account.login}`)));
    expect(audit!.before).toEqual({ name: account.name, email: account.email, phone: account.phone, country: account.country });
    expect(audit!.after).toEqual(change);

    for (const [body, message] of [
      [{ name: "" }, /Enter the client's name/],
      [{ email: "not-an-address" }, /e-mail address/],
      [{ phone: "1".repeat(65) }, /Phone is at most 64 characters/],
      [{ city: "Paris" }, /not city/],
    ] as const) {
      const bad = await call(dealer, org, "PATCH", base, body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body.message).toMatch(message);
    }
    expect((await call(viewer, org, "PATCH", base, { name: "Nobody" })).status).toBe(403);
  });

  it("sets the investor password (204), apart from the main one, audited without it", async () => {
    const login = accounts[5]!.login;
    const url = `/api/accounts/${platformId}/${login}/reset-password`;
    const before = Date.now() - 1000;
    const res = await call(dealer, org, "POST", url, { password: "Watch1234", kind: "investor" });
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    // The platform's journal says which password changed.
    const lines = await (await connector()).journal({ from: before, to: Date.now() + 1000, login });
    expect(lines.map((l) => l.message).join("\n")).toMatch(/investor password changed/);
    expect(lines.map((l) => l.message).join("\n")).not.toMatch(/main password changed/);
    const audits = await t.ctx.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, "account.investorPassword.reset"), eq(auditEvents.targetId, `${platformId}/${login}`)));
    expect(audits).toHaveLength(1);
    expect(audits[0]!.after).toEqual({ investorPassword: "(new, not recorded)" });
    expect(JSON.stringify(audits)).not.toContain("Watch1234");
    const bad = await call(dealer, org, "POST", url, { password: "Watch1234", kind: "trader" });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/Kind must be main or investor/);
  });
});
