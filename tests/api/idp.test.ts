import crypto from "node:crypto";
import { and, eq } from "drizzle-orm";
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_AUDIENCE, API_SCOPE, loadConfig } from "../../server/config.ts";
import { buildApp } from "../../server/http/app.ts";
import { idpAccounts, memberClaims, organizations, users } from "../../server/db/schema.ts";
import { createAccount } from "../../server/idp/people.ts";
import { DEMO_EMAIL, DEMO_ORGANIZATION, seedDemo } from "../../server/seed.ts";
import { describeDb, theOnly } from "../helpers/db.ts";
import { authorize, browse, CookieJar, exchangeCode, followToCallback, pathOf, refreshTokens, signIn, signUp } from "../helpers/oidcFlow.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";

const ISSUER = "http://localhost:3000/oidc";
const CLIENT_ID = "toolbox-web";
const PASSWORD = "correct horse battery";
let seq = 0;
const uniqueEmail = (label: string) => `${label}-${Date.now().toString(36)}-${seq++}@example.test`;

async function jwksOf(t: TestApp) {
  const res = await t.app.inject({ url: "/oidc/jwks" });
  expect(res.statusCode).toBe(200);
  return res.json<JSONWebKeySet>();
}

describeDb("embedded OpenID Connect provider", () => {
  let t: TestApp;
  let keys: ReturnType<typeof createLocalJWKSet>;

  beforeAll(async () => {
    t = await createTestApp();
    keys = createLocalJWKSet(await jwksOf(t));
  });
  afterAll(() => t?.close());

  const newAccount = async (label: string) => {
    const email = uniqueEmail(label);
    const account = await createAccount(t.ctx.database.db, { email, name: `${label} Person`, password: PASSWORD });
    return { ...account, password: PASSWORD };
  };

  describe("discovery", () => {
    it("publishes the issuer under /oidc with S256 as the only PKCE method", async () => {
      const res = await t.app.inject({ url: "/oidc/.well-known/openid-configuration" });
      expect(res.statusCode).toBe(200);
      expect(res.headers["content-type"]).toMatch(/application\/json/);
      const doc = res.json();
      expect(doc.issuer).toBe(ISSUER);
      expect(doc.code_challenge_methods_supported).toEqual(["S256"]);
      expect(doc.response_types_supported).toEqual(["code"]);
      expect(doc.authorization_endpoint).toBe(`${ISSUER}/auth`);
      expect(doc.token_endpoint).toBe(`${ISSUER}/token`);
      expect(doc.jwks_uri).toBe(`${ISSUER}/jwks`);
      expect(doc.end_session_endpoint).toBe(`${ISSUER}/session/end`);
      expect(doc.revocation_endpoint).toBe(`${ISSUER}/token/revocation`);
      // none: the web app (public, PKCE); client_secret_basic: organizations' API clients (decision 0050).
      expect(doc.token_endpoint_auth_methods_supported).toEqual(["none", "client_secret_basic"]);
      expect(doc.grant_types_supported).toEqual(expect.arrayContaining(["authorization_code", "refresh_token", "client_credentials"]));
    });

    it("builds its URLs from PUBLIC_URL whatever Host the request names", async () => {
      const res = await t.app.inject({ url: "/oidc/.well-known/openid-configuration", headers: { host: "evil.example" } });
      expect(res.json().authorization_endpoint).toBe(`${ISSUER}/auth`);
    });

    it("makes /api/health report the provider up", async () => {
      const res = await t.app.inject({ url: "/api/health" });
      expect(res.json().dependencies.identityProvider.state).toBe("up");
    });
  });

  describe("authorization code flow with PKCE", () => {
    it("signs in through the sign-in page and issues an RS256 JWT access token for the API and an ID token", async () => {
      const person = await newAccount("flow");
      const { flow, response } = await authorize(t.app);
      expect(response.statusCode).toBe(303);
      const pagePath = pathOf(String(response.headers.location), flow.publicUrl);
      expect(pagePath).toMatch(/^\/oidc\/interaction\/[\w-]+$/);

      const page = await browse(t.app, flow.jar, "GET", pagePath);
      expect(page.statusCode).toBe(200);
      expect(page.headers["content-type"]).toMatch(/text\/html/);
      const csp = String(page.headers["content-security-policy"]);
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(page.body).toContain("Sign in to Toolbox");
      expect(page.body).toContain('autocomplete="username"');
      expect(page.body).toContain('autocomplete="current-password"');
      expect(page.body).toContain(`action="${pagePath}/login"`);
      expect(page.body).toContain(`href="${pagePath}/signup"`);

      const posted = await browse(t.app, flow.jar, "POST", `${pagePath}/login`, { email: person.email.toUpperCase(), password: person.password });
      expect(posted.statusCode).toBe(303);
      const callback = await followToCallback(t.app, flow, posted);
      expect(callback.origin + callback.pathname).toBe("http://localhost:3000/auth-callback");
      expect(callback.searchParams.get("state")).toBe(flow.state);
      expect(callback.searchParams.get("iss")).toBe(ISSUER);
      const code = callback.searchParams.get("code")!;
      expect(code).toBeTruthy();

      const tokenRes = await exchangeCode(t.app, flow, code);
      expect(tokenRes.statusCode).toBe(200);
      const tokens = tokenRes.json();
      expect(tokens.token_type).toBe("Bearer");
      expect(tokens.expires_in).toBeGreaterThan(590);
      expect(tokens.expires_in).toBeLessThanOrEqual(600);
      expect(tokens.refresh_token).toBeTruthy();

      const access = await jwtVerify(tokens.access_token, keys, { issuer: ISSUER, audience: API_AUDIENCE, algorithms: ["RS256"] });
      expect(access.protectedHeader.alg).toBe("RS256");
      expect(access.protectedHeader.typ).toBe("at+jwt");
      expect(access.payload.sub).toBe(person.id);
      expect(String(access.payload.scope).split(" ")).toContain(API_SCOPE);
      expect(access.payload.client_id).toBe(CLIENT_ID);
      expect(access.payload.email).toBe(person.email);
      expect(access.payload.name).toBe(person.name);
      expect(access.payload.exp! - access.payload.iat!).toBe(600);

      const id = await jwtVerify(tokens.id_token, keys, { issuer: ISSUER, audience: CLIENT_ID });
      expect(id.protectedHeader.alg).toBe("RS256");
      expect(id.payload.sub).toBe(person.id);
      expect(id.payload.nonce).toBe(flow.nonce);
      expect(id.payload.email).toBe(person.email);
      expect(id.payload.name).toBe(person.name);
      // at_hash is optional in the code flow and oidc-provider omits it at the token endpoint.
      expect(id.payload.at_hash).toBeUndefined();
      expect(id.payload.exp! - id.payload.iat!).toBe(3600);

      // The code is single-use.
      const again = await exchangeCode(t.app, flow, code);
      expect(again.statusCode).toBe(400);
      expect(again.json().error).toBe("invalid_grant");
    });

    it("signs in again without the page while the provider session lasts (silent renew)", async () => {
      const person = await newAccount("silent");
      const jar = new CookieJar();
      await signIn(t.app, person, { jar });
      const { flow, response } = await authorize(t.app, { jar, redirectUri: "http://localhost:3000/silent-renew", extra: { prompt: "none" } });
      const callback = await followToCallback(t.app, flow, response);
      expect(callback.pathname).toBe("/silent-renew");
      expect(callback.searchParams.get("code")).toBeTruthy();
    });

    it("grants consent by itself when a client forces the consent prompt (first-party client)", async () => {
      const person = await newAccount("consent");
      const jar = new CookieJar();
      await signIn(t.app, person, { jar });
      const { flow, response } = await authorize(t.app, { jar, scope: "openid profile email offline_access toolbox.api", extra: { prompt: "consent" } });
      expect(String(response.headers.location)).toMatch(/\/oidc\/interaction\//);
      const callback = await followToCallback(t.app, flow, response);
      const tokens = (await exchangeCode(t.app, flow, callback.searchParams.get("code")!)).json();
      const access = await jwtVerify(tokens.access_token, keys, { audience: API_AUDIENCE });
      expect(String(access.payload.scope).split(" ")).toContain(API_SCOPE);
      expect(tokens.refresh_token).toBeTruthy();
    });

    it("answers prompt=none without a session with login_required", async () => {
      const { flow, response } = await authorize(t.app, { redirectUri: "http://localhost:3000/silent-renew.html", extra: { prompt: "none" } });
      const callback = await followToCallback(t.app, flow, response);
      expect(callback.searchParams.get("error")).toBe("login_required");
      expect(callback.searchParams.get("code")).toBeNull();
    });

    it("refuses plain PKCE and a request without PKCE", async () => {
      const verifier = crypto.randomBytes(32).toString("base64url");
      for (const opts of [
        { codeChallenge: verifier, codeChallengeMethod: "plain" },
        { codeChallenge: "", codeChallengeMethod: "" },
      ]) {
        const { flow, response } = await authorize(t.app, opts);
        expect(response.statusCode).toBe(303);
        const location = new URL(String(response.headers.location));
        expect(location.origin + location.pathname).toBe(flow.redirectUri);
        expect(location.searchParams.get("error")).toBe("invalid_request");
        expect(location.searchParams.get("code")).toBeNull();
      }
    });

    it("refuses a wrong verifier at the token endpoint", async () => {
      const person = await newAccount("verifier");
      const { flow, response } = await authorize(t.app);
      const pagePath = pathOf(String(response.headers.location), flow.publicUrl);
      const posted = await browse(t.app, flow.jar, "POST", `${pagePath}/login`, { email: person.email, password: person.password });
      const code = (await followToCallback(t.app, flow, posted)).searchParams.get("code")!;
      const res = await exchangeCode(t.app, flow, code, crypto.randomBytes(32).toString("base64url"));
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe("invalid_grant");
    });

    it("refuses unregistered redirect URIs with an error page, never redirecting", async () => {
      for (const redirectUri of ["https://evil.example/auth-callback", "http://localhost:3000/auth-callback/x", "http://localhost:3000/"]) {
        const { response } = await authorize(t.app, { redirectUri });
        expect(response.statusCode).toBe(400);
        expect(response.headers.location).toBeUndefined();
        expect(response.headers["content-type"]).toMatch(/text\/html/);
        expect(response.body).toContain("redirect_uri");
        expect(response.body).not.toMatch(/at \w+ \(|node_modules/);
      }
    });

    it("refuses an unknown client", async () => {
      const res = await t.app.inject({
        url: `/oidc/auth?client_id=someone-else&response_type=code&scope=openid&redirect_uri=${encodeURIComponent("http://localhost:3000/auth-callback")}`,
        headers: { accept: "text/html" },
      });
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain("Sign-in request refused");
    });
  });

  describe("sign-in page", () => {
    it("shows an error for a wrong password or an unknown email, and issues nothing", async () => {
      const person = await newAccount("wrong");
      for (const creds of [
        { email: person.email, password: "not the password" },
        { email: uniqueEmail("nobody"), password: PASSWORD },
      ]) {
        const { flow, response } = await authorize(t.app);
        const pagePath = pathOf(String(response.headers.location), flow.publicUrl);
        const res = await browse(t.app, flow.jar, "POST", `${pagePath}/login`, creds);
        expect(res.statusCode).toBe(401);
        expect(res.headers.location).toBeUndefined();
        expect(res.body).toContain("The email or password is not correct.");
        expect(res.body).toContain(`value="${creds.email}"`);
        expect(res.body).not.toContain(creds.password);
        expect(String(res.headers["set-cookie"] ?? "")).not.toContain("_session=");
        // The authorization request cannot be resumed: no one signed in.
        const resumed = await browse(t.app, flow.jar, "GET", pagePath.replace("/interaction/", "/auth/"));
        expect(String(resumed.headers.location ?? "")).not.toContain("code=");
      }
    });

    it("asks for missing fields inline", async () => {
      const { flow, response } = await authorize(t.app);
      const pagePath = pathOf(String(response.headers.location), flow.publicUrl);
      const res = await browse(t.app, flow.jar, "POST", `${pagePath}/login`, { email: "not-an-email", password: "" });
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain("Enter a valid email address");
      expect(res.body).toContain("Enter your password.");
      expect(res.body).toContain('aria-invalid="true"');
    });

    it("escapes what it shows back", async () => {
      const { flow, response } = await authorize(t.app);
      const pagePath = pathOf(String(response.headers.location), flow.publicUrl);
      const res = await browse(t.app, flow.jar, "POST", `${pagePath}/login`, { email: '"><script>alert(1)</script>', password: "x" });
      expect(res.body).not.toContain("<script>alert(1)</script>");
      expect(res.body).toContain("&quot;&gt;&lt;script&gt;");
    });

    it("continues only the interaction named in the path, whatever the form says", async () => {
      const person = await newAccount("redirect");
      const { flow, response } = await authorize(t.app);
      const pagePath = pathOf(String(response.headers.location), flow.publicUrl);

      const other = await browse(t.app, flow.jar, "GET", "/oidc/interaction/not-this-one");
      expect(other.statusCode).toBe(400);
      expect(other.body).toContain("Sign-in expired");

      const withoutCookie = await browse(t.app, new CookieJar(), "POST", `${pagePath}/login`, { email: person.email, password: person.password });
      expect(withoutCookie.statusCode).toBe(400);

      const posted = await browse(t.app, flow.jar, "POST", `${pagePath}/login`, {
        email: person.email,
        password: person.password,
        returnTo: "https://evil.example/",
        redirect_uri: "https://evil.example/",
      });
      expect(posted.statusCode).toBe(303);
      expect(String(posted.headers.location)).toBe(`${ISSUER}/auth/${pagePath.split("/").pop()}`);
    });

    it("limits sign-in attempts per address across emails too (password spraying)", async () => {
      const { flow, response } = await authorize(t.app);
      const pagePath = pathOf(String(response.headers.location), flow.publicUrl);
      const statuses: number[] = [];
      for (let i = 0; i < 51; i++) {
        const res = await t.app.inject({
          method: "POST",
          url: `${pagePath}/login`,
          remoteAddress: "192.0.2.77",
          headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html", cookie: flow.jar.header(`${pagePath}/login`) ?? "" },
          payload: new URLSearchParams({ email: uniqueEmail(`spray-${i}`), password: "Summer2026!" }).toString(),
        });
        statuses.push(res.statusCode);
      }
      expect(statuses.slice(0, 50).every((s) => s !== 429)).toBe(true);
      expect(statuses[50]).toBe(429);
      // 51 attempts, each hashing a password as a real one would (so an unknown e-mail answers as
      // slowly as a known one): 12–14 s here, close to half the default timeout.
    }, 60_000);

    it("limits sign-in attempts per address and email with a readable 429 page", async () => {
      const person = await newAccount("limited");
      const { flow, response } = await authorize(t.app);
      const pagePath = pathOf(String(response.headers.location), flow.publicUrl);
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) {
        const res = await browse(t.app, flow.jar, "POST", `${pagePath}/login`, { email: person.email, password: `wrong-${i}` });
        statuses.push(res.statusCode);
        if (res.statusCode === 429) {
          expect(res.headers["content-type"]).toMatch(/text\/html/);
          expect(res.body).toContain("Too many attempts");
          expect(res.headers["retry-after"]).toBeDefined();
        }
      }
      expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
      expect(statuses[10]).toBe(429);
      // Even the right password waits now …
      const blocked = await browse(t.app, flow.jar, "POST", `${pagePath}/login`, { email: person.email, password: person.password });
      expect(blocked.statusCode).toBe(429);
      // … while another email from the same address is not held up.
      const other = await browse(t.app, flow.jar, "POST", `${pagePath}/login`, { email: uniqueEmail("other"), password: "whatever" });
      expect(other.statusCode).toBe(401);
    });
  });

  describe("sign-up page", () => {
    it("creates an account, signs the person in and completes the flow", async () => {
      const email = uniqueEmail("newcomer");
      const tokens = await signUp(t.app, { name: "New Comer", email: `  ${email.toUpperCase()} `, password: "a long enough password" });
      const access = await jwtVerify(tokens.access_token, keys, { issuer: ISSUER, audience: API_AUDIENCE });
      expect(access.payload.email).toBe(email);
      expect(access.payload.name).toBe("New Comer");
      const row = theOnly(await t.ctx.database.db.select().from(idpAccounts).where(eq(idpAccounts.email, email)));
      expect(row.id).toBe(access.payload.sub);
      expect(row.passwordHash).toMatch(/^\$scrypt\$ln=15,r=8,p=1\$/);
      expect(row.passwordHash).not.toContain("a long enough password");
      // And the new account signs in with its password.
      const again = await signIn(t.app, { email, password: "a long enough password" });
      expect((await jwtVerify(again.access_token, keys, { audience: API_AUDIENCE })).payload.sub).toBe(row.id);
    });

    it("shows the sign-up form with its fields", async () => {
      const { flow, response } = await authorize(t.app);
      const pagePath = pathOf(String(response.headers.location), flow.publicUrl);
      const page = await browse(t.app, flow.jar, "GET", `${pagePath}/signup`);
      expect(page.statusCode).toBe(200);
      for (const attr of ['autocomplete="name"', 'autocomplete="email"', 'autocomplete="new-password"', 'for="confirmPassword"']) {
        expect(page.body).toContain(attr);
      }
    });

    it("refuses a duplicate email, a short password and mismatched passwords with clear messages", async () => {
      const existing = await newAccount("dupe");
      const cases = [
        {
          form: { name: "Dupe", email: existing.email.toUpperCase(), password: "another password", confirmPassword: "another password" },
          status: 409,
          text: "An account with this email already exists",
        },
        { form: { name: "Short", email: uniqueEmail("short"), password: "short", confirmPassword: "short" }, status: 400, text: "Use at least 10 characters." },
        {
          form: { name: "Typo", email: uniqueEmail("typo"), password: "first password", confirmPassword: "second password" },
          status: 400,
          text: "The passwords do not match.",
        },
        {
          form: { name: "", email: uniqueEmail("noname"), password: "a good password", confirmPassword: "a good password" },
          status: 400,
          text: "Enter your name.",
        },
      ];
      for (const c of cases) {
        const { flow, response } = await authorize(t.app);
        const pagePath = pathOf(String(response.headers.location), flow.publicUrl);
        const res = await browse(t.app, flow.jar, "POST", `${pagePath}/signup`, c.form);
        expect(res.statusCode).toBe(c.status);
        expect(res.body).toContain(c.text);
        expect(res.headers.location).toBeUndefined();
      }
      const rows = await t.ctx.database.db.select().from(idpAccounts).where(eq(idpAccounts.email, existing.email));
      expect(rows).toHaveLength(1);
    });
  });

  describe("refresh tokens", () => {
    it("rotates on every use, keeps issuing API JWTs, and treats reuse of an old one as theft", async () => {
      const person = await newAccount("refresh");
      const first = await signIn(t.app, person);

      const r1 = await refreshTokens(t.app, first.refresh_token);
      expect(r1.statusCode).toBe(200);
      const second = r1.json();
      expect(second.refresh_token).toBeTruthy();
      expect(second.refresh_token).not.toBe(first.refresh_token);
      const access = await jwtVerify(second.access_token, keys, { issuer: ISSUER, audience: API_AUDIENCE, algorithms: ["RS256"] });
      expect(String(access.payload.scope).split(" ")).toContain(API_SCOPE);
      expect(access.payload.email).toBe(person.email);
      const id = await jwtVerify(second.id_token, keys, { issuer: ISSUER, audience: CLIENT_ID });
      const original = await jwtVerify(first.id_token, keys, { issuer: ISSUER, audience: CLIENT_ID });
      expect(id.payload.sub).toBe(person.id);
      expect(original.payload.auth_time).toEqual(expect.any(Number));
      expect(id.payload.auth_time).toBe(original.payload.auth_time);

      const reused = await refreshTokens(t.app, first.refresh_token);
      expect(reused.statusCode).toBe(400);
      expect(reused.json().error).toBe("invalid_grant");
      // Reuse revokes the whole grant, so the thief's or the victim's newer token dies too.
      const after = await refreshTokens(t.app, second.refresh_token);
      expect(after.statusCode).toBe(400);
    });

    it("can be revoked at the revocation endpoint", async () => {
      const person = await newAccount("revoke");
      const tokens = await signIn(t.app, person);
      const res = await t.app.inject({
        method: "POST",
        url: "/oidc/token/revocation",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams({ client_id: CLIENT_ID, token: tokens.refresh_token, token_type_hint: "refresh_token" }).toString(),
      });
      expect(res.statusCode).toBe(200);
      expect((await refreshTokens(t.app, tokens.refresh_token)).statusCode).toBe(400);
    });
  });

  describe("sign-out", () => {
    it("signs out without an extra click and returns to the registered address", async () => {
      const person = await newAccount("logout");
      const jar = new CookieJar();
      const tokens = await signIn(t.app, person, { jar });
      const params = new URLSearchParams({ id_token_hint: tokens.id_token, post_logout_redirect_uri: "http://localhost:3000/", state: "s1" });
      const page = await browse(t.app, jar, "GET", `/oidc/session/end?${params}`);
      expect(page.statusCode).toBe(200);
      const nonce = /<script nonce="([^"]+)">/.exec(page.body)?.[1];
      expect(nonce).toBeTruthy();
      expect(String(page.headers["content-security-policy"])).toContain(`script-src 'nonce-${nonce}'`);
      expect(page.body).toContain('name="logout" value="yes"');
      expect(page.body).toContain(">Sign out</button>");

      const xsrf = /name="xsrf" value="([^"]+)"/.exec(page.body)![1]!;
      const confirmed = await browse(t.app, jar, "POST", "/oidc/session/end/confirm", { xsrf, logout: "yes" });
      expect(confirmed.statusCode).toBe(303);
      expect(confirmed.headers.location).toBe("http://localhost:3000/?state=s1");

      // The provider session is gone: a silent sign-in now needs the person again.
      const { flow, response } = await authorize(t.app, { jar, extra: { prompt: "none" } });
      expect((await followToCallback(t.app, flow, response)).searchParams.get("error")).toBe("login_required");
    });

    it("refuses an unregistered post-logout address", async () => {
      const person = await newAccount("logout2");
      const tokens = await signIn(t.app, person);
      const params = new URLSearchParams({ id_token_hint: tokens.id_token, post_logout_redirect_uri: "https://evil.example/" });
      const res = await t.app.inject({ url: `/oidc/session/end?${params}`, headers: { accept: "text/html" } });
      expect(res.statusCode).toBe(400);
      expect(res.headers.location).toBeUndefined();
    });
  });

  it("keeps its signing keys across a restart on the same database", async () => {
    const person = await newAccount("restart");
    const before = await signIn(t.app, person);
    const kidBefore = decodeProtectedHeader(before.access_token).kid;
    const jwksBefore = await jwksOf(t);

    const restarted = await buildApp(t.ctx, { web: false, logger: false });
    try {
      await restarted.ready();
      const res = await restarted.inject({ url: "/oidc/jwks" });
      const jwksAfter = res.json<JSONWebKeySet>();
      expect(jwksAfter.keys.map((k) => k.kid).sort()).toEqual(jwksBefore.keys.map((k) => k.kid).sort());
      expect(jwksAfter.keys.some((k) => k.kid === kidBefore)).toBe(true);
      // A token of the first process verifies with the keys of the second, and its refresh token still works.
      await jwtVerify(before.access_token, createLocalJWKSet(jwksAfter), { issuer: ISSUER, audience: API_AUDIENCE });
      const refreshed = await refreshTokens(restarted, before.refresh_token);
      expect(refreshed.statusCode).toBe(200);
      expect(decodeProtectedHeader(refreshed.json().access_token).kid).toBe(kidBefore);
    } finally {
      await restarted.close();
    }
  });
});

describeDb("demo seed", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());

  it("creates the demo administrator and Demo Brokerage once, and they can sign in", async () => {
    const first = await seedDemo(t.ctx);
    expect(first.demo?.email).toBe(DEMO_EMAIL);
    const password = first.demo!.password!;
    expect(password.length).toBeGreaterThanOrEqual(20);

    const second = await seedDemo(t.ctx);
    expect(second).toEqual({});

    const db = t.ctx.database.db;
    const org = theOnly(await db.select().from(organizations).where(eq(organizations.name, DEMO_ORGANIZATION)));
    const account = theOnly(await db.select().from(idpAccounts).where(eq(idpAccounts.email, DEMO_EMAIL)));
    expect(account.name).toBe("Demo Administrator");
    const user = theOnly(await db.select().from(users).where(eq(users.sub, account.id)));
    expect(user.email).toBe(DEMO_EMAIL);
    expect(user.provisionedAt).toBeInstanceOf(Date);
    const claims = await db
      .select()
      .from(memberClaims)
      .where(and(eq(memberClaims.userSub, account.id), eq(memberClaims.organizationId, org.id)));
    expect(claims).toEqual([expect.objectContaining({ type: "organization:admin", value: org.id })]);

    const tokens = await signIn(t.app, { email: DEMO_EMAIL, password });
    const { payload } = await jwtVerify(tokens.access_token, createLocalJWKSet(await jwksOf(t)), { audience: API_AUDIENCE });
    expect(payload.sub).toBe(account.id);

    // Its three simulated platforms have the Trades Blotter assigned: a newcomer's blotter and overview volume are not empty.
    const headers = { authorization: `Bearer ${tokens.access_token}`, organizationid: org.id };
    const platforms = (await t.app.inject({ method: "GET", url: "/api/tradePlatforms", headers })).json<{ id: string; name: string }[]>();
    expect(platforms.map((p) => p.name).sort()).toEqual(["Demo MT4", "Demo MT5", "Demo Match-Trader"]);
    for (const platform of platforms) {
      const apps = await t.app.inject({ method: "GET", url: `/api/tradePlatforms/${platform.id}/apps`, headers });
      expect(apps.statusCode).toBe(200);
      expect(apps.json()).toContainEqual(expect.objectContaining({ app: "tradesBlotter", enabled: true }));
    }
  });

  it("uses DEMO_PASSWORD without printing it, and seeds nothing for an external provider", async () => {
    const other = await createTestApp({ DEMO_PASSWORD: "chosen-demo-password" });
    try {
      expect(await seedDemo(other.ctx)).toEqual({ demo: { email: DEMO_EMAIL, password: undefined } });
      await signIn(other.app, { email: DEMO_EMAIL, password: "chosen-demo-password" });
    } finally {
      await other.close();
    }

    const external = loadConfig({
      NODE_ENV: "test",
      OIDC_AUTHORITY: "https://login.example.com/realms/toolbox",
      OIDC_CLIENT_ID: "toolbox",
      OIDC_AUDIENCE: "toolbox-api",
    });
    const messages: string[] = [];
    const before = await t.ctx.database.db.select().from(organizations);
    expect(await seedDemo({ config: external, database: t.ctx.database }, { log: (m) => messages.push(m) })).toEqual({});
    expect(messages.join()).toMatch(/external identity provider/);
    expect(await t.ctx.database.db.select().from(organizations)).toHaveLength(before.length);
  });
});
