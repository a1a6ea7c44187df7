import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, render, screen } from "@testing-library/react";
import { createRoutesStub } from "react-router";
import { fakeManager, type FakeManager } from "./support/fakeManager";
import { config } from "./support/fakeProvider";

vi.mock("~/auth/manager", () => ({
  loadUserManager: vi.fn(),
  // Nothing is stored under it (localStorage is cleared): every read goes through the fake manager.
  storedUserKey: () => "oidc.user:https://idp.test:client-1",
  isAuthConfigured: () => true,
  configureAuth: vi.fn(),
}));

let um: FakeManager;
let auth: typeof import("~/auth");
let toasts: typeof import("~/ui/toast");

beforeEach(async () => {
  vi.resetModules();
  localStorage.clear();
  sessionStorage.clear();
  um = fakeManager(null);
  const manager = await import("~/auth/manager");
  vi.mocked(manager.loadUserManager).mockResolvedValue(um as never);
  auth = await import("~/auth");
  toasts = await import("~/ui/toast");
  vi.spyOn(console, "error").mockImplementation(() => undefined);
});

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

async function visit(path: string) {
  window.history.replaceState(null, "", path);
  const { default: AuthCallback } = await import("~/routes/auth-callback");
  const { default: LogoutCallback } = await import("~/routes/logout-callback");
  const Stub = createRoutesStub([
    {
      id: "root",
      path: "/",
      loader: () => ({ config }),
      children: [
        { path: "auth-callback", Component: AuthCallback },
        { path: "logout-callback", Component: LogoutCallback },
        { index: true, Component: () => <p>landed</p> },
        { path: "*", Component: () => <p>landed</p> },
      ],
    },
  ]);
  render(<Stub initialEntries={[path]} hydrationData={{ loaderData: { root: { config } } }} />);
  await act(() => new Promise((r) => setTimeout(r, 0)));
}

describe("callback pages", () => {
  it("/auth-callback signs in and lands on the stored return path", async () => {
    auth.useAuthStore.setState({ redirect_uri: "/inbox" });
    await visit("/auth-callback?code=c&state=s");
    expect(await screen.findByText("landed")).toBeTruthy();
    expect(um.signinRedirectCallback).toHaveBeenCalledWith(`${window.location.origin}/auth-callback?code=c&state=s`);
  });

  it("/auth-callback failure: error toast, then a new login", async () => {
    um.signinRedirectCallback.mockRejectedValue(new Error("No matching state found in storage"));
    await visit("/auth-callback?code=c&state=old");
    await vi.waitFor(() => expect(um.signinRedirect).toHaveBeenCalledTimes(1));
    expect(toasts.useToastStore.getState().toasts.at(-1)).toMatchObject({ title: "Error", description: "No matching state found in storage" });
  });

  it("/auth-callback stops with a way out after two failures in a row", async () => {
    sessionStorage.setItem("toolbox-auth-callback-failed-at", String(Date.now()));
    um.signinRedirectCallback.mockRejectedValue(new Error("exp is in the past"));
    await visit("/auth-callback?code=c&state=s");
    expect(await screen.findByRole("button", { name: "Sign in again" })).toBeTruthy();
    expect(um.signinRedirect).not.toHaveBeenCalled();
  });

  it("/logout-callback settles the response and goes to the site root, even on failure", async () => {
    um.signoutRedirectCallback.mockRejectedValue(new Error("No matching state found in storage"));
    await visit("/logout-callback?state=s");
    expect(await screen.findByText("landed")).toBeTruthy();
    expect(toasts.useToastStore.getState().toasts.at(-1)).toMatchObject({ title: "Error" });
  });
});
