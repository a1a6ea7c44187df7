// Databases: PGlite and PostgreSQL (the claims and member caches dropped on the database's announcements).
import { and, eq, sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, expect, it } from "vitest";
import { memberClaims, memberships } from "../../server/db/schema.ts";
import { buildApp } from "../../server/http/app.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { addMember, signUp } from "./support/fixtures.ts";

/**
 * GET /api/profile/user-claims and GET /api/members answer from the guard's memory (issue 30), and follows the
 * database's announcements: a claim given or taken by anyone — this node, another node, plain SQL
 * — shows at once on PGlite, within 2 s on PostgreSQL.
 */
describeDb("a person's claims everywhere, cached by the guard", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  let other: FastifyInstance;
  const owner = newPerson("Olga Owner");
  const reader = newPerson("Rita Reader");
  let org: string;
  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
    org = await signUp(t, tokens, owner);
    await addMember(t.ctx, org, reader, { [`Module.members.${org}`]: "read" });
    other = await buildApp(t.ctx, { web: false, logger: false });
    await other.ready();
  });
  afterAll(async () => {
    await other?.close();
    await t?.close();
  });

  const claimsOf = async (node: FastifyInstance) => {
    const res = await node.inject({ url: "/api/profile/user-claims", headers: apiHeaders(await tokens.mint(reader)) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ type: string; value: string }[]>().map((c) => `${c.type}=${c.value}`);
  };

  async function within(ms: number, node: FastifyInstance, check: (claims: string[]) => boolean) {
    const started = Date.now();
    for (;;) {
      const claims = await claimsOf(node);
      if (check(claims)) return;
      if (Date.now() - started > ms) throw new Error(`still ${JSON.stringify(claims)} after ${ms} ms`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  it("answers from memory: a change the database does not announce is not seen at once", async () => {
    expect(await claimsOf(t.app)).toContain(`Module.members.${org}=read`);
    const before = Date.now();
    // Triggers off for this write (what an announcement-less change would be): the cache keeps its answer.
    await t.ctx.database.db.transaction(async (tx) => {
      await tx.execute(sql`set local session_replication_role = replica`);
      await tx.delete(memberClaims).where(and(eq(memberClaims.organizationId, org), eq(memberClaims.userSub, reader.sub)));
    });
    const cached = await claimsOf(t.app);
    // Entries live at most 2 s: only a quick second request can show the cached answer.
    if (Date.now() - before < 1500) expect(cached).toContain(`Module.members.${org}=read`);
    // ... and no longer than that.
    await within(3000, t.app, (claims) => !claims.includes(`Module.members.${org}=read`));
  });

  it.each([
    ["the same node", () => t.app],
    ["another node", () => other],
  ])("the member list (cached the same way) shows a member added or removed by plain SQL, seen from %s", async (_label, node) => {
    const list = async () => {
      const res = await node().inject({ url: "/api/members", headers: apiHeaders(await tokens.mint(owner), org) });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<{ name: string }[]>().map((m) => m.name);
    };
    const newcomer = newPerson(`Nina Newcomer ${_label}`);
    expect(await list()).not.toContain(newcomer.name); // cached
    await addMember(t.ctx, org, newcomer);
    if (t.ctx.database.kind === "pglite") expect(await list()).toContain(newcomer.name);
    const started = Date.now();
    while (!(await list()).includes(newcomer.name)) {
      if (Date.now() - started > 2000) throw new Error("the new member is not listed after 2 s");
      await new Promise((r) => setTimeout(r, 25));
    }
    await t.ctx.database.db.delete(memberships).where(and(eq(memberships.organizationId, org), eq(memberships.userSub, newcomer.sub)));
    if (t.ctx.database.kind === "pglite") expect(await list()).not.toContain(newcomer.name);
  });

  it.each([
    ["the same node", () => t.app],
    ["another node", () => other],
  ])("shows a claim given or taken by plain SQL, seen from %s", async (_label, node) => {
    await claimsOf(node()); // cached
    await t.ctx.database.db.insert(memberClaims).values({ organizationId: org, userSub: reader.sub, type: `Module.users.${org}`, value: "read" });
    if (t.ctx.database.kind === "pglite") expect(await claimsOf(node())).toContain(`Module.users.${org}=read`);
    await within(2000, node(), (claims) => claims.includes(`Module.users.${org}=read`));
    await t.ctx.database.db.delete(memberClaims).where(and(eq(memberClaims.userSub, reader.sub), eq(memberClaims.type, `Module.users.${org}`)));
    if (t.ctx.database.kind === "pglite") expect(await claimsOf(node())).not.toContain(`Module.users.${org}=read`);
    await within(2000, node(), (claims) => !claims.includes(`Module.users.${org}=read`));
  });
});
