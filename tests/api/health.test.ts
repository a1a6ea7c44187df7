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
});
