import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { moduleClaimType } from "../../core/access.ts";
import { ACCESS_TOKEN_CLOCK_TOLERANCE_SECONDS } from "../../server/http/auth/tokens.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { addMember, grant, signUp } from "./support/fixtures.ts";

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
interface ApiRoute {
  method: Method;
  url: string;
  organization: boolean;
}

/**
 * Every route the OpenAPI document lists, with whether it is public — so a route added later is
 * covered by these tests without anyone remembering to add it.
 */
async function documentedRoutes(t: TestApp): Promise<{ guarded: ApiRoute[]; public: string[] }> {
  const doc = (await t.app.inject({ url: "/api/docs/json" })).json<{
    paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>>;
  }>();
  const guarded: ApiRoute[] = [];
  const open: string[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    if (!path.startsWith("/api/")) continue;
    for (const [method, op] of Object.entries(ops)) {
      if (method === "head") continue;
      const url = path.replace(/\{[^}]+\}/g, "00000000-0000-4000-8000-000000000000");
      if (op.security?.length === 0) open.push(`${method.toUpperCase()} ${path}`);
      else guarded.push({ method: method.toUpperCase() as Method, url, organization: JSON.stringify(op.security ?? []).includes("organization") });
    }
  }
  return { guarded, public: open };
}

describeDb("API guard", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  let routes: { guarded: ApiRoute[]; public: string[] };
  const ada = newPerson("Ada Lovelace");
  let adaOrg: string;

  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
    routes = await documentedRoutes(t);
    adaOrg = await signUp(t, tokens, ada);
  });
  afterAll(() => t?.close());

  it("documents the routes of docs/requirements.md#r-calls as guarded and only health (and docs) as public", () => {
    const guarded = routes.guarded.map((r) => `${r.method} ${r.url}`);
    for (const r of [
      "GET /api/profile/preflight",
      "GET /api/profile/user-claims",
      "GET /api/organizations",
      "POST /api/organizations",
      "GET /api/tradePlatforms",
      "GET /api/members",
    ]) {
      expect(guarded).toContain(r);
    }
    // A recipient's confirmation link: the token is the proof (docs/notifications.md).
    expect(routes.public.sort()).toEqual(["GET /api/health", "GET /api/notifications/recipients/confirm", "POST /api/notifications/recipients/confirm"]);
  });

  describe("every guarded route answers 401", () => {
    it("without a token, with WWW-Authenticate: Bearer and a readable JSON message", async () => {
      for (const r of routes.guarded) {
        const res = await t.app.inject({ method: r.method, url: r.url, headers: { organizationid: adaOrg } });
        expect(res.statusCode, `${r.method} ${r.url}`).toBe(401);
        expect(res.headers["www-authenticate"]).toBe('Bearer realm="toolbox"');
        expect(res.headers["content-type"]).toMatch(/^application\/json/);
        expect(res.json()).toMatchObject({ statusCode: 401, message: expect.stringMatching(/^Sign-in required/) });
      }
    });

    it("for a header that is not 'Bearer <token>'", async () => {
      const token = await tokens.mint(ada);
      for (const authorization of [`Basic ${Buffer.from("a:b").toString("base64")}`, token, "Bearer", `Bearer ${token} extra`]) {
        const res = await t.app.inject({ url: "/api/organizations", headers: { authorization } });
        expect(res.statusCode, authorization.slice(0, 20)).toBe(401);
      }
    });

    it("for every kind of forged or unacceptable token, never echoing it", async () => {
      const forged = await tokens.forgeries(ada);
      expect(Object.keys(forged)).toEqual(
        expect.arrayContaining([
          "expired",
          "not yet valid",
          "wrong issuer",
          "wrong audience",
          "alg none",
          "HS256 with the public key PEM as secret",
          "unknown kid",
          "tampered",
          "signed by an attacker key carried in the jwk header",
        ]),
      );
      for (const [kind, token] of Object.entries(forged)) {
        for (const r of routes.guarded) {
          const res = await t.app.inject({ method: r.method, url: r.url, headers: apiHeaders(token, adaOrg) });
          expect(res.statusCode, `${kind}: ${r.method} ${r.url}`).toBe(401);
          expect(res.headers["www-authenticate"]).toMatch(/^Bearer realm="toolbox", error="invalid_token", error_description="[^"]+"$/);
          const body = res.json();
          expect(body.message).toMatch(/^The access token/);
          expect(res.body).not.toContain(token);
          expect(res.headers["www-authenticate"]).not.toContain(token);
        }
      }
    });

    it("with a message that says why", async () => {
      const forged = await tokens.forgeries(ada);
      const message = async (token: string) => (await t.app.inject({ url: "/api/organizations", headers: apiHeaders(token) })).json().message as string;
      expect(await message(forged.expired)).toBe("The access token has expired. Sign in again.");
      expect(await message(forged["not yet valid"])).toMatch(/not valid yet/);
      expect(await message(forged["wrong issuer"])).toMatch(/not issued by the identity provider/);
      expect(await message(forged["wrong audience"])).toMatch(/not meant for this API/);
      expect(await message(forged["alg none"])).toMatch(/algorithm is not accepted/);
      expect(await message(forged["HS256 with the public key PEM as secret"])).toMatch(/algorithm is not accepted/);
      expect(await message(forged["unknown kid"])).toMatch(/no signing key/);
      expect(await message(forged.tampered)).toMatch(/signature does not verify/);
      expect(await message(forged["no exp"])).toMatch(/no exp claim/);
      expect(await message(forged["no sub"])).toMatch(/no sub claim/);
      expect(await message(forged["signed by an attacker key carried in the jwk header"])).toMatch(/names its own key \(jwk header\)/);
      expect(await message(forged["attacker key behind a jku header"])).toMatch(/names its own key \(jku header\)/);
      expect(await message(forged["issued in the future"])).toMatch(/issued in the future/);
    });
  });

  describe("accepts", () => {
    it("tokens signed with either persisted key (RS256, ES256)", async () => {
      for (const alg of ["RS256", "ES256"] as const) {
        const res = await t.app.inject({ url: "/api/organizations", headers: apiHeaders(await tokens.mint(ada, { alg })) });
        expect(res.statusCode, alg).toBe(200);
      }
    });

    it(`clocks that differ by less than the ${ACCESS_TOKEN_CLOCK_TOLERANCE_SECONDS} s tolerance, and not more`, async () => {
      expect(ACCESS_TOKEN_CLOCK_TOLERANCE_SECONDS).toBeLessThanOrEqual(60);
      const now = Math.floor(Date.now() / 1000);
      const call = async (token: string) => (await t.app.inject({ url: "/api/organizations", headers: apiHeaders(token) })).statusCode;
      expect(await call(await tokens.mint(ada, { claims: { exp: now - 30 } })), "30 s past exp").toBe(200);
      expect(await call(await tokens.mint(ada, { claims: { nbf: now + 30, iat: now + 30 } })), "30 s early").toBe(200);
      expect(await call(await tokens.mint(ada, { claims: { exp: now - 61 } })), "61 s past exp").toBe(401);
      expect(await call(await tokens.mint(ada, { claims: { exp: now - 120 } })), "2 minutes past exp").toBe(401);
      expect(await call(await tokens.mint(ada, { claims: { nbf: now + 62 } })), "62 s before nbf").toBe(401);
      expect(await call(await tokens.mint(ada, { claims: { iat: now + 62 } })), "issued 62 s ahead").toBe(401);
    });

    it("an audience list that includes the API", async () => {
      const token = await tokens.mint(ada, { claims: { aud: ["other", tokens.audience] } });
      expect((await t.app.inject({ url: "/api/organizations", headers: apiHeaders(token) })).statusCode).toBe(200);
    });
  });

  describe("organization", () => {
    it("answers 400 when an organization-scoped route gets no or a malformed OrganizationId", async () => {
      const token = await tokens.mint(ada);
      const missing = await t.app.inject({ url: "/api/members", headers: apiHeaders(token) });
      expect(missing.statusCode).toBe(400);
      expect(missing.json().message).toMatch(/OrganizationId header/);
      for (const bad of ["not-a-uuid", "1", `${adaOrg}x`, "' or 1=1 --", `${adaOrg}, ${adaOrg}`]) {
        const res = await t.app.inject({ url: "/api/members", headers: apiHeaders(token, bad) });
        expect(res.statusCode, bad).toBe(400);
        expect(res.json().message).toBe("The OrganizationId header must be an organization id (a UUID).");
      }
    });

    it("answers 404 to a member of A who names organization B (not yours is not found)", async () => {
      const bob = newPerson("Bob");
      const bobOrg = await signUp(t, tokens, bob);
      const res = await t.app.inject({ url: "/api/members", headers: apiHeaders(await tokens.mint(ada), bobOrg) });
      expect(res.statusCode).toBe(404);
      expect(res.json().message).toBe("You are not a member of this organization");
      // Also for an organization that does not exist: no way to tell the two apart.
      const ghost = await t.app.inject({ url: "/api/members", headers: apiHeaders(await tokens.mint(ada), crypto.randomUUID()) });
      expect(ghost.statusCode).toBe(404);
      expect(ghost.json().message).toBe("You are not a member of this organization");
    });

    it("checks the organization before any body is read", async () => {
      const token = await tokens.mint(ada);
      const outsiderOrg = await signUp(t, tokens, newPerson("Olga Outsider"));
      const post = (organizationId: string | undefined, payload: string) =>
        t.app.inject({
          method: "POST",
          url: "/api/tradePlatforms",
          headers: { ...apiHeaders(token, organizationId), "content-type": "application/json" },
          payload,
        });
      const bodies = {
        "malformed JSON": '{"type": "MT5", "name": ',
        "a body over the size limit": JSON.stringify({ name: "x".repeat(2 * 1024 * 1024) }),
        "a body the schema refuses": JSON.stringify({ type: "cTrader" }),
      };
      for (const [what, payload] of Object.entries(bodies)) {
        // Read, each of these bodies is refused (400 or 413) in the caller's own organization…
        const own = await post(adaOrg, payload);
        expect([400, 413], `${what} in the own organization`).toContain(own.statusCode);
        expect(own.json().message).not.toMatch(/OrganizationId|member/);
        // …so the organization's answer shows the body was never read.
        const foreign = await post(outsiderOrg, payload);
        expect(foreign.statusCode, what).toBe(404);
        expect(foreign.json().message).toBe("You are not a member of this organization");
        const none = await post(undefined, payload);
        expect(none.statusCode, what).toBe(400);
        expect(none.json().message).toBe("Choose an organization: send its id in the OrganizationId header.");
      }
    });

    it("takes the caller's own organization id spelled in capitals as theirs", async () => {
      const res = await t.app.inject({ method: "GET", url: "/api/members", headers: { ...apiHeaders(await tokens.mint(ada), adaOrg.toUpperCase()) } });
      expect(res.statusCode).toBe(200);
      expect(res.json().map((m: { sub: string }) => m.sub)).toContain(ada.sub);
    });

    it("ignores OrganizationId on routes that are not about one organization", async () => {
      const res = await t.app.inject({ url: "/api/organizations", headers: apiHeaders(await tokens.mint(ada), "garbage") });
      expect(res.statusCode).toBe(200);
    });
  });

  describe("module permission (members:read on /api/members)", () => {
    it("gives the administrator everything", async () => {
      const res = await t.app.inject({ url: "/api/members", headers: apiHeaders(await tokens.mint(ada), adaOrg) });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual([
        expect.objectContaining({ sub: ada.sub, email: ada.email, name: ada.name, claims: [{ type: "organization:admin", value: adaOrg }] }),
      ]);
    });

    it("refuses a member without the module claim (403), admits them once granted read,write", async () => {
      const carol = newPerson("Carol");
      await addMember(t.ctx, adaOrg, carol, { [moduleClaimType("customers", adaOrg)]: "read,write" });
      const call = async () => t.app.inject({ url: "/api/members", headers: apiHeaders(await tokens.mint(carol), adaOrg) });

      const refused = await call();
      expect(refused.statusCode).toBe(403);
      expect(refused.json().message).toBe('You need the "read" permission on the "members" module in this organization. Ask its administrator.');

      await grant(t.ctx, adaOrg, carol, `Module.members.${adaOrg}`, "read,write");
      const admitted = await call();
      expect(admitted.statusCode).toBe(200);
      expect(admitted.json().map((m: { sub: string }) => m.sub)).toEqual([ada.sub, carol.sub]);
    });

    it("does not let a claim for another organization, or a look-alike value, count", async () => {
      const dave = newPerson("Dave");
      const daveOrg = await signUp(t, tokens, dave);
      await addMember(t.ctx, adaOrg, dave, { [`Module.members.${daveOrg}`]: "read", [`Module.members.${adaOrg}`]: "readonly, write" });
      const res = await t.app.inject({ url: "/api/members", headers: apiHeaders(await tokens.mint(dave), adaOrg) });
      expect(res.statusCode).toBe(403);
      // Being administrator of one's own organization gives nothing in another one.
      await grant(t.ctx, adaOrg, dave, "organization:admin", daveOrg);
      expect((await t.app.inject({ url: "/api/members", headers: apiHeaders(await tokens.mint(dave), adaOrg) })).statusCode).toBe(403);
    });
  });

  describe("public and unknown paths", () => {
    it("keeps /api/health and /api/docs open", async () => {
      // Open: answered in full without a token, and a token that is no good changes nothing.
      for (const headers of [{}, { authorization: "Bearer not-a-token" }, { authorization: "Basic YTpi" }]) {
        const what = JSON.stringify(headers);
        const health = await t.app.inject({ url: "/api/health", headers });
        expect(health.statusCode, what).toBe(200);
        expect(health.json(), what).toMatchObject({ status: "ok", dependencies: { database: { state: "up" } } });
        const docs = await t.app.inject({ url: "/api/docs", headers });
        expect(docs.statusCode, what).toBe(200);
        expect(docs.headers["content-type"], what).toMatch(/^text\/html/);
        const doc = await t.app.inject({ url: "/api/docs/json", headers });
        expect(doc.statusCode, what).toBe(200);
        expect(doc.json(), what).toMatchObject({
          openapi: expect.stringMatching(/^3\./),
          paths: expect.objectContaining({ "/api/health": expect.anything() }),
        });
        for (const res of [health, docs, doc]) expect(res.headers["www-authenticate"], what).toBeUndefined();
      }
    });

    it("answers 404 JSON for unknown /api paths and methods, token or not", async () => {
      for (const [method, url] of [
        ["GET", "/api/nope"],
        ["GET", "/api"],
        ["POST", "/api/deeply/nested/nope"],
        ["DELETE", "/api/organizations"],
      ] as const) {
        const res = await t.app.inject({ method, url });
        expect(res.statusCode, `${method} ${url}`).toBe(404);
        expect(res.json()).toMatchObject({ statusCode: 404, message: expect.stringContaining("No such endpoint") });
      }
    });
  });
});
