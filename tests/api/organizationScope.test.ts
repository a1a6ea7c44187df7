/**
 * Every /api operation belongs to one organization unless it is listed below as not scoped. The
 * operations are enumerated from the routes the real app registers (its `onRoute` hook), so a
 * route added later is covered without anyone adding it here: each must answer 400 without the
 * `OrganizationId` header and 403 for an organization the caller is not in, and change nothing.
 * A route that loses its scoping (`organization: "none"` or `auth: false` where it should not)
 * fails; so does a listed route that becomes scoped, or a listed route that no longer exists.
 */
import crypto from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type Person, type TokenFactory } from "../helpers/tokens.ts";
import { addTradePlatform, rowCounts, signUp } from "./support/fixtures.ts";
import { keyOf, operationsOf, type Operation } from "./support/routes.ts";

/** The operations that are not about one organization, and why. Anything else under /api is. */
const NOT_ORGANIZATION_SCOPED: Record<string, string> = {
  "GET /api/health": "public: the service's health",
  "HEAD /api/health": "public: the service's health",
  "GET /api/notifications/recipients/confirm": "public: an e-mail recipient's confirmation page (the token is the proof)",
  "HEAD /api/notifications/recipients/confirm": "public: an e-mail recipient's confirmation page (the token is the proof)",
  "POST /api/notifications/recipients/confirm": "public: an e-mail recipient confirms (the token is the proof)",
  "GET /api/profile/preflight": "the caller themselves, before they have an organization (docs/requirements.md#r-states)",
  "HEAD /api/profile/preflight": "the caller themselves, before they have an organization (docs/requirements.md#r-states)",
  "GET /api/profile/user-claims": "the caller's claims in all their organizations",
  "HEAD /api/profile/user-claims": "the caller's claims in all their organizations",
  "GET /api/profile/two-factor": "the caller's own two-factor sign-in",
  "HEAD /api/profile/two-factor": "the caller's own two-factor sign-in",
  "POST /api/profile/two-factor/enrolment": "the caller's own two-factor sign-in",
  "POST /api/profile/two-factor/enrolment/confirm": "the caller's own two-factor sign-in",
  "DELETE /api/profile/two-factor": "the caller's own two-factor sign-in",
  "POST /api/profile/password": "the caller's own password",
  "GET /api/organizations": "the organizations the caller belongs to",
  "HEAD /api/organizations": "the organizations the caller belongs to",
  "POST /api/organizations": "creates a new organization",
  "POST /api/invitations/accept": "the invitee joins the organization of the invitation (named by its token)",
  "GET /api/tradePlatforms": "the platforms of all the caller's organizations (docs/requirements.md#r-calls)",
  "HEAD /api/tradePlatforms": "the platforms of all the caller's organizations (docs/requirements.md#r-calls)",
  "ALL /api": "404 for unknown /api paths",
  "ALL /api/*": "404 for unknown /api paths",
};

describeDb("organization scope of every API operation", () => {
  /** Taken as each route is registered (Fastify reuses the options object for the trailing-slash twin of a prefix route). */
  const operations: Operation[] = [];
  let t: TestApp;
  let tokens: TokenFactory;
  const ada = newPerson("Ada");
  const bob = newPerson("Bob");
  let bobOrg: string;
  let bobPlatform: string;

  beforeAll(async () => {
    t = await createTestApp({}, { onRoute: (route) => void operations.push(...operationsOf(route)) });
    tokens = await tokenFactory(t.ctx);
    await signUp(t, tokens, ada);
    bobOrg = await signUp(t, tokens, bob);
    // Something of Bob's for the path to name: a route that forgot the check would find it.
    bobPlatform = (await addTradePlatform(t.ctx, bobOrg, "Bob's MT5")).id;
  });
  afterAll(() => t?.close());

  /** Path parameters filled with values that look right (ids of Bob's organization). */
  function urlOf(op: Operation): string {
    return op.url.replace(/:(\w+)/g, (_, name: string) => {
      const value = {
        id: bobPlatform,
        platformId: bobPlatform,
        login: "1001",
        positionId: "5001",
        key: "users.grid.columns",
        sub: bob.sub,
        clientId: `tbc_${"A".repeat(16)}`,
        linkId: "6f1c0a52-2f5e-4c41-9d1e-3b8f26a7c026",
        pluginId: "CPlugin.MT5Plugin.FlexibleLeverage",
      }[name];
      if (!value) throw new Error(`${keyOf(op)}: give this test a value for :${name}`);
      return value;
    });
  }

  async function send(op: Operation, person: Person, organizationId: string | undefined) {
    const method = op.method === "ALL" ? "GET" : op.method;
    return t.app.inject({
      method: method as "GET",
      url: op.url.endsWith("*") ? op.url.replace("*", "no/such/thing") : urlOf(op),
      headers: { ...apiHeaders(await tokens.mint(person), organizationId), "idempotency-key": crypto.randomUUID() },
      ...(op.hasBody ? { payload: {} } : {}),
    });
  }

  const scoped = () => operations.filter((op) => !(keyOf(op) in NOT_ORGANIZATION_SCOPED));

  it("finds the API's operations, and every operation listed as not scoped still exists", () => {
    const keys = operations.map(keyOf);
    expect(keys).toEqual(expect.arrayContaining(Object.keys(NOT_ORGANIZATION_SCOPED)));
    // The enumeration is not empty or partial: operations of every module are there.
    expect(scoped().map(keyOf)).toEqual(
      expect.arrayContaining([
        "POST /api/tradePlatforms",
        "GET /api/tradePlatforms/live",
        "DELETE /api/tradePlatforms/:id",
        "GET /api/members",
        "GET /api/accounts",
        "POST /api/accounts/:platformId/:login/balance-operations",
        "PUT /api/preferences/:key",
      ]),
    );
    expect(scoped().length).toBeGreaterThanOrEqual(25);
  });

  it("answers 400 without the OrganizationId header on every organization-scoped operation, changing nothing", async () => {
    const before = await rowCounts(t.ctx);
    for (const op of scoped()) {
      const res = await send(op, ada, undefined);
      expect.soft(res.statusCode, keyOf(op)).toBe(400);
      if (op.method !== "HEAD") {
        expect.soft(res.json().message, keyOf(op)).toBe("Choose an organization: send its id in the OrganizationId header.");
      }
    }
    expect(await rowCounts(t.ctx)).toEqual(before);
  });

  it("answers 404 for an organization the caller is not in (or that does not exist) on every organization-scoped operation, changing nothing", async () => {
    const before = await rowCounts(t.ctx);
    for (const op of scoped()) {
      for (const organizationId of [bobOrg, crypto.randomUUID()]) {
        const res = await send(op, ada, organizationId);
        expect.soft(res.statusCode, `${keyOf(op)} in ${organizationId === bobOrg ? "Bob's organization" : "no organization"}`).toBe(404);
        if (op.method !== "HEAD") expect.soft(res.json().message, keyOf(op)).toBe("You are not a member of this organization");
      }
    }
    expect(await rowCounts(t.ctx)).toEqual(before);
  });

  it("does not ask for an organization on the operations listed as not scoped", async () => {
    for (const op of operations.filter((o) => keyOf(o) in NOT_ORGANIZATION_SCOPED)) {
      for (const organizationId of [undefined, bobOrg]) {
        const res = await send(op, ada, organizationId);
        const what = `${keyOf(op)} ${organizationId ? "with another organization's header" : "without the header"}`;
        expect.soft(res.statusCode, what).not.toBe(403);
        expect.soft(res.statusCode, what).toBeLessThan(500);
        // A recipient's confirmation page answers HTML (docs/notifications.md): its words are no JSON message.
        if (op.method !== "HEAD")
          expect
            .soft(String(res.headers["content-type"]).includes("json") ? (res.json().message ?? "") : res.body, what)
            .not.toMatch(/OrganizationId|not a member/);
      }
    }
  });
});
