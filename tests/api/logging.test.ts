import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeDb } from "../helpers/db.ts";
import { authorize, pathOf, signInFlow, signOut, signUp } from "../helpers/oidcFlow.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders } from "../helpers/tokens.ts";

/** The log keeps no tokens, codes, secrets or personal data (docs/security.md "Logging"). */
describeDb("the server log", () => {
  const logs: string[] = [];
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({}, { logs });
  });
  afterAll(() => t?.close());

  it("holds no token, code, state or filter value after a sign-in, an account search and a sign-out", async () => {
    const person = { name: "Philippa Quarrington", email: `philippa-${Date.now()}@secret.example`, password: "saffron-otter-lagoon-42" };
    await signUp(t.app, person);
    const { tokens, flow, callback } = await signInFlow(t.app, person);
    // The browser lands on the callback page with the code and state in its URL.
    await t.app.inject({ url: pathOf(callback.href, flow.publicUrl), headers: { accept: "text/html" } });

    const preflight = await t.app.inject({ url: "/api/profile/preflight", headers: apiHeaders(tokens.access_token) });
    const org = preflight.json().createdOrganizationId as string;
    const nameFilter = "Zebediah Quux";
    const emailFilter = "zeb.quux@private.example";
    const search = await t.app.inject({
      url: `/api/accounts?${new URLSearchParams({ name: nameFilter, email: emailFilter, sort: "balance", dir: "desc" })}`,
      headers: apiHeaders(tokens.access_token, org),
    });
    expect(search.statusCode).toBe(200);
    await signOut(t.app, flow.jar, tokens.id_token);

    const text = logs.join("");
    // The requests were logged (the test would prove nothing otherwise), without their values.
    expect(text).toContain('"url":"/oidc/session/end?id_token_hint=[Redacted]&post_logout_redirect_uri=[Redacted]"');
    expect(text).toContain('"url":"/auth-callback?code=[Redacted]&state=[Redacted]');
    expect(text).toContain('"url":"/api/accounts?name=[Redacted]&email=[Redacted]&sort=balance&dir=desc"');
    const code = callback.searchParams.get("code")!;
    const forbidden = {
      "access token": tokens.access_token,
      "ID token": tokens.id_token,
      "ID token signature": tokens.id_token.split(".")[2]!, // a JWT: header.payload.signature
      "refresh token": tokens.refresh_token,
      "authorization code": code,
      state: flow.state,
      nonce: flow.nonce,
      "PKCE verifier": flow.verifier,
      "name filter": nameFilter,
      "name filter, encoded": encodeURIComponent(nameFilter),
      "name filter, form-encoded": "Zebediah+Quux",
      "email filter": emailFilter,
      "email filter, encoded": encodeURIComponent(emailFilter),
      "the person's e-mail": person.email,
      "the person's e-mail, encoded": encodeURIComponent(person.email),
      "the person's name": person.name,
      "the person's password": person.password,
    };
    for (const [what, value] of Object.entries(forbidden)) expect(text.includes(value), `${what} in the log`).toBe(false);
  });
});

/** oidc-provider reports storage failures as `server_error`: the log says what failed, not what was stored. */
describeDb("the identity provider's error log", () => {
  const logs: string[] = [];
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({}, { logs });
    await t.ctx.database.db.execute(sql`alter table idp_records rename to idp_records_gone`);
  });
  afterAll(() => t?.close());

  it("leaves out the failed query's parameters", async () => {
    const { flow, response } = await authorize(t.app, { extra: { login_hint: "hidden.person@secret.example" } });
    expect(response.statusCode).toBe(500);
    const text = logs.join("");
    expect(text).toContain("identity provider error");
    expect(text).toContain("idp_records");
    expect(text).toContain("params: [Redacted]");
    for (const value of [flow.state, flow.nonce, "hidden.person@secret.example", "hidden.person%40secret.example"]) {
      expect(text.includes(value), `${value} in the log`).toBe(false);
    }
  });
  it("writes one line per answered request: its id, method, logged URL, status and time, no header", async () => {
    const before = logs.length;
    const res = await t.app.inject({ url: "/api/health?limit=5&q=private", headers: { authorization: "Bearer not-a-token", cookie: "sid=secret" } });
    const lines = logs
      .slice(before)
      .join("")
      .split("\n")
      .filter((line) => line.includes('"request completed"') && line.includes("/api/health?limit=5"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 30,
      reqId: expect.any(String),
      req: { method: "GET", url: "/api/health?limit=5&q=[Redacted]", remoteAddress: expect.any(String) },
      res: { statusCode: res.statusCode },
      responseTime: expect.any(Number),
      msg: "request completed",
    });
    expect(JSON.stringify(lines[0])).not.toMatch(/not-a-token|sid=secret|headers/);
  });
});
