/**
 * Every answer carries helmet's security headers (computed once at start, server/http/securityHeaders.ts):
 * a public answer, a refused one and an unknown route alike, and API answers the strict policy.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";

const HELMET = {
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  "origin-agent-cluster": "?1",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "x-dns-prefetch-control": "off",
  "x-download-options": "noopen",
  "x-frame-options": "SAMEORIGIN",
  "x-permitted-cross-domain-policies": "none",
  "x-xss-protection": "0",
};

describeDb("security headers", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());

  it("sets helmet's headers on every answer, and the strict policy on the API's", async () => {
    for (const url of ["/api/health", "/api/members", "/api/no-such-route", "/no-such-page"]) {
      const res = await t.app.inject({ url });
      expect(res.headers, url).toMatchObject(HELMET);
      expect(res.headers["x-powered-by"], url).toBeUndefined();
      if (url.startsWith("/api/")) expect(res.headers["content-security-policy"], url).toBe("default-src 'none'; frame-ancestors 'none'");
    }
  });
});
