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
        // In-process unless NATS_URL is set; its last sequence grows with what is published.
        eventBus: { state: "up", kind: "in-process", lastSeq: t.app.bus.health().lastSeq, detail: `in-process, last sequence ${t.app.bus.health().lastSeq}` },
      },
    });
    await t.app.bus.publish({ type: "platformRemoved", organizationId: crypto.randomUUID(), platformId: crypto.randomUUID() });
    const after = (await t.app.inject({ url: "/api/health" })).json();
    expect(after.dependencies.eventBus.lastSeq).toBe(res.json().dependencies.eventBus.lastSeq + 1);
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

describeDb("GET /api/health with NATS_URL set but NATS unreachable", () => {
  let t: TestApp;
  beforeAll(async () => {
    // Port 1: nothing listens. The password must never show.
    t = await createTestApp({ NATS_URL: "nats://bus-user:Bus-s3cret@127.0.0.1:1" });
  });
  afterAll(() => t?.close());

  it("starts anyway, answers 503 degraded with the event bus connecting, and names the host without credentials", async () => {
    const res = await t.app.inject({ url: "/api/health" });
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json()).toMatchObject({
      status: "degraded",
      dependencies: { database: { state: "up" }, eventBus: { state: "connecting", kind: "nats", detail: expect.stringContaining("127.0.0.1:1") } },
    });
    expect(res.body).not.toContain("Bus-s3cret");
    expect(res.body).not.toContain("bus-user");
  });
});
