import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { describeDb } from "../helpers/db.ts";

describeDb("GET /api/health", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());

  it("answers without a token and reports the database", async () => {
    const res = await t.app.inject({ url: "/api/health" });
    const body = res.json();
    expect(body.dependencies.database.state).toBe("up");
    expect(["pglite", "postgres"]).toContain(body.dependencies.database.detail);
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
