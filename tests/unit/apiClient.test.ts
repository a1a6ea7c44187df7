import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

vi.mock("~/auth", () => ({
  getFreshUser: vi.fn(async () => ({ access_token: "fresh-token", token_type: "Bearer", profile: { sub: "u1" } })),
  relogin: vi.fn(async () => {}),
}));

import { getFreshUser, relogin } from "~/auth";
import { ApiError, api } from "~/api";
import { download } from "~/api/download";
import { resetProfile, useProfileStore } from "~/profile/store";
import { useActivityStore } from "~/ui/loadingBar/activity";
import { useToastStore } from "~/ui/toast/store";

const UNAVAILABLE = "Seems that remote service temporary unavailable, please try again later or wait until it get online automatically";
const toasts = () => useToastStore.getState().toasts.map(({ title, description, color, icon }) => ({ title, description, color, icon }));
const respond = (body: BodyInit | null, init: ResponseInit = {}) => vi.mocked(fetch).mockResolvedValueOnce(new Response(body, init));
const lastInit = () => vi.mocked(fetch).mock.calls.at(-1)![1]!;

describe("API client (docs/requirements.md#r-calls, docs/requirements.md#r-errors)", () => {
  beforeEach(() => {
    resetProfile();
    useProfileStore.setState({ currentOrganizationId: "org-1" });
    useToastStore.getState().clear();
    vi.stubGlobal("fetch", vi.fn());
    vi.mocked(relogin).mockClear();
    vi.mocked(getFreshUser).mockClear();
  });
  afterEach(() => vi.unstubAllGlobals());

  it("refreshes the user first and sends OrganizationId, X-Requested-With and the bearer token", async () => {
    respond(JSON.stringify([{ id: "p1" }]), { headers: { "Content-Type": "application/json" } });
    await expect(api.get("/api/tradePlatforms")).resolves.toEqual([{ id: "p1" }]);
    expect(getFreshUser).toHaveBeenCalledTimes(1);
    const [url, init] = vi.mocked(fetch).mock.calls[0]!;
    expect(url).toBe("/api/tradePlatforms");
    expect(init!.method).toBe("GET");
    const headers = new Headers(init!.headers);
    expect(headers.get("OrganizationId")).toBe("org-1");
    expect(headers.get("X-Requested-With")).toBe("XMLHttpRequest");
    expect(headers.get("Authorization")).toBe("Bearer fresh-token");
  });

  it("has POST, PUT, PATCH and DELETE helpers sending the payload as JSON", async () => {
    for (const [call, method] of [
      [() => api.post("/api/x", { name: "A" }), "POST"],
      [() => api.put("/api/x", { name: "A" }), "PUT"],
      [() => api.patch("/api/x", { name: "A" }), "PATCH"],
      [() => api.del("/api/x", { name: "A" }), "DELETE"],
    ] as const) {
      respond(null, { status: 204 });
      await expect(call()).resolves.toBeUndefined();
      expect(lastInit().method).toBe(method);
      expect(lastInit().body).toBe('{"name":"A"}');
      expect(new Headers(lastInit().headers).get("Content-Type")).toBe("application/json");
    }
  });

  it("adds query parameters, leaving out empty ones", async () => {
    respond("[]", { headers: { "Content-Type": "application/json" } });
    await api.get("/api/logs", { query: { from: 1, text: "a b", actor: undefined, platform: null } });
    expect(vi.mocked(fetch).mock.calls[0]![0]).toBe("/api/logs?from=1&text=a+b");
  });

  it("on 401 warns 'Authentication expired' with the body, signs in again and rethrows", async () => {
    respond("Token expired", { status: 401 });
    const error = await api.get("/api/organizations").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(401);
    expect(toasts()).toEqual([{ title: "Authentication expired", description: "Token expired", color: "warning", icon: "warning" }]);
    expect(relogin).toHaveBeenCalledTimes(1);
  });

  it("on 401 without a body says 'Authenticating back...'; several at once show one toast", async () => {
    respond("", { status: 401 });
    respond("", { status: 401 });
    await Promise.allSettled([api.get("/a"), api.get("/b")]);
    expect(toasts()).toEqual([{ title: "Authentication expired", description: "Authenticating back...", color: "warning", icon: "warning" }]);
  });

  it("on 401 signs in again even for silent calls", async () => {
    respond("", { status: 401 });
    await api.get("/a", { silent: true }).catch(() => {});
    expect(relogin).toHaveBeenCalledTimes(1);
    expect(toasts()).toHaveLength(1);
  });

  it("on other failures shows 'Error' with the message of our JSON error, not the raw JSON", async () => {
    respond(JSON.stringify({ statusCode: 403, error: "Forbidden", message: "You are not a member of this organization" }), {
      status: 403,
      headers: { "Content-Type": "application/json" },
    });
    const error = (await api.get("/api/organizations").catch((e: unknown) => e)) as ApiError;
    expect(error.status).toBe(403);
    expect(error.message).toBe("You are not a member of this organization");
    expect(toasts()).toEqual([{ title: "Error", description: "You are not a member of this organization", color: "error", icon: "warning" }]);
    expect(relogin).not.toHaveBeenCalled();
  });

  it("shows a plain-text body as it is", async () => {
    respond("Maintenance until 10:00", { status: 503, headers: { "Content-Type": "text/plain" } });
    await api.get("/x").catch(() => {});
    expect(toasts()[0]!.description).toBe("Maintenance until 10:00");
  });

  it("falls back to the 'temporary unavailable' text for an empty body or a proxy's HTML page", async () => {
    respond("", { status: 500 });
    await api.get("/x").catch(() => {});
    respond("<html><body>502 Bad Gateway</body></html>", { status: 502, headers: { "Content-Type": "text/html" } });
    await api.get("/y").catch(() => {});
    expect(toasts()).toEqual([{ title: "Error", description: UNAVAILABLE, color: "error", icon: "warning" }]);
  });

  it("on a network failure shows the fallback and rethrows with status 0", async () => {
    vi.mocked(fetch).mockRejectedValueOnce(new TypeError("Failed to fetch"));
    const error = (await api.post("/api/organizations", { name: "x" }).catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(0);
    expect(toasts()).toEqual([{ title: "Error", description: UNAVAILABLE, color: "error", icon: "warning" }]);
  });

  it("leaves the toast to the caller when silent", async () => {
    respond(JSON.stringify({ statusCode: 409, error: "Conflict", message: "Name taken" }), { status: 409, headers: { "Content-Type": "application/json" } });
    await expect(api.post("/api/organizations", { name: "x" }, { silent: true })).rejects.toMatchObject({ status: 409, message: "Name taken" });
    expect(toasts()).toEqual([]);
  });

  it("stays quiet when the caller aborts", async () => {
    const controller = new AbortController();
    controller.abort();
    vi.mocked(fetch).mockRejectedValueOnce(new DOMException("Aborted", "AbortError"));
    await expect(api.get("/x", { signal: controller.signal })).rejects.toThrow("Aborted");
    expect(toasts()).toEqual([]);
  });

  it("counts calls in flight for the loading bar", async () => {
    let release!: (r: Response) => void;
    vi.mocked(fetch).mockReturnValueOnce(new Promise((r) => (release = r)));
    const call = api.get("/x");
    await vi.waitFor(() => expect(useActivityStore.getState().pending).toBe(1));
    release(new Response(null, { status: 204 }));
    await call;
    expect(useActivityStore.getState().pending).toBe(0);
  });
});

describe("download helper (docs/requirements.md#r-calls)", () => {
  beforeEach(() => {
    useToastStore.getState().clear();
    vi.stubGlobal("fetch", vi.fn());
    URL.createObjectURL = vi.fn(() => "blob:x");
    URL.revokeObjectURL = vi.fn();
  });
  afterEach(() => vi.unstubAllGlobals());

  it("GETs with the API headers and saves under the Content-Disposition name", async () => {
    const clicked: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this.download);
    });
    respond("a,b\n1,2", { headers: { "Content-Disposition": "attachment; filename*=UTF-8''trades%20%E2%82%AC.csv" } });
    await expect(download("/api/logs/export")).resolves.toBe("trades €.csv");
    expect(new Headers(lastInit().headers).get("Authorization")).toBe("Bearer fresh-token");
    expect(clicked).toEqual(["trades €.csv"]);
  });

  it("saves as 'downloaded-file' without a Content-Disposition", async () => {
    vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => {});
    respond("x");
    await expect(download("/f")).resolves.toBe("downloaded-file");
  });

  it("treats a non-OK status as a failure with an 'Error' toast", async () => {
    respond(JSON.stringify({ statusCode: 404, error: "Not Found", message: "No such export" }), {
      status: 404,
      headers: { "Content-Type": "application/json" },
    });
    await expect(download("/f")).rejects.toBeInstanceOf(ApiError);
    expect(toasts()).toEqual([{ title: "Error", description: "No such export", color: "error", icon: "warning" }]);
  });
});
