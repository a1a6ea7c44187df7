/**
 * GET /api/tradePlatforms lists the platforms of every organization of the caller, outside any one
 * organization (no OrganizationId header). Each organization's security policy (docs/security.md
 * "Organization security policy") still decides whether its platforms are in the answer: the
 * allowed IP ranges, the session lifetime and two-factor, as for a request in that organization.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { moduleClaimType } from "../../core/access.ts";
import { organizationSecurity } from "../../server/db/schema.ts";
import { describeDb } from "../helpers/db.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { startPlatformsApp, type PlatformsApp } from "./platformsHarness.ts";
import { addMember, signUp } from "./support/fixtures.ts";

const now = () => Math.floor(Date.now() / 1000);

describeDb("the list of trade platforms across organizations, under each organization's security policy", () => {
  let t: PlatformsApp;
  let tokens: TokenFactory;
  const ada = newPerson("Ada");
  const bob = newPerson("Bob");
  let adaOrg: string;
  let bobOrg: string;
  let adaPlatform: string;
  let bobPlatform: string;

  beforeAll(async () => {
    t = await startPlatformsApp();
    tokens = await tokenFactory(t.ctx);
    adaOrg = await signUp(t, tokens, ada);
    bobOrg = await signUp(t, tokens, bob);
    // Ada may read Bob's organization's platforms.
    await addMember(t.ctx, bobOrg, ada, { [moduleClaimType("tradePlatforms", bobOrg)]: "read" });
    const create = async (person: typeof ada, organizationId: string, name: string) => {
      const res = await t.call({
        method: "POST",
        url: "/api/tradePlatforms",
        headers: apiHeaders(await tokens.mint(person), organizationId),
        payload: { type: "MT5", name, timeZone: "UTC", connection: { kind: "simulated", accounts: 1, tradeRate: 0 } },
      });
      expect(res.statusCode, res.body).toBe(201);
      return res.json<{ id: string }>().id;
    };
    adaPlatform = await create(ada, adaOrg, "Ada's");
    bobPlatform = await create(bob, bobOrg, "Bob's");
  });
  afterAll(async () => {
    await t?.close();
    await t?.drop();
  });
  beforeEach(async () => {
    await t.ctx.database.db.delete(organizationSecurity);
  });

  const setPolicy = (organizationId: string, policy: Partial<typeof organizationSecurity.$inferInsert>) =>
    t.ctx.database.db
      .insert(organizationSecurity)
      .values({ organizationId, ...policy })
      .onConflictDoUpdate({ target: organizationSecurity.organizationId, set: policy });

  /** The platform ids Ada's list shows, for a token with these claims, from this address. */
  async function listed(claims: Record<string, unknown>, remoteAddress = "127.0.0.1"): Promise<string[]> {
    const res = await t.call({ method: "GET", url: "/api/tradePlatforms", headers: apiHeaders(await tokens.mint(ada, { claims })), remoteAddress });
    expect(res.statusCode, res.body).toBe(200);
    return res
      .json<{ id: string }[]>()
      .map((p) => p.id)
      .sort();
  }
  const both = () => [adaPlatform, bobPlatform].sort();
  const signedIn = { auth_time: now(), amr: ["pwd"] };

  it("lists both organizations' platforms without a policy", async () => {
    expect(await listed(signedIn)).toEqual(both());
  });

  it("leaves out an organization that requires two-factor from a sign-in without it", async () => {
    await setPolicy(bobOrg, { requireTwoFactor: true });
    expect(await listed(signedIn)).toEqual([adaPlatform]);
    expect(await listed({ ...signedIn, amr: ["pwd", "otp"] })).toEqual(both());
    // The same as a request in that organization would be told.
    const inBob = await t.call({
      method: "GET",
      url: `/api/tradePlatforms/${bobPlatform}`,
      headers: apiHeaders(await tokens.mint(ada, { claims: signedIn }), bobOrg),
    });
    expect(inBob.json()).toMatchObject({ code: "two_factor_required" });
  });

  it("leaves out an organization whose allowed IP ranges do not hold the caller's address", async () => {
    await setPolicy(bobOrg, { allowedIpRanges: ["203.0.113.0/24"] });
    expect(await listed(signedIn)).toEqual([adaPlatform]);
    expect(await listed(signedIn, "203.0.113.9")).toEqual(both());
    // Ada's own organization limits her too, independently.
    await setPolicy(adaOrg, { allowedIpRanges: ["198.51.100.0/24"] });
    expect(await listed(signedIn, "203.0.113.9")).toEqual([bobPlatform]);
    expect(await listed(signedIn, "192.0.2.1")).toEqual([]);
  });

  it("leaves out an organization whose session lifetime the sign-in has outlived, or cannot be checked against", async () => {
    await setPolicy(bobOrg, { sessionLifetimeSeconds: 3600 });
    expect(await listed({ ...signedIn, auth_time: now() - 7200 })).toEqual([adaPlatform]);
    expect(await listed({ amr: ["pwd"] })).toEqual([adaPlatform]);
    expect(await listed({ ...signedIn, auth_time: now() - 60 })).toEqual(both());
  });
});
