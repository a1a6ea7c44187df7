// @vitest-environment node
import { afterEach, describe, expect, it, vi } from "vitest";
import { fetchHealth, HEALTH_URL } from "~/features/health";

const json = (body: unknown, status: number) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
const healthy = { status: "ok", version: "1.2.3", dependencies: { database: { state: "up", detail: "pglite" }, identityProvider: { state: "up" } } };

describe("the one health client (the /health page and the debug page's latency)", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("reads the report with its HTTP status and round trip, a degraded 503 included", async () => {
    const fetch = vi.fn(async () => json(healthy, 200));
    vi.stubGlobal("fetch", fetch);
    const report = await fetchHealth();
    expect(fetch.mock.calls[0]).toMatchObject([HEALTH_URL, { cache: "no-store" }]);
    expect(report).toMatchObject({ reachable: true, status: "ok", version: "1.2.3", httpStatus: 200 });
    expect(report.latencyMs).toBeGreaterThanOrEqual(0);

    fetch.mockImplementationOnce(async () => json({ ...healthy, status: "degraded" }, 503));
    expect(await fetchHealth()).toMatchObject({ reachable: true, status: "degraded", httpStatus: 503 });
  });

  it("tells no answer from an answer that is not the service's", async () => {
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => Promise.reject(new TypeError("Failed to fetch"))),
    );
    expect(await fetchHealth()).toMatchObject({ reachable: false, error: "The service does not answer", httpStatus: 0 });
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => new Response("<html>Bad gateway</html>", { status: 502 })),
    );
    expect(await fetchHealth()).toMatchObject({ reachable: false, error: "Unexpected answer (HTTP 502)", httpStatus: 502 });
  });
});
