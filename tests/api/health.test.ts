import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { describeDb, testDbKind } from "../helpers/db.ts";

describeDb("GET /api/health", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());

  it("answers 200 without a token, with the database under test and the identity provider up", async () => {
    const res = await t.app.inject({ url: "/api/health" });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      status: "ok",
      dependencies: {
        // The kind this project runs against (api-pglite or api-postgres), not either of them.
        database: { state: "up", detail: testDbKind() },
        identityProvider: { state: "up", detail: "embedded" },
      },
    });
  });

  it("publishes the API's OpenAPI document and reference page without a token, and only /api routes in it", async () => {
    const doc = await t.app.inject({ url: "/api/docs/json" });
    expect(doc.statusCode).toBe(200);
    const paths = Object.keys(doc.json().paths);
    expect(paths).toContain("/api/profile/preflight");
    expect(paths).toContain("/api/organizations");
    expect(paths.every((p) => p.startsWith("/api/"))).toBe(true);
    const page = await t.app.inject({ url: "/api/docs" });
    expect(page.statusCode).toBe(200);
  });
});
