import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory } from "../helpers/tokens.ts";
import { UNVERIFIED_EMAIL_MESSAGE } from "../../server/modules/members/service.ts";

/** A stand-in external provider (Keycloak, Auth0 …): a discovery document and a JWKS, nothing else. */
async function fakeProvider(issuerPath: string) {
  const { privateKey, publicKey } = await generateKeyPair("PS256");
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid: "ext-1", alg: "PS256", use: "sig" };
  let requests = 0;
  const server = http.createServer((req, res) => {
    requests++;
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    res.setHeader("content-type", "application/json");
    if (req.url === `${issuerPath.replace(/\/$/, "")}/.well-known/openid-configuration`) {
      res.end(JSON.stringify({ issuer: `${origin}${issuerPath}`, jwks_uri: `${origin}/keys` }));
    } else if (req.url === "/keys") {
      res.end(JSON.stringify({ keys: [publicJwk] }));
    } else {
      res.statusCode = 404;
      res.end("{}");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    issuer: `${origin}${issuerPath}`,
    requests: () => requests,
    sign: (claims: Record<string, unknown>, key: CryptoKey = privateKey) =>
      new SignJWT(claims).setProtectedHeader({ alg: "PS256", kid: "ext-1" }).setIssuedAt().setExpirationTime("10m").sign(key),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describeDb("external identity provider", () => {
  describe("reachable, publishing its issuer with a trailing slash (as Auth0 does)", () => {
    let provider: Awaited<ReturnType<typeof fakeProvider>>;
    let t: TestApp;
    const person = newPerson("Eve External");
    beforeAll(async () => {
      provider = await fakeProvider("/tenant/");
      t = await createTestApp({ OIDC_AUTHORITY: provider.issuer, OIDC_CLIENT_ID: "spa", OIDC_AUDIENCE: "https://api.toolbox.test" });
    });
    afterAll(async () => {
      await t?.close();
      await provider?.close();
    });

    const call = async (token: string) => t.app.inject({ url: "/api/profile/preflight", headers: apiHeaders(token) });

    it("accepts its tokens (issuer with or without the slash) and mirrors the person", async () => {
      const claims = { sub: person.sub, email: person.email, name: person.name, aud: "https://api.toolbox.test" };
      const res = await call(await provider.sign({ ...claims, iss: provider.issuer }));
      expect(res.statusCode).toBe(200);
      expect(res.json().createdOrganizationId).toEqual(expect.any(String));
      expect((await call(await provider.sign({ ...claims, iss: provider.issuer.replace(/\/$/, "") }))).statusCode).toBe(200);
    });

    it("reads discovery and keys once, not per request", async () => {
      const before = provider.requests();
      const token = await provider.sign({ sub: person.sub, iss: provider.issuer, aud: "https://api.toolbox.test" });
      for (let i = 0; i < 5; i++) expect((await call(token)).statusCode).toBe(200);
      expect(provider.requests()).toBe(before);
    });

    it("refuses another issuer, another audience, an attacker's key and the embedded provider's keys", async () => {
      const attacker = await generateKeyPair("PS256");
      const base = { sub: person.sub, iss: provider.issuer, aud: "https://api.toolbox.test" };
      const embedded = await (await tokenFactory(t.ctx)).mint(person);
      for (const token of [
        await provider.sign({ ...base, iss: `${provider.origin}/other-tenant/` }),
        await provider.sign({ ...base, aud: "toolbox.api" }),
        await provider.sign(base, attacker.privateKey),
        embedded,
      ]) {
        const res = await call(token);
        expect(res.statusCode).toBe(401);
        expect(res.headers["www-authenticate"]).toMatch(/^Bearer /);
      }
    });

    it("an invitation is accepted only with a token saying email_verified: true", async () => {
      const aud = "https://api.toolbox.test";
      const admin = newPerson("Xena External Admin");
      const adminToken = await provider.sign({ sub: admin.sub, email: admin.email, email_verified: true, name: admin.name, iss: provider.issuer, aud });
      const org = (await call(adminToken)).json().createdOrganizationId as string;
      const invitee = newPerson("Ian Invitee");
      const sent = await t.app.inject({
        method: "POST",
        url: "/api/members/invitations",
        headers: apiHeaders(adminToken, org),
        payload: { email: invitee.email, role: "viewer" },
      });
      expect(sent.statusCode).toBe(201);
      const token = new URL(sent.json().link as string).hash.replace(/^#invitation=/, "");
      const accept = async (claims: Record<string, unknown>) =>
        t.app.inject({
          method: "POST",
          url: "/api/invitations/accept",
          headers: apiHeaders(await provider.sign({ sub: invitee.sub, email: invitee.email, name: invitee.name, iss: provider.issuer, aud, ...claims })),
          payload: { token },
        });
      for (const claims of [{}, { email_verified: false }, { email_verified: "true" }]) {
        const refused = await accept(claims);
        expect(refused.statusCode, JSON.stringify(claims)).toBe(422);
        expect(refused.json().message).toBe(UNVERIFIED_EMAIL_MESSAGE);
      }
      const accepted = await accept({ email_verified: true });
      expect(accepted.statusCode).toBe(200);
      expect(accepted.json()).toMatchObject({ organizationId: org });
    });

    it("passwords are the provider's business: changing one here answers 409", async () => {
      const token = await provider.sign({ sub: person.sub, email: person.email, iss: provider.issuer, aud: "https://api.toolbox.test" });
      const res = await t.app.inject({
        method: "POST",
        url: "/api/profile/password",
        headers: apiHeaders(token),
        payload: { currentPassword: "whatever-it-is-1", newPassword: "something-new-and-long-2" },
      });
      expect(res.statusCode).toBe(409);
      expect(res.json().message).toMatch(/identity provider you sign in with/);
    });
  });

  it("answers 503, not 401, when the provider cannot be reached (the caller is not at fault)", async () => {
    const provider = await fakeProvider("/realms/x");
    const authority = provider.issuer;
    await provider.close();
    const t = await createTestApp({ OIDC_AUTHORITY: authority, OIDC_CLIENT_ID: "spa", OIDC_AUDIENCE: "toolbox.api" });
    try {
      const token = await provider.sign({ sub: "someone", iss: authority, aud: "toolbox.api" });
      const res = await t.app.inject({ url: "/api/organizations", headers: apiHeaders(token) });
      expect(res.statusCode).toBe(503);
      expect(res.body).not.toContain("127.0.0.1");
      // No token is still the caller's fault.
      expect((await t.app.inject({ url: "/api/organizations" })).statusCode).toBe(401);
    } finally {
      await t.close();
    }
  });
});
