/**
 * Two-factor sign-in (TOTP) with the embedded provider, through the real server: enrolment over
 * the API with codes computed by the `otpauth` library, the second step of a real sign-in through
 * the provider's pages, `amr` in the tokens and in the API's view of the caller, codes that cannot
 * be used twice, the per-person lockout (growing when repeated, audited, e-mailed), turning it
 * off, the sign-in's audit records (written when it completes), and an administrator's reset
 * (the member enrols again at the next sign-in; audited and notified in each of their
 * organizations, e-mailed, and 404 from another organization). Secrets are never stored in clear.
 */
import { and, eq, sql } from "drizzle-orm";
import { createLocalJWKSet, decodeJwt, type JSONWebKeySet } from "jose";
import { Secret, TOTP } from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, idpRecoveryCodes, idpTwoFactor } from "../../server/db/schema.ts";
import { createTokenVerifier } from "../../server/http/auth/tokens.ts";
import { secretCipherOf } from "../../server/secrets/context.ts";
import { LOCKOUT_BASE_SECONDS, MAX_FAILED_ATTEMPTS, RECOVERY_CODE_COUNT } from "../../server/idp/twoFactor.ts";
import { describeDb, theOnly } from "../helpers/db.ts";
import { authorize, browse, exchangeCode, followToCallback, pathOf, signUp as signUpThroughPages, type TokenSet } from "../helpers/oidcFlow.ts";
import { startSmtpServer, type TestSmtpServer } from "../helpers/smtp.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory } from "../helpers/tokens.ts";
import { addMember } from "./support/fixtures.ts";
import { waitFor } from "./platformsHarness.ts";

const PASSWORD = "lantern-orchid-basalt-42";
const STEP_MS = 30_000;

/** A code of the secret for the step `offset` steps from now (the server accepts -1, 0 and +1). */
const codeAt = (secret: string, offset = 0) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + offset * STEP_MS });

/** Waits for a fresh 30-second step when the current one is nearly over, so codes stay in the window while a test uses them. */
async function freshStep(marginMs = 8_000) {
  const left = TOTP.remaining({ period: 30 });
  if (left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 100));
}

interface Someone {
  email: string;
  name: string;
  sub: string;
  tokens: TokenSet;
  headers: Record<string, string>;
  organizationId: string;
}

describeDb("two-factor sign-in (TOTP) with the embedded provider", () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let n = 0;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await createTestApp({ SMTP_URL: smtp.url, SMTP_FROM: "Toolbox <toolbox@example.test>" });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  /** A person with a real account: signs up through the provider's pages, then the app's preflight. */
  async function someone(name: string): Promise<Someone> {
    const email = `tf-${Date.now().toString(36)}-${n++}@example.test`;
    const tokens = await signUpThroughPages(t.app, { name, email, password: PASSWORD });
    const preflight = await t.app.inject({ url: "/api/profile/preflight", headers: apiHeaders(tokens.access_token) });
    expect(preflight.statusCode).toBe(200);
    const organizationId = preflight.json().createdOrganizationId as string;
    return { email, name, sub: decodeJwt(tokens.access_token).sub!, tokens, headers: apiHeaders(tokens.access_token, organizationId), organizationId };
  }

  const call = (who: { headers: Record<string, string> }, method: "GET" | "POST" | "DELETE", url: string, payload?: object) =>
    t.app.inject({ method, url, headers: who.headers, ...(payload ? { payload } : {}) });

  /** Enrols over the API; the code confirming it is the previous step's, so the current and next are left for sign-ins. */
  async function enrol(who: Someone): Promise<{ secret: string; recoveryCodes: string[] }> {
    await freshStep();
    const started = await call(who, "POST", "/api/profile/two-factor/enrolment");
    expect(started.statusCode).toBe(200);
    const { secret } = started.json();
    const confirmed = await call(who, "POST", "/api/profile/two-factor/enrolment/confirm", { code: codeAt(secret, -1) });
    expect(confirmed.statusCode).toBe(200);
    return { secret, recoveryCodes: confirmed.json().recoveryCodes };
  }

  /** A sign-in through the provider's pages up to the password: where it leads (a 303). */
  async function passwordStep(email: string) {
    const { flow, response } = await authorize(t.app);
    const page = pathOf(String(response.headers.location), flow.publicUrl);
    await browse(t.app, flow.jar, "GET", page);
    const posted = await browse(t.app, flow.jar, "POST", `${page}/login`, { email, password: PASSWORD });
    return { flow, page, posted };
  }

  async function tokensAfter(flow: Awaited<ReturnType<typeof passwordStep>>["flow"], response: Parameters<typeof followToCallback>[2]): Promise<TokenSet> {
    const callback = await followToCallback(t.app, flow, response);
    const exchanged = await exchangeCode(t.app, flow, callback.searchParams.get("code")!);
    expect(exchanged.statusCode).toBe(200);
    return exchanged.json<TokenSet>();
  }

  /** The API's own verifier over the provider's published keys: what the guard makes of a token. */
  async function callerOf(accessToken: string) {
    const jwks = (await t.app.inject({ url: "/oidc/jwks" })).json<JSONWebKeySet>();
    const local = createLocalJWKSet(jwks);
    const verify = createTokenVerifier({
      keys: { getKey: local, issuers: async () => [t.ctx.config.oidc.authority] },
      audience: t.ctx.config.oidc.audience,
    });
    return (await verify(accessToken)).caller;
  }

  describe("one person's enrolment, sign-in and turning it off", () => {
    let ada: Someone;
    let secret: string;
    let recoveryCodes: string[];
    /** The code that confirmed the enrolment (a later test replays exactly it, whatever step it is then). */
    let enrolmentCode: string;

    beforeAll(async () => {
      ada = await someone("Ada Lovelace");
    });

    it("starts off, and a password sign-in says amr [pwd]", async () => {
      const status = await call(ada, "GET", "/api/profile/two-factor");
      expect(status.statusCode).toBe(200);
      expect(status.json()).toEqual({ available: true, enabled: false, enabledAt: null, recoveryCodesLeft: 0 });
      expect(decodeJwt(ada.tokens.access_token).amr).toEqual(["pwd"]);
      expect((await callerOf(ada.tokens.access_token)).amr).toEqual(["pwd"]);
    });

    it("enrols: a secret with its otpauth URI and QR code, confirmed by a current code; wrong codes are a 400", async () => {
      await freshStep();
      const started = await call(ada, "POST", "/api/profile/two-factor/enrolment");
      expect(started.statusCode).toBe(200);
      const body = started.json();
      secret = body.secret;
      expect(secret).toMatch(/^[A-Z2-7]{32}$/);
      expect(body.uri).toMatch(/^otpauth:\/\/totp\/Toolbox:/);
      expect(new URL(body.uri).searchParams.get("secret")).toBe(secret);
      expect(body.qrCode).toMatch(/^data:image\/svg\+xml;base64,/);
      expect(Buffer.from(body.qrCode.split(",")[1], "base64").toString()).toContain("<svg");

      // Not yet on: the password alone still signs in.
      expect((await call(ada, "GET", "/api/profile/two-factor")).json().enabled).toBe(false);

      const other = new Secret({ size: 20 }).base32;
      const wrong = await call(ada, "POST", "/api/profile/two-factor/enrolment/confirm", { code: codeAt(other) });
      expect(wrong.statusCode).toBe(400);
      expect(wrong.json().message).toMatch(/does not match/);
      const malformed = await call(ada, "POST", "/api/profile/two-factor/enrolment/confirm", { code: "12ab" });
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json().message).toMatch(/6-digit/);

      enrolmentCode = codeAt(secret, -1);
      const confirmed = await call(ada, "POST", "/api/profile/two-factor/enrolment/confirm", { code: enrolmentCode });
      expect(confirmed.statusCode).toBe(200);
      recoveryCodes = confirmed.json().recoveryCodes;
      expect(recoveryCodes).toHaveLength(RECOVERY_CODE_COUNT);
      expect(new Set(recoveryCodes).size).toBe(RECOVERY_CODE_COUNT);

      const status = (await call(ada, "GET", "/api/profile/two-factor")).json();
      expect(status).toMatchObject({ available: true, enabled: true, recoveryCodesLeft: RECOVERY_CODE_COUNT });
      expect(Date.parse(status.enabledAt)).toBeGreaterThan(Date.now() - 60_000);

      // On already: a second enrolment is refused until it is turned off.
      expect((await call(ada, "POST", "/api/profile/two-factor/enrolment")).statusCode).toBe(409);
    });

    it("keeps the secret encrypted and the recovery codes hashed", async () => {
      const { db } = t.ctx.database;
      const row = theOnly(await db.select().from(idpTwoFactor).where(eq(idpTwoFactor.accountId, ada.sub)));
      expect(row.secretEncrypted).toMatch(/^v2:/);
      expect(row.secretEncrypted).not.toContain(secret);
      expect(row.pendingSecretEncrypted).toBeNull();
      expect(secretCipherOf(t.ctx).decrypt(row.secretEncrypted!, `idp_two_factor:${ada.sub}`)).toBe(secret);
      const stored = await db.select().from(idpRecoveryCodes).where(eq(idpRecoveryCodes.accountId, ada.sub));
      expect(stored).toHaveLength(RECOVERY_CODE_COUNT);
      const all = JSON.stringify(stored);
      for (const code of recoveryCodes) {
        expect(all).not.toContain(code);
        expect(all).not.toContain(code.replace(/-/g, ""));
      }
    });

    it("asks for a code after the password; wrong and replayed codes are refused; a current one signs in with amr [pwd, otp]", async () => {
      await freshStep();
      const { flow, page, posted } = await passwordStep(ada.email);
      expect(posted.statusCode).toBe(303);
      expect(posted.headers.location).toBe(`${page}/two-factor`);

      const form = await browse(t.app, flow.jar, "GET", `${page}/two-factor`);
      expect(form.statusCode).toBe(200);
      expect(form.body).toContain('<label for="code">Authentication code</label>');
      expect(form.body).toContain('autocomplete="one-time-code"');
      expect(form.body).toContain("recovery code");

      const wrong = await browse(t.app, flow.jar, "POST", `${page}/two-factor`, { code: codeAt(new Secret({ size: 20 }).base32) });
      expect(wrong.statusCode).toBe(401);
      expect(wrong.body).toContain("This code is not correct");
      expect(wrong.body).toContain('aria-invalid="true"');

      // The code that confirmed the enrolment was used already. (Not "the previous step's code": the
      // step may have moved on since the enrolment, and a later step's code would rightly pass.)
      const replayed = await browse(t.app, flow.jar, "POST", `${page}/two-factor`, { code: enrolmentCode });
      expect(replayed.statusCode).toBe(401);

      const empty = await browse(t.app, flow.jar, "POST", `${page}/two-factor`, { code: "" });
      expect(empty.statusCode).toBe(400);

      const ok = await browse(t.app, flow.jar, "POST", `${page}/two-factor`, { code: codeAt(secret, 0) });
      expect(ok.statusCode).toBe(303);
      const tokens = await tokensAfter(flow, ok);
      expect(decodeJwt(tokens.access_token).amr).toEqual(["pwd", "otp"]);
      expect(decodeJwt(tokens.id_token).amr).toEqual(["pwd", "otp"]);
      expect((await callerOf(tokens.access_token)).amr).toEqual(["pwd", "otp"]);

      // A refreshed access token says the same.
      const refreshed = await t.app.inject({
        method: "POST",
        url: "/oidc/token",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams({ grant_type: "refresh_token", client_id: t.ctx.config.oidc.clientId, refresh_token: tokens.refresh_token }).toString(),
      });
      expect(refreshed.statusCode).toBe(200);
      expect(decodeJwt(refreshed.json().access_token).amr).toEqual(["pwd", "otp"]);

      // The same code once more, at another sign-in: refused.
      const again = await passwordStep(ada.email);
      const replay = await browse(t.app, again.flow.jar, "POST", `${again.page}/two-factor`, { code: codeAt(secret, 0) });
      expect(replay.statusCode).toBe(401);
    });

    it("does not finish a sign-in on the password alone: resuming the authorization leads back to a sign-in page", async () => {
      const { flow, page } = await passwordStep(ada.email);
      const resumed = await browse(t.app, flow.jar, "GET", `/oidc/auth/${page.split("/").pop()}`);
      expect(resumed.statusCode).toBe(303);
      const location = String(resumed.headers.location);
      expect(location).not.toContain("code=");
      expect(location).toContain("/oidc/interaction/");
    });

    it("takes a recovery code once instead of the app's code", async () => {
      const [code] = recoveryCodes;
      const first = await passwordStep(ada.email);
      const ok = await browse(t.app, first.flow.jar, "POST", `${first.page}/two-factor`, { code: code!.toLowerCase() });
      expect(ok.statusCode).toBe(303);
      expect(decodeJwt((await tokensAfter(first.flow, ok)).access_token).amr).toEqual(["pwd", "otp"]);
      expect((await call(ada, "GET", "/api/profile/two-factor")).json().recoveryCodesLeft).toBe(RECOVERY_CODE_COUNT - 1);

      const second = await passwordStep(ada.email);
      const reused = await browse(t.app, second.flow.jar, "POST", `${second.page}/two-factor`, { code: code! });
      expect(reused.statusCode).toBe(401);
    });

    it("turns off only with a current code; then the password alone signs in", async () => {
      const wrong = await call(ada, "DELETE", "/api/profile/two-factor", { code: "000000" === codeAt(secret, 1) ? "111111" : "000000" });
      expect(wrong.statusCode).toBe(400);
      const missing = await call(ada, "DELETE", "/api/profile/two-factor", {});
      expect(missing.statusCode).toBe(400);
      // The step of the last code taken at sign-in is used up; only a later one is accepted.
      const { lastUsedStep } = theOnly(await t.ctx.database.db.select().from(idpTwoFactor).where(eq(idpTwoFactor.accountId, ada.sub)));
      const codeOfStep = (step: number) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: step * STEP_MS });
      const used = await call(ada, "DELETE", "/api/profile/two-factor", { code: codeOfStep(lastUsedStep!) });
      expect(used.statusCode).toBe(400);
      const off = await call(ada, "DELETE", "/api/profile/two-factor", { code: codeOfStep(lastUsedStep! + 1) });
      expect(off.statusCode).toBe(204);
      expect((await call(ada, "GET", "/api/profile/two-factor")).json()).toMatchObject({ enabled: false, recoveryCodesLeft: 0 });
      expect(await t.ctx.database.db.select().from(idpRecoveryCodes).where(eq(idpRecoveryCodes.accountId, ada.sub))).toEqual([]);

      const { flow, posted } = await passwordStep(ada.email);
      expect(posted.statusCode).toBe(303);
      expect(decodeJwt((await tokensAfter(flow, posted)).access_token).amr).toEqual(["pwd"]);
    });
  });

  it("has nothing to manage for someone without an account at the embedded provider", async () => {
    const tokens = await tokenFactory(t.ctx);
    const person = newPerson("Eve External");
    const headers = apiHeaders(await tokens.mint(person));
    const status = await t.app.inject({ url: "/api/profile/two-factor", headers });
    expect(status.json()).toEqual({ available: false, enabled: false, enabledAt: null, recoveryCodesLeft: 0 });
    const start = await t.app.inject({ method: "POST", url: "/api/profile/two-factor/enrolment", headers });
    expect(start.statusCode).toBe(409);
    expect(start.json().message).toMatch(/identity provider you sign in with/);
    const confirm = await t.app.inject({ method: "POST", url: "/api/profile/two-factor/enrolment/confirm", headers, payload: { code: "\u0000" } });
    expect(confirm.statusCode).toBe(400);
  });

  it(`locks the second step after ${MAX_FAILED_ATTEMPTS} wrong codes in a row, even for a right code, with a clear message; audited and e-mailed`, async () => {
    const bob = await someone("Bob Babbage");
    const { secret } = await enrol(bob);
    const { flow, page } = await passwordStep(bob.email);
    const wrongCode = codeAt(secret, 0) === "123456" ? "654321" : "123456";
    for (let i = 1; i < MAX_FAILED_ATTEMPTS; i++) {
      expect((await browse(t.app, flow.jar, "POST", `${page}/two-factor`, { code: wrongCode })).statusCode).toBe(401);
    }
    const locked = await browse(t.app, flow.jar, "POST", `${page}/two-factor`, { code: wrongCode });
    expect(locked.statusCode).toBe(429);
    expect(locked.body).toMatch(/Too many wrong codes \(5 in a row\)\. Wait 15 minutes, then try again\./);
    expect(Number(locked.headers["retry-after"])).toBeGreaterThan(LOCKOUT_BASE_SECONDS - 5);
    expect(Number(locked.headers["retry-after"])).toBeLessThanOrEqual(LOCKOUT_BASE_SECONDS);
    const right = await browse(t.app, flow.jar, "POST", `${page}/two-factor`, { code: codeAt(secret, 0) });
    expect(right.statusCode).toBe(429);
    // The API's "turn off" counts against the same lockout.
    const off = await call(bob, "DELETE", "/api/profile/two-factor", { code: codeAt(secret, 1) });
    expect(off.statusCode).toBe(429);
    expect(off.json().message).toMatch(/Too many wrong codes/);

    // The person hears of it by e-mail: what happened, from where, until when; never a code.
    const mail = await smtp.next((m) => JSON.stringify(m.to).includes(bob.email) && /locked/.test(m.subject ?? ""));
    expect(mail.subject).toBe("Your Toolbox two-factor sign-in is locked for 15 minutes");
    expect(mail.text).toContain("127.0.0.1");
    expect(mail.text).toContain("someone knows your password");
    expect(mail.text).not.toContain(wrongCode);
    expect(mail.text).not.toContain(PASSWORD);
    expect(mail.text).not.toContain(secret);

    // Audited in the person's organization: each refused code, and the lockout; no sign-in.
    const actions = (
      await t.ctx.database.db
        .select({ action: auditEvents.action, after: auditEvents.after })
        .from(auditEvents)
        .where(and(eq(auditEvents.organizationId, bob.organizationId), eq(auditEvents.targetId, bob.sub)))
        .orderBy(auditEvents.at, auditEvents.id)
    ).filter((r) => r.action.startsWith("session."));
    // The sign-up's own sign-in precedes the organization; the password step above wrote nothing.
    expect(actions.filter((r) => r.action === "session.signedIn")).toEqual([]);
    expect(actions.filter((r) => r.action === "session.secondFactorFailed")).toHaveLength(MAX_FAILED_ATTEMPTS + 2);
    const lockouts = actions.filter((r) => r.action === "session.lockedOut");
    expect(lockouts).toHaveLength(1);
    expect(lockouts[0]!.after).toMatchObject({ email: bob.email, lockoutsInARow: 1, where: "signIn" });
  });

  it("makes a lockout that follows another within a day twice as long, up to a day; a right code starts the count again", async () => {
    const cleo = await someone("Cleo Counter");
    const { secret } = await enrol(cleo);
    const { db } = t.ctx.database;
    const row = async () => theOnly(await db.select().from(idpTwoFactor).where(eq(idpTwoFactor.accountId, cleo.sub)));
    /** The lockout ends now, as if its time had passed (it ended `agoSeconds` ago). */
    const expire = (agoSeconds = 1) =>
      db
        .update(idpTwoFactor)
        .set({ lockedUntil: sql`now() - make_interval(secs => ${agoSeconds})` })
        .where(eq(idpTwoFactor.accountId, cleo.sub));
    const wrongCode = () => (codeAt(secret, 0) === "123456" || codeAt(secret, 1) === "123456" ? "654321" : "123456");
    // The count of wrong codes up to a lockout is the test above's; here each lockout takes the last wrong code only.
    const lockOnce = async () => {
      await db
        .update(idpTwoFactor)
        .set({ failedAttempts: MAX_FAILED_ATTEMPTS - 1 })
        .where(eq(idpTwoFactor.accountId, cleo.sub));
      const { flow, page } = await passwordStep(cleo.email);
      const last = await browse(t.app, flow.jar, "POST", `${page}/two-factor`, { code: wrongCode() });
      expect(last.statusCode).toBe(429);
      return { seconds: Number(last.headers["retry-after"]), body: last.body };
    };

    expect((await lockOnce()).seconds).toBeGreaterThan(LOCKOUT_BASE_SECONDS - 5);
    await expire();
    const second = await lockOnce();
    expect(second.seconds).toBeGreaterThan(2 * LOCKOUT_BASE_SECONDS - 5);
    expect(second.seconds).toBeLessThanOrEqual(2 * LOCKOUT_BASE_SECONDS);
    expect(second.body).toContain("Wait 30 minutes");
    await expire();
    expect((await lockOnce()).seconds).toBeGreaterThan(4 * LOCKOUT_BASE_SECONDS - 5);
    expect((await row()).lockouts).toBe(3);
    // Kept in the database (another node, or a restart, sees the same count): up to a day at most.
    await db
      .update(idpTwoFactor)
      .set({ lockouts: 20, lockedUntil: sql`now() - interval '1 second'` })
      .where(eq(idpTwoFactor.accountId, cleo.sub));
    const capped = await lockOnce();
    expect(capped.seconds).toBeLessThanOrEqual(24 * 3600);
    expect(capped.seconds).toBeGreaterThan(24 * 3600 - 5);
    expect(capped.body).toContain("Wait 24 hours");
    const mail = await smtp.next((m) => JSON.stringify(m.to).includes(cleo.email) && /24 hours/.test(m.subject ?? ""));
    expect(mail.text).toContain("lockout number 21 in a row");

    // A lockout more than a day after the previous one ended starts again at the first length.
    await expire(24 * 3600 + 60);
    expect((await lockOnce()).seconds).toBeLessThanOrEqual(LOCKOUT_BASE_SECONDS);
    expect((await row()).lockouts).toBe(1);

    // A right code (once the lockout is over) sets the count back to 0.
    await expire();
    await freshStep();
    const { flow, page } = await passwordStep(cleo.email);
    const ok = await browse(t.app, flow.jar, "POST", `${page}/two-factor`, { code: codeAt(secret, 0) });
    expect(ok.statusCode).toBe(303);
    expect(await row()).toMatchObject({ lockouts: 0, failedAttempts: 0, lockedUntil: null });
  });

  it("audits a sign-in with two-factor when it completes, with how; a password alone is not a sign-in", async () => {
    const dora = await someone("Dora Audit");
    const { secret } = await enrol(dora);
    const { db } = t.ctx.database;
    const sessionRecords = async () =>
      (
        await db
          .select({ action: auditEvents.action, after: auditEvents.after, sourceIp: auditEvents.sourceIp })
          .from(auditEvents)
          .where(and(eq(auditEvents.organizationId, dora.organizationId), eq(auditEvents.targetId, dora.sub)))
          .orderBy(auditEvents.at, auditEvents.id)
      ).filter((r) => r.action.startsWith("session."));
    const before = (await sessionRecords()).length;

    await freshStep();
    const { flow, page, posted } = await passwordStep(dora.email);
    expect(posted.headers.location).toBe(`${page}/two-factor`);
    expect((await sessionRecords()).slice(before)).toEqual([]);

    const wrong = await browse(t.app, flow.jar, "POST", `${page}/two-factor`, { code: codeAt(secret, 0) === "000000" ? "111111" : "000000" });
    expect(wrong.statusCode).toBe(401);
    const ok = await browse(t.app, flow.jar, "POST", `${page}/two-factor`, { code: codeAt(secret, 0) });
    expect(ok.statusCode).toBe(303);
    expect((await sessionRecords()).slice(before)).toEqual([
      { action: "session.secondFactorFailed", after: { email: dora.email, reason: "wrong" }, sourceIp: "127.0.0.1" },
      { action: "session.signedIn", after: { email: dora.email, secondFactor: "totp" }, sourceIp: "127.0.0.1" },
    ]);
  });

  it("an administrator's reset ends the member's sign-ins and makes them enrol again at the next one; audited and notified in each of their organizations, e-mailed; another organization gets 404", async () => {
    const admin = await someone("Grace Admin");
    const member = await someone("Carl Member");
    const outsider = await someone("Olga Outsider");
    // Carl administers his own organization and is a member of Grace's.
    await addMember(t.ctx, admin.organizationId, { sub: member.sub, email: member.email, name: member.name });
    await enrol(member);
    const { db } = t.ctx.database;

    const url = `/api/members/${member.sub}/two-factor/reset`;
    const fromOutside = await call(outsider, "POST", url);
    expect(fromOutside.statusCode).toBe(404);
    expect((await call(member, "GET", "/api/profile/two-factor")).json().enabled).toBe(true);

    // A member without the members permission is refused by the guard.
    const byMember = await t.app.inject({ method: "POST", url, headers: apiHeaders(member.tokens.access_token, admin.organizationId) });
    expect(byMember.statusCode).toBe(403);

    const reset = await call(admin, "POST", url);
    expect(reset.statusCode).toBe(204);
    // Every sign-in of Carl's ended with it (the lost device may be signed in): his token is refused at once.
    const ended = await call(member, "GET", "/api/profile/two-factor");
    expect(ended.statusCode).toBe(401);
    expect(ended.json().message).toMatch(/sign-in has ended/);
    expect(await db.select().from(idpRecoveryCodes).where(eq(idpRecoveryCodes.accountId, member.sub))).toEqual([]);
    expect(theOnly(await db.select().from(idpTwoFactor).where(eq(idpTwoFactor.accountId, member.sub))).enrolmentRequiredAt).not.toBeNull();

    // Audited in both of Carl's organizations, by Grace, saying which organization reset it.
    for (const organizationId of [admin.organizationId, member.organizationId]) {
      const audit = await db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.organizationId, organizationId), eq(auditEvents.action, "member.twoFactorReset")));
      expect(audit).toHaveLength(1);
      expect(audit[0]).toMatchObject({
        actorSub: admin.sub,
        targetType: "member",
        targetId: member.sub,
        before: { twoFactor: true },
        after: { twoFactor: false, enrolAtNextSignIn: true, byOrganization: { id: admin.organizationId } },
      });
    }
    // The administrators of each organization have it in their inbox: Grace here, Carl in his own.
    const noticeOf = async (who: Someone) => {
      const inbox = await call(who, "GET", "/api/inbox?type=memberTwoFactorReset");
      expect(inbox.statusCode, inbox.body).toBe(200);
      return inbox.json().items[0] as { title: string; body: string; severity: string } | undefined;
    };
    const expectNotice = async (who: Someone) => {
      const notice = await waitFor(() => noticeOf(who), `the reset notice for ${who.name}`);
      expect(notice.title).toBe("Carl Member's two-factor sign-in was reset");
      expect(notice.body).toContain("Grace Admin of ");
      expect(notice.severity).toBe("warning");
    };
    await expectNotice(admin);

    const mail = await smtp.next((m) => JSON.stringify(m.to).includes(member.email) && /reset/.test(m.subject ?? ""));
    expect(mail.subject).toBe("Your Toolbox two-factor sign-in was reset");
    expect(mail.text).toContain("set up your authenticator app again");

    // Nothing more to reset until Carl enrols: a clear 409; a stranger's id: 404.
    const again = await call(admin, "POST", url);
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toMatch(/reset already/);
    expect((await call(admin, "POST", `/api/members/${outsider.sub}/two-factor/reset`)).statusCode).toBe(404);

    // The password alone does not sign Carl in: it leads to setting up a new device, and resuming
    // the authorization from there gives no code.
    const skipping = await passwordStep(member.email);
    const resumed = await browse(t.app, skipping.flow.jar, "GET", `/oidc/auth/${skipping.page.split("/").pop()}`);
    expect(resumed.statusCode).toBe(303);
    expect(String(resumed.headers.location)).not.toContain("code=");
    expect(String(resumed.headers.location)).toContain("/oidc/interaction/");
    await freshStep();
    const { flow, page, posted } = await passwordStep(member.email);
    expect(posted.statusCode).toBe(303);
    expect(posted.headers.location).toBe(`${page}/two-factor/enrol`);
    expect((await browse(t.app, flow.jar, "GET", `${page}/two-factor`)).headers.location).toBe(`${page}/two-factor/enrol`);

    const form = await browse(t.app, flow.jar, "GET", `${page}/two-factor/enrol`);
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('src="data:image/svg+xml;base64,');
    const secret = /<code id="secret">([A-Z2-7 ]+)<\/code>/.exec(form.body)?.[1]?.replace(/ /g, "");
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    // A reload shows the same secret (it may be scanned already).
    expect((await browse(t.app, flow.jar, "GET", `${page}/two-factor/enrol`)).body).toContain(`<code id="secret">`);
    expect((await browse(t.app, flow.jar, "GET", `${page}/two-factor/enrol`)).body).toContain(secret!.slice(0, 4));

    const wrong = await browse(t.app, flow.jar, "POST", `${page}/two-factor/enrol`, { code: codeAt(new Secret({ size: 20 }).base32) });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain("This code does not match");
    const enrolled = await browse(t.app, flow.jar, "POST", `${page}/two-factor/enrol`, { code: codeAt(secret!, 0) });
    expect(enrolled.statusCode).toBe(200);
    const codes = [...enrolled.body.matchAll(/<li>([A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4})<\/li>/g)].map((m) => m[1]);
    expect(codes).toHaveLength(RECOVERY_CODE_COUNT);
    const continueUrl = /<a class="button" href="([^"]+)">Continue to Toolbox<\/a>/.exec(enrolled.body)?.[1]?.replace(/&amp;/g, "&");
    expect(continueUrl).toBeDefined();
    const resumedAfter = await browse(t.app, flow.jar, "GET", pathOf(continueUrl!, flow.publicUrl));
    const tokens = await tokensAfter(flow, resumedAfter);
    expect(decodeJwt(tokens.access_token).amr).toEqual(["pwd", "otp"]);
    const signedInAgain = { ...member, tokens, headers: apiHeaders(tokens.access_token, member.organizationId) };
    expect((await call(signedInAgain, "GET", "/api/profile/two-factor")).json()).toMatchObject({ enabled: true, recoveryCodesLeft: RECOVERY_CODE_COUNT });
    // Carl administers his own organization: the notice waits in his inbox.
    await expectNotice(signedInAgain);
    expect(theOnly(await db.select().from(idpTwoFactor).where(eq(idpTwoFactor.accountId, member.sub))).enrolmentRequiredAt).toBeNull();

    // That sign-in is recorded in both organizations, once it completed.
    for (const organizationId of [admin.organizationId, member.organizationId]) {
      const signIns = await db
        .select({ after: auditEvents.after })
        .from(auditEvents)
        .where(and(eq(auditEvents.organizationId, organizationId), eq(auditEvents.action, "session.signedIn"), eq(auditEvents.targetId, member.sub)));
      expect(signIns).toEqual([{ after: { email: member.email, secondFactor: "enrolled" } }]);
    }
  });
});
