import { afterAll, beforeAll, expect, it } from "vitest";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { signUp } from "./support/fixtures.ts";

/**
 * A 400 reaches a person in words: no request part or code path in front ("body.settings.url:",
 * "querystring.from:"), no code names ("tradeRate"), no zod wording ("Too big: expected number to be <=100000").
 * The `issues` list keeps the machine paths for forms.
 */
describeDb("validation errors in words", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  let headers: Record<string, string>;
  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
    const ada = newPerson("Ada");
    const organizationId = await signUp(t, tokens, ada);
    headers = apiHeaders(await tokens.mint(ada), organizationId);
  });
  afterAll(() => t?.close());

  const CODE_LIKE = /\b(body|querystring|params)\.|\b[a-z]+[A-Z]\w*\b|Too big|Too small|Invalid input|expected \w+ to/;

  it.each([
    [
      "a webhook with an ftp address",
      {
        method: "POST" as const,
        url: "/api/notifications/channels",
        payload: { kind: "webhook", name: "Hook", settings: { url: "ftp://example.com/x" }, secret: "s".repeat(32) },
      },
      /^URL must be an http:\/\/ or https:\/\/ address/,
    ],
    ["an audit range that is not a date", { method: "GET" as const, url: "/api/logs/audit?from=yesterday" }, /^From must be an ISO 8601 date and time/],
    [
      "a simulated platform with too many trades a second",
      {
        method: "POST" as const,
        url: "/api/tradePlatforms",
        payload: { type: "MT5", name: "Sim", timeZone: "UTC", connection: { kind: "simulated", accounts: 10, tradeRate: 1_000_000, seed: 1 } },
      },
      /^Trade rate is at most 10000 actions per second$/,
    ],
  ])("%s", async (_what, request, message) => {
    const res = await t.app.inject({ ...request, headers });
    expect(res.statusCode).toBe(400);
    const body = res.json<{ message: string; issues?: { path: string }[] }>();
    expect(body.message).toMatch(message);
    expect(body.message).not.toMatch(CODE_LIKE);
    expect(body.issues?.[0]?.path).toMatch(/^(body|querystring)\./);
  });
});
