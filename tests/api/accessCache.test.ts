// Databases: PGlite and PostgreSQL (the guard's caches dropped on the database's announcements).
import { and, eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memberClaims, memberships } from "../../server/db/schema.ts";
import { buildApp } from "../../server/http/app.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { addMember, signUp } from "./support/fixtures.ts";

/**
 * The guard caches members' claims (server/http/auth/memberCache.ts); whoever changes them in the
 * database — this node, another node, plain SQL — the cache follows within 2 s (at once on PGlite).
 */
describeDb("members' claims cached by the guard", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  let other: FastifyInstance;
  const owner = newPerson("Olga Owner");
  let org: string;
  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
    org = await signUp(t, tokens, owner);
    other = await buildApp(t.ctx, { web: false, logger: false });
    await other.ready();
  });
  afterAll(async () => {
    await other?.close();
    await t?.close();
  });

  async function statusWithin(ms: number, expected: number, call: () => Promise<{ statusCode: number }>) {
    const started = Date.now();
    for (;;) {
      const { statusCode } = await call();
      if (statusCode === expected) return Date.now() - started;
      if (Date.now() - started > ms) throw new Error(`still ${statusCode} after ${ms} ms`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  describe.each([
    ["the same node", () => t.app],
    ["another node", () => other],
  ])("seen from %s", (_label, node) => {
    it("a permission taken away is refused within 2 s, though it was cached", async () => {
      const reader = newPerson("Rita Reader");
      await addMember(t.ctx, org, reader, { [`Module.members.${org}`]: "read" });
      const token = await tokens.mint(reader);
      const call = () => node().inject({ url: "/api/members", headers: apiHeaders(token, org) });
      expect((await call()).statusCode).toBe(200);
      await t.ctx.database.db.delete(memberClaims).where(and(eq(memberClaims.organizationId, org), eq(memberClaims.userSub, reader.sub)));
      // PGlite runs in this process: its announcement arrives before the write returns.
      if (t.ctx.database.kind === "pglite") expect((await call()).statusCode).toBe(403);
      await statusWithin(2000, 403, call);
    });

    it("a member removed from the organization is refused within 2 s", async () => {
      const leaver = newPerson("Leo Leaver");
      await addMember(t.ctx, org, leaver, { [`Module.members.${org}`]: "read" });
      const token = await tokens.mint(leaver);
      const call = () => node().inject({ url: "/api/members", headers: apiHeaders(token, org) });
      expect((await call()).statusCode).toBe(200);
      await t.ctx.database.db.delete(memberships).where(and(eq(memberships.organizationId, org), eq(memberships.userSub, leaver.sub)));
      await statusWithin(2000, 404, call);
      expect((await call()).json().message).toBe("You are not a member of this organization");
    });
  });
});
