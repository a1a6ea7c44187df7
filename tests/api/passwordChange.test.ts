/**
 * Changing and resetting a password at the embedded provider (docs/security.md "Password change
 * and reset"): the sign-up rules apply; afterwards every session of the person has ended — their
 * provider sessions, refresh tokens and API access, on every sign-in, at once.
 */
import { and, eq } from "drizzle-orm";
import { decodeJwt } from "jose";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, expect, it } from "vitest";
import { auditEvents, idpAccounts } from "../../server/db/schema.ts";
import { describeDb } from "../helpers/db.ts";
import { authorize, browse, pathOf, refreshTokens, signIn, signInFlow, signUp, type SignedIn } from "../helpers/oidcFlow.ts";
import { resetLinkIn, startSmtpServer, type TestSmtpServer } from "../helpers/smtp.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders } from "../helpers/tokens.ts";

const PASSWORD = "cobalt-thistle-wren-64";
const NEW_PASSWORD = "amber-fjord-lantern-28";
let seq = 0;
const uniqueEmail = (label: string) => `${label}-${Date.now().toString(36)}-${seq++}@example.test`;

const ended = "This sign-in has ended (signed out or revoked). Sign in again.";

/** A person with two sign-ins (two browsers), and their organization. */
async function personWithTwoSessions(app: FastifyInstance, label: string) {
  const email = uniqueEmail(label);
  await signUp(app, { name: "Sam Sessions", email, password: PASSWORD });
  const first = await signInFlow(app, { email, password: PASSWORD });
  const second = await signInFlow(app, { email, password: PASSWORD });
  const org = (await app.inject({ url: "/api/profile/preflight", headers: apiHeaders(first.tokens.access_token) })).json().createdOrganizationId as string;
  return { email, first, second, org };
}

/** Every way this sign-in could go on is closed: its access token, its refresh token and its provider session. */
async function expectSessionEnded(app: FastifyInstance, session: SignedIn) {
  const api = await app.inject({ url: "/api/organizations", headers: apiHeaders(session.tokens.access_token) });
  expect(api.statusCode).toBe(401);
  expect(api.json().message).toBe(ended);
  const refresh = await refreshTokens(app, session.tokens.refresh_token);
  expect(refresh.statusCode).toBe(400);
  expect(refresh.json().error).toBe("invalid_grant");
  // The browser's provider cookie no longer signs in: the provider shows its sign-in page again.
  const { response } = await authorize(app, { jar: session.flow.jar });
  expect(String(response.headers.location)).toContain("/oidc/interaction/");
}

describeDb("password change and reset", () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  const logs: string[] = [];
  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await createTestApp({ SMTP_URL: smtp.url }, { logs });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  const change = (accessToken: string, body: object) =>
    t.app.inject({ method: "POST", url: "/api/profile/password", headers: apiHeaders(accessToken), payload: body });

  it("changing needs the current password and the sign-up rules; then every session of the person ends", async () => {
    const { email, first, second, org } = await personWithTwoSessions(t.app, "change");
    const token = first.tokens.access_token;

    const wrong = await change(token, { currentPassword: "not-my-password-1", newPassword: NEW_PASSWORD });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().message).toBe("Your current password is not correct.");
    for (const [newPassword, message] of [
      ["short", "The new password is refused: Use at least 10 characters."],
      ["Password123", "The new password is refused: This is one of the most common passwords"],
      [email.toUpperCase(), "The new password is refused: Your password must not be your email address."],
    ] as const) {
      const refused = await change(token, { currentPassword: PASSWORD, newPassword });
      expect(refused.statusCode, newPassword).toBe(400);
      expect(refused.json().message).toContain(message);
    }
    // Nothing changed so far: both sign-ins work.
    expect((await t.app.inject({ url: "/api/organizations", headers: apiHeaders(second.tokens.access_token) })).statusCode).toBe(200);

    const changed = await change(token, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(changed.statusCode).toBe(204);
    await expectSessionEnded(t.app, first);
    await expectSessionEnded(t.app, second);

    await expect(signIn(t.app, { email, password: PASSWORD })).rejects.toThrow(/sign-in answered 401/);
    const again = await signIn(t.app, { email, password: NEW_PASSWORD });
    expect((await t.app.inject({ url: "/api/organizations", headers: apiHeaders(again.access_token) })).statusCode).toBe(200);

    const audit = await t.ctx.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.organizationId, org), eq(auditEvents.action, "person.passwordChanged")));
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit)).not.toContain(NEW_PASSWORD);
  });

  it("a reset link by e-mail sets a new password once, confirms the address and ends every session", async () => {
    const { email, first, second } = await personWithTwoSessions(t.app, "reset");
    const forgot = await t.app.inject({ url: "/oidc/password/forgot" });
    expect(forgot.statusCode).toBe(200);
    expect(forgot.headers["content-security-policy"]).toContain("default-src 'none'");

    const count = smtp.received.length;
    const asked = await t.app.inject({
      method: "POST",
      url: "/oidc/password/forgot",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ email: email.toUpperCase() }).toString(),
    });
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toContain("If a Toolbox account uses");
    const mail = await smtp.next((m, i = smtp.received.indexOf(m)) => i >= count && JSON.stringify(m.to).includes(email));
    expect(mail.subject).toBe("Reset your Toolbox password");
    const link = new URL(resetLinkIn(mail.text));
    expect(link.origin).toBe("http://localhost:3000");
    const resetPage = `${link.pathname}${link.search}`;

    const form = await t.app.inject({ url: resetPage });
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain("Choose a new password");
    const token = link.searchParams.get("token")!;
    const post = (fields: Record<string, string>) =>
      t.app.inject({
        method: "POST",
        url: "/oidc/password/reset",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams({ token, ...fields }).toString(),
      });

    // The sign-up rules, on the page.
    const common = await post({ password: "Password123", confirmPassword: "Password123" });
    expect(common.statusCode).toBe(400);
    expect(common.body).toContain("This is one of the most common passwords");
    const mismatch = await post({ password: NEW_PASSWORD, confirmPassword: `${NEW_PASSWORD}x` });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.body).toContain("The passwords do not match.");
    // Both sessions still work until the reset is done.
    expect((await t.app.inject({ url: "/api/organizations", headers: apiHeaders(first.tokens.access_token) })).statusCode).toBe(200);

    const done = await post({ password: NEW_PASSWORD, confirmPassword: NEW_PASSWORD });
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain("Your password is changed");
    await expectSessionEnded(t.app, first);
    await expectSessionEnded(t.app, second);

    // The token never reaches the log (query values are redacted), nor do the passwords.
    const logged = logs.join("\n");
    expect(logged).toContain("/oidc/password/reset?token=[Redacted]");
    for (const secret of [token, NEW_PASSWORD, PASSWORD]) expect(logged).not.toContain(secret);

    // Once only.
    const replay = await post({ password: "another-fresh-password-5", confirmPassword: "another-fresh-password-5" });
    expect(replay.statusCode).toBe(400);
    expect(replay.body).toContain("This link no longer works");
    expect((await t.app.inject({ url: resetPage })).statusCode).toBe(400);

    await expect(signIn(t.app, { email, password: PASSWORD })).rejects.toThrow(/sign-in answered 401/);
    const again = await signIn(t.app, { email, password: NEW_PASSWORD });
    // The link reached the person at this address: it is confirmed.
    expect(decodeJwt(again.access_token)).toMatchObject({ email, email_verified: true });
  });

  it("asking for an address no account has answers the same and sends nothing", async () => {
    const email = uniqueEmail("nobody");
    const count = smtp.received.length;
    const asked = await t.app.inject({
      method: "POST",
      url: "/oidc/password/forgot",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ email }).toString(),
    });
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toContain("If a Toolbox account uses");
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.received.slice(count).some((m) => JSON.stringify(m.to).includes(email))).toBe(false);
    // A made-up token opens nothing.
    const made = await t.app.inject({ url: `/oidc/password/reset?token=${"A".repeat(43)}` });
    expect(made.statusCode).toBe(400);
    const [none] = await t.ctx.database.db.select().from(idpAccounts).where(eq(idpAccounts.email, email));
    expect(none).toBeUndefined();
  });

  it("the sign-in page offers the reset", async () => {
    const { flow, response } = await authorize(t.app);
    const page = await browse(t.app, flow.jar, "GET", pathOf(String(response.headers.location), flow.publicUrl));
    expect(page.body).toContain('href="/oidc/password/forgot"');
  });
});
