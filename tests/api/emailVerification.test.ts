/**
 * E-mail verification at the embedded provider (docs/security.md "E-mail verification"): a sign-up
 * or sign-in whose address an invitation waits for stops to confirm the address with a mailed
 * code; only a confirmed address accepts. Without SMTP_URL outside production the code is in the
 * development outbox, read from its page as a developer would; in production without SMTP_URL
 * there is no outbox and no step.
 */
import { eq } from "drizzle-orm";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, expect, it } from "vitest";
import { idpAccounts, idpEmailChallenges } from "../../server/db/schema.ts";
import { EMAIL_CODE_MAX_ATTEMPTS } from "../../server/idp/emailChallenges.ts";
import { describeDb } from "../helpers/db.ts";
import { asksForEmailCode, authorize, browse, codeFromDevOutbox, completeFlow, pathOf, signUp, signUpFlow } from "../helpers/oidcFlow.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory } from "../helpers/tokens.ts";
import { signUp as firstSignIn } from "./support/fixtures.ts";

const PASSWORD = "saffron-glacier-otter-93";
let seq = 0;
const uniqueEmail = (label: string) => `${label}-${Date.now().toString(36)}-${seq++}@example.test`;
const tokenOf = (link: string) => new URL(link).hash.replace(/^#invitation=/, "");

describeDb("e-mail verification (development outbox)", () => {
  let t: TestApp;
  let org: string;
  let adminHeaders: Record<string, string>;
  beforeAll(async () => {
    t = await createTestApp();
    const tokens = await tokenFactory(t.ctx);
    const admin = newPerson("Ida Inviter");
    org = await firstSignIn(t, tokens, admin);
    adminHeaders = apiHeaders(await tokens.mint(admin), org);
  });
  afterAll(() => t?.close());

  /** Invites `email`; answers the link (no SMTP: the answer carries it). */
  const invite = async (email: string) => {
    const res = await t.app.inject({ method: "POST", url: "/api/members/invitations", headers: adminHeaders, payload: { email, role: "viewer" } });
    expect(res.statusCode).toBe(201);
    return res.json<{ link: string }>().link;
  };
  const accept = (accessToken: string, link: string) =>
    t.app.inject({ method: "POST", url: "/api/invitations/accept", headers: apiHeaders(accessToken), payload: { token: tokenOf(link) } });

  it("plain sign-up (nothing waits for the address) asks for nothing and is usable at once, unverified", async () => {
    const email = uniqueEmail("plain");
    const tokens = await signUp(t.app, { name: "Pat Plain", email, password: PASSWORD });
    expect(decodeJwt(tokens.access_token)).toMatchObject({ email, email_verified: false });
    const preflight = await t.app.inject({ url: "/api/profile/preflight", headers: apiHeaders(tokens.access_token) });
    expect(preflight.json().createdOrganizationId).toEqual(expect.any(String));
  });

  it("an invited address confirms with the code from the development outbox; then, and only then, it accepts", async () => {
    const email = uniqueEmail("invited");
    const link = await invite(email);
    const { flow, response } = await authorize(t.app);
    const page = pathOf(String(response.headers.location), flow.publicUrl);
    const posted = await browse(t.app, flow.jar, "POST", `${page}/signup`, { name: "Ivy Invited", email, password: PASSWORD, confirmPassword: PASSWORD });
    expect(asksForEmailCode(posted)).toBe(true);
    const verifyPage = pathOf(String(posted.headers.location), flow.publicUrl);
    const shown = await browse(t.app, flow.jar, "GET", verifyPage);
    expect(shown.statusCode).toBe(200);
    expect(shown.body).toContain("Confirm your email address");
    expect(shown.body).toContain(email);
    expect(shown.body).toContain('href="/oidc/dev/outbox"');
    expect(shown.headers["content-security-policy"]).toContain("default-src 'none'");

    // Only a hash of the code is stored.
    const code = await codeFromDevOutbox(t.app, email);
    const [account] = await t.ctx.database.db.select().from(idpAccounts).where(eq(idpAccounts.email, email));
    const challenges = await t.ctx.database.db.select().from(idpEmailChallenges).where(eq(idpEmailChallenges.accountId, account!.id));
    expect(challenges).toHaveLength(1);
    expect(JSON.stringify(challenges)).not.toContain(code);
    expect(account!.emailVerifiedAt).toBeNull();

    const wrong = await browse(t.app, flow.jar, "POST", verifyPage, { code: code === "000000" ? "000001" : "000000" });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain("This code is not correct.");

    const confirmed = await browse(t.app, flow.jar, "POST", verifyPage, { code });
    expect(confirmed.statusCode).toBe(303);
    const { tokens } = await completeFlow(t.app, flow, confirmed);
    expect(decodeJwt(tokens.access_token)).toMatchObject({ email, email_verified: true });
    expect(decodeJwt(tokens.id_token)).toMatchObject({ email, email_verified: true });
    const accepted = await accept(tokens.access_token, link);
    expect(accepted.statusCode).toBe(200);
    expect(accepted.json()).toMatchObject({ organizationId: org });

    // A code works once.
    const [after] = await t.ctx.database.db.select().from(idpEmailChallenges).where(eq(idpEmailChallenges.accountId, account!.id));
    expect(after!.usedAt).not.toBeNull();
  });

  it(`a code is void after ${EMAIL_CODE_MAX_ATTEMPTS} wrong tries; a new one replaces the old`, async () => {
    const email = uniqueEmail("guess");
    await invite(email);
    const { flow, response } = await authorize(t.app);
    const page = pathOf(String(response.headers.location), flow.publicUrl);
    const posted = await browse(t.app, flow.jar, "POST", `${page}/signup`, { name: "Gus Guess", email, password: PASSWORD, confirmPassword: PASSWORD });
    const verifyPage = pathOf(String(posted.headers.location), flow.publicUrl);
    const first = await codeFromDevOutbox(t.app, email);
    const wrongCode = first === "999999" ? "999998" : "999999";
    for (let i = 0; i < EMAIL_CODE_MAX_ATTEMPTS; i++) await browse(t.app, flow.jar, "POST", verifyPage, { code: wrongCode });
    // The right code is refused now: it was guessed at too often.
    const spent = await browse(t.app, flow.jar, "POST", verifyPage, { code: first });
    expect(spent.statusCode).toBe(400);
    expect(spent.body).toContain("Send a new code.");

    const resent = await browse(t.app, flow.jar, "POST", `${verifyPage}/resend`);
    expect(resent.statusCode).toBe(200);
    expect(resent.body).toContain("A new code is on its way.");
    const second = await codeFromDevOutbox(t.app, email);
    if (second !== first) expect((await browse(t.app, flow.jar, "POST", verifyPage, { code: first })).statusCode).toBe(401);
    const confirmed = await browse(t.app, flow.jar, "POST", verifyPage, { code: second });
    expect(confirmed.statusCode).toBe(303);
    const [account] = await t.ctx.database.db.select().from(idpAccounts).where(eq(idpAccounts.email, email));
    expect(account!.emailVerifiedAt).not.toBeNull();
  });

  it("a confirmation page of one sign-in cannot be used from another browser", async () => {
    const email = uniqueEmail("cookie");
    await invite(email);
    const { flow, response } = await authorize(t.app);
    const page = pathOf(String(response.headers.location), flow.publicUrl);
    const posted = await browse(t.app, flow.jar, "POST", `${page}/signup`, { name: "Cora Cookie", email, password: PASSWORD, confirmPassword: PASSWORD });
    const verifyPage = pathOf(String(posted.headers.location), flow.publicUrl);
    const code = await codeFromDevOutbox(t.app, email);
    const stranger = await authorize(t.app);
    const refused = await browse(t.app, stranger.flow.jar, "POST", verifyPage, { code });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain("Sign-in expired");
    const skipped = await browse(t.app, stranger.flow.jar, "POST", `${verifyPage}/skip`);
    expect(skipped.statusCode).toBe(400);
  });

  it("the development outbox lists what was sent, and a person signing up unconfirmed can still skip", async () => {
    const email = uniqueEmail("skip");
    await invite(email);
    const { tokens } = await signUpFlow(t.app, { name: "Sid Skip", email, password: PASSWORD }, { emailCode: async () => "skip" });
    expect(decodeJwt(tokens.access_token)).toMatchObject({ email_verified: false });
    const outbox = await t.app.inject({ url: "/oidc/dev/outbox" });
    expect(outbox.statusCode).toBe(200);
    expect(outbox.body).toContain(`To: ${email}`);
    expect(outbox.headers["cache-control"]).toBe("no-store");
  });
});

describeDb("e-mail verification without any way to send mail (production, no SMTP_URL)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ NODE_ENV: "production" });
  });
  afterAll(() => t?.close());

  it("has no development outbox and no forgotten-password link; an invited sign-up is not held on a page it cannot pass", async () => {
    expect((await t.app.inject({ url: "/oidc/dev/outbox" })).statusCode).not.toBe(200);
    const { flow, response } = await authorize(t.app);
    const page = pathOf(String(response.headers.location), flow.publicUrl);
    const signInPage = await browse(t.app, flow.jar, "GET", page);
    expect(signInPage.body).not.toContain("Forgot your password?");
    const forgot = await t.app.inject({ url: "/oidc/password/forgot" });
    expect(forgot.statusCode).toBe(503);
    expect(forgot.body).toContain("This Toolbox server sends no e-mail");

    const tokens = await tokenFactory(t.ctx);
    const admin = newPerson("Prod Admin");
    const org = await firstSignIn(t, tokens, admin);
    const email = uniqueEmail("prod");
    const invited = await t.app.inject({
      method: "POST",
      url: "/api/members/invitations",
      headers: apiHeaders(await tokens.mint(admin), org),
      payload: { email, role: "viewer" },
    });
    expect(invited.statusCode).toBe(201);
    // Straight back to the app, unconfirmed (the helper would throw on the confirmation page).
    const signedUp = await signUp(t.app, { name: "Paula Prod", email, password: PASSWORD });
    expect(decodeJwt(signedUp.access_token)).toMatchObject({ email_verified: false });
  });
});
