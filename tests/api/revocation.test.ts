import { eq, sql } from "drizzle-orm";
import { decodeJwt } from "jose";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { revokedGrants } from "../../server/db/schema.ts";
import { buildApp } from "../../server/http/app.ts";
import { GRANT_ID_CLAIM } from "../../server/http/auth/tokens.ts";
import { REVOCATION_POLL_MS } from "../../server/http/auth/revocations.ts";
import { TTL } from "../../server/idp/provider.ts";
import { describeDb, theOnly } from "../helpers/db.ts";
import { refreshTokens, signInFlow, signOut, signUp, type SignedIn } from "../helpers/oidcFlow.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders } from "../helpers/tokens.ts";

const PASSWORD = "heron-quartz-meadow-17";
let seq = 0;

/** Sign-out and revoked grants end API access at once, on every node (docs/security.md). */
describeDb("revoked sign-ins", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());

  /** A new person signed in through the real pages, with their organization. */
  async function signedIn(app: FastifyInstance = t.app): Promise<SignedIn & { org: string; email: string }> {
    const email = `revoke-${Date.now().toString(36)}-${seq++}@example.test`;
    await signUp(app, { name: "Rhea Revoked", email, password: PASSWORD });
    const session = await signInFlow(app, { email, password: PASSWORD });
    const preflight = await app.inject({ url: "/api/profile/preflight", headers: apiHeaders(session.tokens.access_token) });
    const org = (await app.inject({ url: "/api/organizations", headers: apiHeaders(session.tokens.access_token) })).json()[0].id as string;
    expect(preflight.statusCode).toBe(200);
    return { ...session, org, email };
  }

  const members = (app: FastifyInstance, accessToken: string, org: string) => app.inject({ url: "/api/members", headers: apiHeaders(accessToken, org) });

  const expectEnded = (res: { statusCode: number; json(): { message: string }; headers: Record<string, unknown> }) => {
    expect(res.statusCode).toBe(401);
    expect(res.json().message).toBe("This sign-in has ended (signed out or revoked). Sign in again.");
    expect(String(res.headers["www-authenticate"])).toContain('error="invalid_token"');
  };

  it("access tokens name their grant", async () => {
    const { tokens } = await signedIn();
    expect(decodeJwt(tokens.access_token)[GRANT_ID_CLAIM]).toEqual(expect.any(String));
  });

  it("sign-out: the same access token answers 401 at once, on every route", async () => {
    const { tokens, flow, org } = await signedIn();
    expect((await members(t.app, tokens.access_token, org)).statusCode).toBe(200);
    await signOut(t.app, flow.jar, tokens.id_token);
    expectEnded(await members(t.app, tokens.access_token, org));
    expectEnded(await t.app.inject({ url: "/api/organizations", headers: apiHeaders(tokens.access_token) }));
  });

  it("keeps the revocation in the database until the grant's last access token has expired", async () => {
    const { tokens, flow } = await signedIn();
    await signOut(t.app, flow.jar, tokens.id_token);
    const grantId = decodeJwt(tokens.access_token)[GRANT_ID_CLAIM] as string;
    const row = theOnly(await t.ctx.database.db.select().from(revokedGrants).where(eq(revokedGrants.grantId, grantId)));
    const kept = (row.expiresAt.getTime() - row.revokedAt.getTime()) / 1000;
    expect(kept).toBeGreaterThanOrEqual(TTL.AccessToken);
    expect(kept).toBeLessThanOrEqual(TTL.AccessToken + 60);
  });

  it("revoking the refresh token (the web app's first step of sign-out) ends the access token too", async () => {
    const { tokens, org } = await signedIn();
    expect((await members(t.app, tokens.access_token, org)).statusCode).toBe(200);
    const res = await t.app.inject({
      method: "POST",
      url: "/oidc/token/revocation",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ client_id: t.ctx.config.oidc.clientId, token: tokens.refresh_token, token_type_hint: "refresh_token" }).toString(),
    });
    expect(res.statusCode).toBe(200);
    expectEnded(await members(t.app, tokens.access_token, org));
  });

  it("a reused refresh token revokes the grant: old and new access tokens stop working", async () => {
    const { tokens, org } = await signedIn();
    const renewed = await refreshTokens(t.app, tokens.refresh_token);
    expect(renewed.statusCode).toBe(200);
    const newAccessToken = renewed.json().access_token as string;
    expect((await members(t.app, newAccessToken, org)).statusCode).toBe(200);
    expect((await refreshTokens(t.app, tokens.refresh_token)).statusCode).toBe(400);
    expectEnded(await members(t.app, newAccessToken, org));
    expectEnded(await members(t.app, tokens.access_token, org));
  });

  it("ends only the sign-in that signed out: the same person's other sign-in keeps working", async () => {
    const first = await signedIn();
    const second = await signInFlow(t.app, { email: first.email, password: PASSWORD });
    await signOut(t.app, first.flow.jar, first.tokens.id_token);
    expectEnded(await members(t.app, first.tokens.access_token, first.org));
    expect((await members(t.app, second.tokens.access_token, first.org)).statusCode).toBe(200);
  });

  describe("on another node of the same database", () => {
    let other: FastifyInstance;
    beforeAll(async () => {
      other = await buildApp(t.ctx, { web: false, logger: false });
      await other.ready();
    });
    afterAll(() => other?.close());

    async function refusedWithin(ms: number, call: () => Promise<{ statusCode: number }>): Promise<number> {
      const started = Date.now();
      for (;;) {
        const res = await call();
        if (res.statusCode === 401) return Date.now() - started;
        if (Date.now() - started > ms) throw new Error(`still answering ${res.statusCode} after ${ms} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }

    it("a sign-out on one node is refused by the other within 2 s (it had the token cached)", async () => {
      const { tokens, flow, org } = await signedIn();
      expect((await members(other, tokens.access_token, org)).statusCode).toBe(200);
      await signOut(t.app, flow.jar, tokens.id_token);
      await refusedWithin(2000, () => members(other, tokens.access_token, org));
    });

    it("even when the database's announcement is lost, its poll finds the revocation within 2 s", async () => {
      const { tokens, org } = await signedIn();
      expect((await members(other, tokens.access_token, org)).statusCode).toBe(200);
      const grantId = decodeJwt(tokens.access_token)[GRANT_ID_CLAIM] as string;
      // Written with triggers off: no notification reaches any node.
      await t.ctx.database.db.transaction(async (tx) => {
        await tx.execute(sql`set local session_replication_role = replica`);
        await tx.insert(revokedGrants).values({ grantId, expiresAt: new Date(Date.now() + 600_000) });
      });
      const took = await refusedWithin(2000, () => members(other, tokens.access_token, org));
      expect(took).toBeLessThanOrEqual(REVOCATION_POLL_MS + 1000);
    });
  });
});
