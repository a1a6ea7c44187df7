/**
 * An organization's security policy (docs/security.md "Organization security policy", decision
 * 0051) through the real server: allowed IP ranges, session lifetime and require two-factor
 * enforced by the guard on every route of the organization, the confirmation before excluding
 * one's own address, bad input, the audit trail, and one organization never seeing another's.
 */
import { and, eq } from "drizzle-orm";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { SESSION_LIFETIME_MAX_SECONDS } from "../../core/securityPolicy.ts";
import { auditEvents, organizationSecurity } from "../../server/db/schema.ts";
import { TTL } from "../../server/idp/provider.ts";
import { describeDb } from "../helpers/db.ts";
import { refreshTokens, signInFlow, signUp as signUpThroughPages } from "../helpers/oidcFlow.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type Person, type TokenFactory } from "../helpers/tokens.ts";
import { addMember, signUp } from "./support/fixtures.ts";

const NO_POLICY = { requireTwoFactor: false, sessionLifetimeSeconds: null, allowedIpRanges: [] };
const now = () => Math.floor(Date.now() / 1000);

describeDb("organization security policy", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  let admin: Person;
  let org: string;
  let headers: Record<string, string>;

  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
    admin = newPerson("Ada Admin");
    org = await signUp(t, tokens, admin);
    // Signed in just now, with a password only.
    headers = apiHeaders(await tokens.mint(admin, { claims: { auth_time: now(), amr: ["pwd"] } }), org);
  });
  afterAll(async () => {
    await t?.close();
  });
  // Each test starts from no policy (as an operator's SQL would: the database announces it).
  beforeEach(async () => {
    await t.ctx.database.db.delete(organizationSecurity).where(eq(organizationSecurity.organizationId, org));
  });

  type Inject = { remoteAddress?: string; h?: Record<string, string> };
  const put = (body: unknown, { remoteAddress = "127.0.0.1", h = headers }: Inject = {}) =>
    t.app.inject({ method: "PUT", url: "/api/organization/security", headers: h, payload: body as object, remoteAddress });
  const get = (url: string, { remoteAddress = "127.0.0.1", h = headers }: Inject = {}) => t.app.inject({ url, headers: h, remoteAddress });

  it("answers the default policy and the caller's address; the maximum lifetime is the provider's", async () => {
    const res = await get("/api/organization/security", { remoteAddress: "203.0.113.9" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ ...NO_POLICY, yourAddress: "203.0.113.9", yourAddressAllowed: true, signedInWithSecondFactor: false });
    expect(res.json().bounds).toEqual({ minSessionLifetimeSeconds: 3600, maxSessionLifetimeSeconds: TTL.RefreshToken });
    expect(SESSION_LIFETIME_MAX_SECONDS).toBe(TTL.RefreshToken);
  });

  it("an allow-list without 127.0.0.1 refuses the test's calls on every route; one with it allows them", async () => {
    const saved = await put({ ...NO_POLICY, allowedIpRanges: ["203.0.113.0/24"], confirmExcludingOwnAddress: true });
    expect(saved.statusCode).toBe(200);
    expect(saved.json()).toMatchObject({ allowedIpRanges: ["203.0.113.0/24"], yourAddressAllowed: false });

    for (const url of ["/api/accounts", "/api/members", "/api/organization/security"]) {
      const refused = await get(url);
      expect(refused.statusCode, url).toBe(403);
      expect(refused.json()).toMatchObject({
        code: "address_not_allowed",
        message: "Your address 127.0.0.1 is not in this organization's allowed IP ranges. Ask its administrator.",
      });
    }
    // From an address in the range, the same calls work.
    expect((await get("/api/accounts", { remoteAddress: "203.0.113.9" })).statusCode).toBe(200);
    // Routes outside any organization are not the organization's to refuse.
    expect((await get("/api/organizations")).statusCode).toBe(200);

    // The administrator, from an allowed address, lets 127.0.0.1 in again: it works at once.
    const widened = await put({ ...NO_POLICY, allowedIpRanges: ["203.0.113.0/24", "127.0.0.1"] }, { remoteAddress: "203.0.113.9" });
    expect(widened.statusCode).toBe(200);
    expect(widened.json().allowedIpRanges).toEqual(["203.0.113.0/24", "127.0.0.1/32"]);
    expect((await get("/api/accounts")).statusCode).toBe(200);
  });

  it("matches IPv6 ranges, and IPv4 callers seen as IPv4-mapped IPv6", async () => {
    const saved = await put({ ...NO_POLICY, allowedIpRanges: ["2001:DB8:0:0::1/32", "10.1.2.3/8"], confirmExcludingOwnAddress: true });
    expect(saved.statusCode).toBe(200);
    expect(saved.json().allowedIpRanges).toEqual(["2001:db8::/32", "10.0.0.0/8"]);
    expect((await get("/api/accounts", { remoteAddress: "2001:db8:ffff::7" })).statusCode).toBe(200);
    expect((await get("/api/accounts", { remoteAddress: "2001:db9::7" })).statusCode).toBe(403);
    expect((await get("/api/accounts", { remoteAddress: "::ffff:10.9.8.7" })).statusCode).toBe(200);
    expect((await get("/api/accounts", { remoteAddress: "11.0.0.1" })).statusCode).toBe(403);
  });

  it("refuses bad ranges and lifetimes with 400, naming the line", async () => {
    for (const [ranges, fragment] of [
      [["10.0.0.0/8", "10.0.0.0/33"], '"10.0.0.0/33" is not an IP range'],
      [["banana"], '"banana" is not an IP range'],
      [["2001:db8::/129"], "is not an IP range"],
      [["::ffff:10.0.0.0/104"], "write it as IPv4"],
      [[""], "Write a range such as"],
    ] as const) {
      const res = await put({ ...NO_POLICY, allowedIpRanges: ranges });
      expect(res.statusCode, JSON.stringify(ranges)).toBe(400);
      expect(res.json().message).toContain(fragment);
    }
    expect((await put({ ...NO_POLICY, allowedIpRanges: ["10.0.0.0/8", "nope"] })).json().message).toMatch(/^Allowed IP ranges \(item 2\): /);
    const tooShort = await put({ ...NO_POLICY, sessionLifetimeSeconds: 60 });
    expect(tooShort.statusCode).toBe(400);
    expect(tooShort.json().message).toContain("at least 1 hours");
    expect((await put({ ...NO_POLICY, sessionLifetimeSeconds: TTL.RefreshToken + 1 })).statusCode).toBe(400);
    expect((await put({ ...NO_POLICY, sessionLifetimeSeconds: 3600.5 })).statusCode).toBe(400);
    expect((await put({ ...NO_POLICY, requireTwoFactor: "yes" })).statusCode).toBe(400);
    expect((await put({ ...NO_POLICY, extra: 1 })).statusCode).toBe(400);
    expect((await put([])).statusCode).toBe(400);
    expect((await get("/api/organization/security")).json()).toMatchObject(NO_POLICY);
  });

  it("saving ranges that exclude the caller's own address needs an explicit confirmation", async () => {
    const refused = await put({ ...NO_POLICY, allowedIpRanges: ["198.51.100.0/24"] }, { remoteAddress: "203.0.113.9" });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: "excludes_own_address" });
    expect(refused.json().message).toContain("do not include your own address 203.0.113.9");
    // The whole body, byte for byte: clients act on it (the settings screen asks to confirm).
    expect(refused.body).toBe(
      JSON.stringify({
        statusCode: 409,
        error: "Conflict",
        message:
          "These ranges do not include your own address 203.0.113.9: once saved, you could no longer reach this organization from here. Add your address, or confirm to save them anyway (confirmExcludingOwnAddress: true).",
        code: "excludes_own_address",
      }),
    );
    expect((await get("/api/organization/security")).json()).toMatchObject(NO_POLICY);

    const confirmed = await put({ ...NO_POLICY, allowedIpRanges: ["198.51.100.0/24"], confirmExcludingOwnAddress: true }, { remoteAddress: "203.0.113.9" });
    expect(confirmed.statusCode).toBe(200);
    expect((await get("/api/accounts", { remoteAddress: "203.0.113.9" })).statusCode).toBe(403);
    expect((await get("/api/accounts", { remoteAddress: "198.51.100.1" })).statusCode).toBe(200);
    // Ranges that include the caller need no confirmation.
    expect((await put({ ...NO_POLICY, allowedIpRanges: ["198.51.100.0/24"] }, { remoteAddress: "198.51.100.1" })).statusCode).toBe(200);
  });

  it("require two-factor refuses a sign-in without a second factor and allows one with it", async () => {
    const member = newPerson("Mo Member");
    await addMember(t.ctx, org, member, { [`Module.users.${org}`]: "read" });
    const password = apiHeaders(await tokens.mint(member, { claims: { amr: ["pwd"] } }), org);
    const otp = apiHeaders(await tokens.mint(member, { claims: { amr: ["pwd", "otp"] } }), org);
    const none = apiHeaders(await tokens.mint(member), org);
    expect((await get("/api/accounts", { h: password })).statusCode).toBe(200);

    expect((await put({ ...NO_POLICY, requireTwoFactor: true })).statusCode).toBe(200);
    for (const h of [password, none]) {
      const refused = await get("/api/accounts", { h });
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ code: "two_factor_required" });
      expect(refused.json().message).toContain("requires two-factor sign-in");
    }
    expect((await get("/api/accounts", { h: otp })).statusCode).toBe(200);
    expect((await get("/api/accounts", { h: apiHeaders(await tokens.mint(member, { claims: { amr: ["hwk"] } }), org) })).statusCode).toBe(200);
    // The member's own profile is outside the organization: enrolment is never blocked.
    expect((await get("/api/profile/preflight", { h: password })).statusCode).toBe(200);

    // The administrator signed in with a password only: refused elsewhere, but can still reach
    // the policy itself, and so undo it.
    expect((await get("/api/members")).json()).toMatchObject({ code: "two_factor_required" });
    const own = await get("/api/organization/security");
    expect(own.statusCode).toBe(200);
    expect(own.json()).toMatchObject({ requireTwoFactor: true, signedInWithSecondFactor: false });
    expect((await put(NO_POLICY)).statusCode).toBe(200);
    expect((await get("/api/accounts", { h: password })).statusCode).toBe(200);
  });

  it("a session lifetime refuses an access token whose sign-in is older, with 401", async () => {
    const member = newPerson("Sam Session");
    await addMember(t.ctx, org, member, { [`Module.users.${org}`]: "read" });
    const old = apiHeaders(await tokens.mint(member, { claims: { auth_time: now() - 2 * 3600 - 5 } }), org);
    const recent = apiHeaders(await tokens.mint(member, { claims: { auth_time: now() - 3600 } }), org);
    const unknown = apiHeaders(await tokens.mint(member), org);
    expect((await get("/api/accounts", { h: old })).statusCode).toBe(200);
    // An administrator whose own token lacks auth_time cannot set a lifetime (it would lock them out).
    const blind = await put({ ...NO_POLICY, sessionLifetimeSeconds: 3600 }, { h: apiHeaders(await tokens.mint(admin), org) });
    expect(blind.statusCode).toBe(400);
    expect(blind.json().message).toContain("auth_time");
    expect(blind.body).toBe(
      JSON.stringify({
        statusCode: 400,
        error: "Bad Request",
        message:
          "A session lifetime cannot be enforced: your identity provider's access tokens do not say when the person signed in (auth_time claim). Leave it empty, or configure the provider to include auth_time.",
      }),
    );

    expect((await put({ ...NO_POLICY, sessionLifetimeSeconds: 2 * 3600 })).statusCode).toBe(200);
    const ended = await get("/api/accounts", { h: old });
    expect(ended.statusCode).toBe(401);
    expect(ended.json()).toMatchObject({ code: "session_expired", message: "Your session for this organization has ended; sign in again." });
    expect(ended.headers["www-authenticate"]).toContain('error="invalid_token"');
    expect((await get("/api/accounts", { h: recent })).statusCode).toBe(200);
    // A token that does not say when its sign-in was cannot be checked: refused, not let through.
    const noTime = await get("/api/accounts", { h: unknown });
    expect(noTime.statusCode).toBe(403);
    expect(noTime.json()).toMatchObject({ code: "session_time_unknown" });
  });

  it("the embedded provider's access tokens carry the sign-in's auth_time, kept through refreshes, which the lifetime is checked against", async () => {
    const email = `lifetime-${Date.now().toString(36)}@example.test`;
    await signUpThroughPages(t.app, { name: "Real Tokens", email, password: "heron-quartz-meadow-17" });
    const { tokens: signedIn } = await signInFlow(t.app, { email, password: "heron-quartz-meadow-17" });
    const claims = decodeJwt(signedIn.access_token);
    expect(claims.auth_time).toEqual(expect.any(Number));
    expect(Math.abs((claims.auth_time as number) - now())).toBeLessThan(60);
    const renewed = await refreshTokens(t.app, signedIn.refresh_token);
    expect(renewed.statusCode).toBe(200);
    expect(decodeJwt(renewed.json().access_token).auth_time).toBe(claims.auth_time);

    // A member of our organization with that real token: allowed under a lifetime, refused once the sign-in is older.
    const sub = claims.sub as string;
    await addMember(t.ctx, org, { sub, email, name: "Real Tokens" }, { [`Module.users.${org}`]: "read" });
    const h = apiHeaders(renewed.json().access_token, org);
    expect((await put({ ...NO_POLICY, sessionLifetimeSeconds: 3600 })).statusCode).toBe(200);
    expect((await get("/api/accounts", { h })).statusCode).toBe(200);
    // An hour on for the guard's clock (Date.now); the token's own expiry (jose reads new Date()) is untouched.
    const later = Date.now() + 3601_000;
    const realNow = Date.now;
    Date.now = () => later;
    try {
      expect((await get("/api/accounts", { h })).json()).toMatchObject({ code: "session_expired" });
    } finally {
      Date.now = realNow;
    }
  });

  it("is for administrators only, audited, and another organization's policy is invisible", async () => {
    const viewer = newPerson("Val Viewer");
    await addMember(t.ctx, org, viewer, { [`Module.users.${org}`]: "read" });
    const viewerHeaders = apiHeaders(await tokens.mint(viewer), org);
    expect((await get("/api/organization/security", { h: viewerHeaders })).statusCode).toBe(403);
    expect((await put(NO_POLICY, { h: viewerHeaders })).statusCode).toBe(403);

    const saved = await put({ requireTwoFactor: false, sessionLifetimeSeconds: 8 * 3600, allowedIpRanges: ["127.0.0.0/8"] });
    expect(saved.statusCode).toBe(200);
    const audits = await t.ctx.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.organizationId, org), eq(auditEvents.action, "organization.securityChanged")));
    expect(audits.at(-1)).toMatchObject({
      actorSub: admin.sub,
      sourceIp: "127.0.0.1",
      after: { requireTwoFactor: false, sessionLifetimeSeconds: 8 * 3600, allowedIpRanges: ["127.0.0.0/8"] },
    });

    // Another organization: its administrator sees their own (empty) policy, and cannot name ours.
    const other = newPerson("Otto Other");
    const otherOrg = await signUp(t, tokens, other);
    const otherToken = await tokens.mint(other);
    expect((await get("/api/organization/security", { h: apiHeaders(otherToken, otherOrg) })).json()).toMatchObject(NO_POLICY);
    const foreign = await get("/api/organization/security", { h: apiHeaders(otherToken, org) });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().message).toBe("You are not a member of this organization");
    expect(JSON.stringify(foreign.json())).not.toContain("127.0.0.0");
    expect((await put({ ...NO_POLICY, allowedIpRanges: ["10.0.0.0/8"] }, { h: apiHeaders(otherToken, org) })).statusCode).toBe(404);
    const ours = await get("/api/organization/security");
    expect(ours.json().allowedIpRanges, ours.body).toEqual(["127.0.0.0/8"]);
  });

  it("a new policy closes the open live streams of callers it excludes", async () => {
    const base = await t.app.listen({ port: 0, host: "127.0.0.1" });
    const watcher = newPerson("Wes Watcher");
    await addMember(t.ctx, org, watcher, { [`Module.tradePlatforms.${org}`]: "read" });
    const stream = await fetch(`${base}/api/tradePlatforms/live`, { headers: apiHeaders(await tokens.mint(watcher, { claims: { amr: ["pwd"] } }), org) });
    expect(stream.status).toBe(200);
    expect((await put({ ...NO_POLICY, requireTwoFactor: true })).statusCode).toBe(200);
    const reader = stream.body!.getReader();
    while (!(await reader.read()).done);
  });
});
