import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

// The sign-in layer belongs to someone else: mocked at its public face.
vi.mock("~/auth", () => ({
  getFreshUser: vi.fn(async () => ({ access_token: "token-1", token_type: "Bearer", profile: { sub: "u1" } })),
  relogin: vi.fn(async () => {}),
}));

import { PREFLIGHT_RETRY_MS, startPreflight } from "~/profile/preflight";
import { resetProfile, useProfileStore } from "~/profile/store";
import { useToastStore } from "~/ui/toast/store";

const ORG_A = { id: "a", name: "A", createdAt: "2024-01-01T00:00:00.000Z", isAdmin: true };
const ORG_B = { id: "b", name: "B", createdAt: "2024-01-02T00:00:00.000Z", isAdmin: false };
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

type Handler = (url: string) => Response | Promise<Response>;
let calls: string[];
let handlers: Record<string, Handler>;

function stubNetwork() {
  calls = [];
  handlers = {
    "/api/profile/preflight": () => json({ user: { sub: "u1", email: "u@x", name: "U" }, organizationCount: 2, serverTime: "2024-01-01T00:00:00.000Z" }),
    "/api/profile/user-claims": () => json([{ type: "organization:admin", value: "a" }]),
    "/api/organizations": () => json([ORG_A, ORG_B]),
    "/api/tradePlatforms": () =>
      json([
        { id: "p1", organizationId: "a", type: "MT4", name: "Demo MT4", enable: true },
        { id: "p2", organizationId: "b", type: "MT5", name: "Other", enable: false },
      ]),
  };
  vi.stubGlobal(
    "fetch",
    // The API client asks by path.
    vi.fn(async (url: string) => {
      calls.push(url);
      return handlers[url]!(url);
    }),
  );
}

describe("preflight (docs/requirements.md#r-states)", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    localStorage.clear();
    resetProfile();
    useToastStore.getState().clear();
    stubNetwork();
    vi.spyOn(console, "error").mockImplementation(() => {});
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it("calls preflight, then claims and organizations together, then trade platforms, and marks done", async () => {
    let releaseClaims!: () => void;
    handlers["/api/profile/user-claims"] = () =>
      new Promise((resolve) => {
        releaseClaims = () => resolve(json([{ type: "organization:admin", value: "a" }]));
      });
    const stop = startPreflight();
    await vi.advanceTimersByTimeAsync(0);
    // Organizations were asked for while claims were still in flight: the two run together.
    expect(calls).toEqual(["/api/profile/preflight", "/api/profile/user-claims", "/api/organizations"]);
    expect(useProfileStore.getState().preflightDone).toBe(false);
    releaseClaims();
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toEqual(["/api/profile/preflight", "/api/profile/user-claims", "/api/organizations", "/api/tradePlatforms"]);
    const s = useProfileStore.getState();
    expect(s.preflightDone).toBe(true);
    expect(s.appConfig?.organizationCount).toBe(2);
    expect(s.claims).toEqual([{ type: "organization:admin", value: "a" }]);
    expect(s.organizations).toEqual([ORG_A, ORG_B]);
    expect(s.currentOrganizationId).toBe("a");
    expect(s.tradePlatforms.map((p) => p.id)).toEqual(["p1", "p2"]);
    stop();
  });

  it("sends the API headers with every call", async () => {
    startPreflight();
    await vi.advanceTimersByTimeAsync(0);
    const init = vi.mocked(fetch).mock.calls.at(-1)![1]!;
    const headers = new Headers(init.headers);
    expect(headers.get("Authorization")).toBe("Bearer token-1");
    expect(headers.get("X-Requested-With")).toBe("XMLHttpRequest");
    expect(headers.get("OrganizationId")).toBe("a");
  });

  it("logs a failure and retries the whole sequence every 1000 ms until it succeeds, without error toasts", async () => {
    expect(PREFLIGHT_RETRY_MS).toBe(1000);
    let tradePlatformFailures = 2;
    const ok = handlers["/api/tradePlatforms"]!;
    handlers["/api/tradePlatforms"] = (url) =>
      tradePlatformFailures-- > 0 ? json({ statusCode: 500, error: "Internal Server Error", message: "down" }, 500) : ok(url);
    const stop = startPreflight();
    await vi.advanceTimersByTimeAsync(0);
    expect(calls.filter((u) => u === "/api/profile/preflight")).toHaveLength(1);
    expect(console.error).toHaveBeenCalledTimes(1);
    expect(useProfileStore.getState().preflightDone).toBe(false);
    expect(useProfileStore.getState().preflightError).toBe("down");

    await vi.advanceTimersByTimeAsync(999);
    expect(calls.filter((u) => u === "/api/profile/preflight")).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls.filter((u) => u === "/api/profile/preflight")).toHaveLength(2);
    expect(useProfileStore.getState().preflightDone).toBe(false);

    await vi.advanceTimersByTimeAsync(1000);
    expect(calls.filter((u) => u === "/api/profile/preflight")).toHaveLength(3);
    expect(useProfileStore.getState().preflightDone).toBe(true);
    expect(useProfileStore.getState().preflightError).toBeNull();
    expect(useToastStore.getState().toasts).toEqual([]);

    await vi.advanceTimersByTimeAsync(5000);
    expect(calls.filter((u) => u === "/api/profile/preflight")).toHaveLength(3);
    stop();
  });

  it("retries after a network failure too, and stops when asked", async () => {
    let down = true;
    const ok = handlers["/api/profile/preflight"]!;
    handlers["/api/profile/preflight"] = (url) => {
      if (down) throw new TypeError("Failed to fetch");
      return ok(url);
    };
    const stop = startPreflight();
    await vi.advanceTimersByTimeAsync(3000);
    expect(calls.filter((u) => u === "/api/profile/preflight")).toHaveLength(4);
    stop();
    down = false;
    await vi.advanceTimersByTimeAsync(5000);
    expect(calls.filter((u) => u === "/api/profile/preflight")).toHaveLength(4);
    expect(useProfileStore.getState().preflightDone).toBe(false);
  });

  it("keeps the current organization when it still exists, and picks the one just created for a new person", async () => {
    useProfileStore.setState({ currentOrganizationId: "b" });
    startPreflight();
    await vi.advanceTimersByTimeAsync(0);
    expect(useProfileStore.getState().currentOrganizationId).toBe("b");

    resetProfile();
    handlers["/api/profile/preflight"] = () =>
      json({ user: { sub: "u1", email: null, name: null }, organizationCount: 2, createdOrganizationId: "b", serverTime: "2024-01-01T00:00:00.000Z" });
    startPreflight();
    await vi.advanceTimersByTimeAsync(0);
    expect(useProfileStore.getState().currentOrganizationId).toBe("b");
  });
});
