import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fakeManager, user, type FakeManager } from "./support/fakeManager";

const STORED_USER_KEY = "oidc.user:https://idp.test:client-1";

vi.mock("~/auth/manager", () => ({
  loadUserManager: vi.fn(),
  storedUserKey: () => STORED_USER_KEY,
  isAuthConfigured: () => true,
  configureAuth: vi.fn(),
}));

let um: FakeManager;
let auth: typeof import("~/auth");
let toasts: typeof import("~/ui/toast");

async function load(initial = user() as ReturnType<typeof user> | null) {
  vi.resetModules();
  localStorage.clear();
  um = fakeManager(initial);
  const manager = await import("~/auth/manager");
  vi.mocked(manager.loadUserManager).mockResolvedValue(um as never);
  auth = await import("~/auth");
  toasts = await import("~/ui/toast");
}

const flush = () => new Promise((r) => setTimeout(r, 0));
const toastTitles = () => toasts.useToastStore.getState().toasts.map((t) => [t.title, t.description]);

beforeEach(() => load());
afterEach(() => vi.restoreAllMocks());

describe("getFreshUser", () => {
  it("returns the stored user while its token has more than 60 s left", async () => {
    await expect(auth.getFreshUser()).resolves.toMatchObject({ access_token: "at-1", profile: { sub: "user-1" } });
    expect(um.signinSilent).not.toHaveBeenCalled();
    expect(auth.useAuthStore.getState()).toMatchObject({ isAuthenticated: true, access_token: "at-1" });
  });

  it("renews first when the token is within the 60 s notice", async () => {
    await load(user({ expires_at: Math.floor(Date.now() / 1000) + 30 }));
    um.signinSilent.mockImplementation(async () => (um.stored = user({ access_token: "at-2" })));
    await expect(auth.getFreshUser()).resolves.toMatchObject({ access_token: "at-2" });
    expect(um.signinSilent).toHaveBeenCalledTimes(1);
  });

  it("adopts a token another tab renewed while this one waited, without refreshing", async () => {
    const stale = user({ expires_at: Math.floor(Date.now() / 1000) + 30 });
    await load(stale);
    // getUser still has this tab's copy; the shared record already holds the other tab's renewal.
    um.getUser.mockResolvedValueOnce(stale);
    um.stored = user({ access_token: "at-from-other-tab" });
    await expect(auth.getFreshUser()).resolves.toMatchObject({ access_token: "at-from-other-tab" });
    expect(um.signinSilent).not.toHaveBeenCalled();
  });

  it("runs one renewal for concurrent callers", async () => {
    await load(user({ expires_at: Math.floor(Date.now() / 1000) + 30 }));
    um.signinSilent.mockImplementation(async () => (um.stored = user({ access_token: "at-2" })));
    await Promise.all([auth.getFreshUser(), auth.getFreshUser(), auth.getFreshUser()]);
    expect(um.signinSilent).toHaveBeenCalledTimes(1);
  });

  it("is null when signed out", async () => {
    await load(null);
    await expect(auth.getFreshUser()).resolves.toBeNull();
  });

  it("is null (the next API call signs in again) when an expired token cannot be renewed; the failure is shown", async () => {
    await load(user({ expires_at: Math.floor(Date.now() / 1000) - 5 }));
    um.signinSilent.mockRejectedValue(new Error("invalid_grant"));
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    await expect(auth.getFreshUser()).resolves.toBeNull();
    expect(toastTitles()).toContainEqual(["Error", "invalid_grant"]);
  });
});

describe("a returning person's stored user, without oidc-client-ts", () => {
  /** The record as oidc-client-ts stores it (User.toStorageString). */
  const storeRecord = (u: ReturnType<typeof user>) => localStorage.setItem(STORED_USER_KEY, u.toStorageString());
  const managerLoads = async () => vi.mocked((await import("~/auth/manager")).loadUserManager).mock.calls.length;
  beforeEach(async () => vi.mocked((await import("~/auth/manager")).loadUserManager).mockClear());

  it("is read from storage while its token is good: the manager (and its chunk) is not loaded", async () => {
    storeRecord(user({ access_token: "at-stored" }));
    await expect(auth.getFreshUser()).resolves.toMatchObject({ access_token: "at-stored", profile: { sub: "user-1" } });
    expect(auth.useAuthStore.getState()).toMatchObject({ isAuthenticated: true, access_token: "at-stored" });
    expect(await managerLoads()).toBe(0);
  });

  it("a token within its 60 s notice goes through the manager, which renews it", async () => {
    storeRecord(user({ expires_at: Math.floor(Date.now() / 1000) + 30 }));
    um.stored = user({ expires_at: Math.floor(Date.now() / 1000) + 30 });
    um.signinSilent.mockImplementation(async () => (um.stored = user({ access_token: "at-2" })));
    await expect(auth.getFreshUser()).resolves.toMatchObject({ access_token: "at-2" });
    expect(um.signinSilent).toHaveBeenCalledTimes(1);
  });

  it("when the token comes due, the manager loads and renews it", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    try {
      const expiresAt = Math.floor(Date.now() / 1000) + 120;
      storeRecord(user({ expires_at: expiresAt }));
      um.stored = user({ expires_at: expiresAt });
      um.signinSilent.mockImplementation(async () => (um.stored = user({ access_token: "at-2", expires_at: expiresAt + 3600 })));
      await auth.getFreshUser();
      expect(await managerLoads()).toBe(0);
      await vi.advanceTimersByTimeAsync(61_000);
      await vi.waitFor(() => expect(um.signinSilent).toHaveBeenCalledTimes(1));
      expect(auth.useAuthStore.getState().access_token).toBe("at-2");
    } finally {
      vi.useRealTimers();
    }
  });

  it("another tab's sign-out loads the manager and signs this tab out too", async () => {
    storeRecord(user());
    await auth.getFreshUser();
    expect(auth.useAuthStore.getState().isAuthenticated).toBe(true);
    um.stored = null;
    localStorage.removeItem(STORED_USER_KEY);
    window.dispatchEvent(new StorageEvent("storage", { key: STORED_USER_KEY }));
    await vi.waitFor(() => expect(auth.useAuthStore.getState().isAuthenticated).toBe(false));
  });

  it("once the manager is in use, it alone reads the user", async () => {
    storeRecord(user({ access_token: "at-stored" }));
    await auth.logout();
    await flush();
    um.stored = user({ access_token: "at-manager" });
    await expect(auth.getFreshUser()).resolves.toMatchObject({ access_token: "at-manager" });
  });
});

describe("background renewal", () => {
  it("renews on the access-token-expiring event", async () => {
    await load(user({ expires_at: Math.floor(Date.now() / 1000) + 59 }));
    await auth.getFreshUser().catch(() => undefined); // wires the manager
    um.signinSilent.mockClear();
    um.signinSilent.mockImplementation(async () => (um.stored = user({ access_token: "at-2" })));
    await um.fireExpiring();
    await vi.waitFor(() => expect(um.signinSilent).toHaveBeenCalled());
  });

  it("a failure raises the silent renew error event: logged, and the docs/requirements.md#r-errors error toast", async () => {
    await auth.getFreshUser();
    um.stored = user({ expires_at: Math.floor(Date.now() / 1000) + 59 });
    um.signinSilent.mockRejectedValue(new Error("IFrame timed out without a response"));
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    await um.fireExpiring();
    await vi.waitFor(() => expect(toastTitles()).toContainEqual(["Error", "Frame window timed out"]));
    expect(log).toHaveBeenCalled();
    const shown = toasts.useToastStore.getState().toasts.find((t) => t.title === "Error");
    expect(shown).toMatchObject({ color: "error", icon: "warning" });
  });
});

describe("tabs stay in sync", () => {
  it("follows another tab's renewal and sign-out through the storage event", async () => {
    await auth.getFreshUser();
    um.storeFromOtherTab(user({ access_token: "at-other" }));
    await vi.waitFor(() => expect(auth.useAuthStore.getState().access_token).toBe("at-other"));
    um.storeFromOtherTab(null);
    await vi.waitFor(() => expect(auth.useAuthStore.getState().isAuthenticated).toBe(false));
  });
});

describe("relogin and logout", () => {
  it("relogin keeps the current path and goes to the provider once", async () => {
    window.history.replaceState(null, "", "/inbox?unread=1#top");
    await Promise.all([auth.relogin(), auth.relogin()]);
    expect(auth.useAuthStore.getState().redirect_uri).toBe("/inbox?unread=1#top");
    expect(um.signinRedirect).toHaveBeenCalledTimes(1);
  });

  it("a failing login redirect shows the auth failure toast", async () => {
    um.signinRedirect.mockRejectedValue(new Error("Network Error"));
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    await auth.relogin();
    await vi.waitFor(() => expect(toastTitles()).toContainEqual(["Error", "Network Error"]));
  });

  it("logout revokes the refresh token, clears the user and signs out with id_token_hint to the site root", async () => {
    await auth.getFreshUser();
    await auth.logout();
    await flush();
    expect(um.revokeTokens).toHaveBeenCalledWith(["refresh_token"]);
    expect(um.signoutRedirect).toHaveBeenCalledWith({ id_token_hint: "id-1", post_logout_redirect_uri: `${window.location.origin}/` });
    expect(auth.useAuthStore.getState()).toMatchObject({ user: null, isAuthenticated: false });
  });

  it("logout goes on when revocation fails", async () => {
    um.revokeTokens.mockRejectedValue(new Error("unsupported_token_type"));
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    await auth.logout();
    expect(um.signoutRedirect).toHaveBeenCalled();
  });
});
