import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fakeManager, type FakeManager } from "./support/fakeManager";

vi.mock("~/auth/manager", () => ({
  loadUserManager: vi.fn(),
  // Nothing is stored under it (localStorage is cleared): every read goes through the fake manager.
  storedUserKey: () => "oidc.user:https://idp.test:client-1",
  isAuthConfigured: () => true,
  configureAuth: vi.fn(),
}));

let um: FakeManager;
let auth: typeof import("~/auth");
let callbacks: typeof import("~/auth/callbacks");
let toasts: typeof import("~/ui/toast");

beforeEach(async () => {
  vi.resetModules();
  localStorage.clear();
  sessionStorage.clear();
  um = fakeManager(null);
  const manager = await import("~/auth/manager");
  vi.mocked(manager.loadUserManager).mockResolvedValue(um as never);
  auth = await import("~/auth");
  callbacks = await import("~/auth/callbacks");
  toasts = await import("~/ui/toast");
  vi.spyOn(console, "error").mockImplementation(() => undefined);
});

afterEach(() => vi.restoreAllMocks());

const origin = window.location.origin;
const lastToast = () => toasts.useToastStore.getState().toasts.at(-1);

describe("sign-in callback (docs/requirements.md#r-routes, docs/requirements.md#r-states)", () => {
  it("signs in and returns to the stored path, once, even if called twice (Strict Mode)", async () => {
    auth.useAuthStore.setState({ redirect_uri: "/settings/members?x=1#y" });
    const url = `${origin}/auth-callback?code=c&state=s`;
    const [a, b] = await Promise.all([auth.completeSignIn(url), auth.completeSignIn(url)]);
    expect([a, b]).toEqual(["/settings/members?x=1#y", "/settings/members?x=1#y"]);
    expect(um.signinRedirectCallback).toHaveBeenCalledTimes(1);
    expect(auth.useAuthStore.getState()).toMatchObject({ isAuthenticated: true, redirect_uri: null });
  });

  it("returns to the callback's parent path when no target is stored", async () => {
    await expect(auth.completeSignIn(`${origin}/auth-callback?code=c&state=s1`)).resolves.toBe("/");
    await expect(auth.completeSignIn(`${origin}/auth-callback.html?code=c&state=s2`)).resolves.toBe("/");
  });

  it("a provider error without state becomes an error with its description", async () => {
    const failure = auth.completeSignIn(`${origin}/auth-callback?error=access_denied&error_description=Sign-in%20cancelled`);
    await expect(failure).rejects.toThrow("Sign-in cancelled");
    expect(um.signinRedirectCallback).not.toHaveBeenCalled();
  });

  it("on failure shows the docs/requirements.md#r-errors error toast and starts a new login", () => {
    expect(callbacks.recoverFromSignInFailure(new Error("Invalid nonce in id_token"), 1_000_000)).toBe(true);
    expect(lastToast()).toMatchObject({ title: "Error", description: "Invalid nonce in id_token", color: "error", icon: "warning" });
    return vi.waitFor(() => expect(um.signinRedirect).toHaveBeenCalledTimes(1));
  });

  it("shows 'unknown error' for an error without text", () => {
    callbacks.recoverFromSignInFailure(undefined, 1_000_000);
    expect(lastToast()).toMatchObject({ title: "Error", description: "unknown error" });
  });

  it("does not loop: a second failure within 10 s stops instead of redirecting again", () => {
    expect(callbacks.recoverFromSignInFailure(new Error("exp is in the past"), 1_000_000)).toBe(true);
    expect(callbacks.recoverFromSignInFailure(new Error("exp is in the past"), 1_005_000)).toBe(false);
    expect(callbacks.recoverFromSignInFailure(new Error("exp is in the past"), 1_020_000)).toBe(true);
  });

  it("parses about 50 redirect parameters at most", () => {
    const many = Array.from({ length: 80 }, (_, i) => `p${i}=${i}`).join("&");
    const limited = new URL(callbacks.limitRedirectParams(`${origin}/auth-callback?code=c&state=s&${many}`));
    expect([...limited.searchParams].length).toBe(50);
    expect(limited.searchParams.get("code")).toBe("c");
    const few = `${origin}/auth-callback?code=c&state=s`;
    expect(callbacks.limitRedirectParams(few)).toBe(few);
  });
});

describe("silent renew and sign-out callbacks", () => {
  it("hands the silent response to the parent window", async () => {
    await auth.completeSilentSignIn(`${origin}/silent-renew?code=c&state=s`);
    expect(um.signinSilentCallback).toHaveBeenCalledWith(`${origin}/silent-renew?code=c&state=s`);
  });

  it("returns to the site root after sign-out", async () => {
    await expect(auth.completeSignOut(`${origin}/logout-callback?state=s`)).resolves.toBe("/");
  });
});
