import { afterAll, beforeAll, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { signUp } from "./support/fixtures.ts";

/** A broken database stands in for any unexpected failure: the answer is a plain 500, never internals. */
describeDb("unexpected failures", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  const ada = newPerson("Ada");
  let adaOrg: string;
  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
    adaOrg = await signUp(t, tokens, ada);
    await t.ctx.database.db.execute(sql`drop table trade_platforms cascade`);
    await t.ctx.database.db.execute(sql`alter table member_claims rename to member_claims_gone`);
  });
  afterAll(() => t?.close());

  const expectPlain500 = (res: { statusCode: number; body: string; json(): unknown }) => {
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ statusCode: 500, error: "Internal Server Error", message: "Something went wrong on our side. Please try again." });
    expect(res.body).not.toMatch(/trade_platforms|member_claims|relation|select|pglite|postgres|\.ts:\d+|stack/i);
  };

  it("in a handler", async () => {
    expectPlain500(await t.app.inject({ url: "/api/tradePlatforms", headers: apiHeaders(await tokens.mint(ada)) }));
  });

  it("in the guard's membership lookup: 500, not a misleading 401 or 403", async () => {
    expectPlain500(await t.app.inject({ url: "/api/members", headers: apiHeaders(await tokens.mint(ada), adaOrg) }));
  });
});
