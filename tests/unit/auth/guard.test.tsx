import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, render, screen } from "@testing-library/react";
import { renderToString } from "react-dom/server";
import { hydrateRoot } from "react-dom/client";
import { createRoutesStub, useLocation } from "react-router";
import { fakeManager, user, type FakeManager } from "./support/fakeManager";
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
let manager: typeof import("~/auth/manager");

beforeEach(async () => {
  vi.resetModules();
  localStorage.clear();
  um = fakeManager(null);
  manager = await import("~/auth/manager");
  vi.mocked(manager.loadUserManager).mockResolvedValue(um as never);
  auth = await import("~/auth");
  toasts = await import("~/ui/toast");
});

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

/** The root shell as the layout engineer wires it: mode from useAuthGuard(location.pathname). */
function app(path: string) {
  function Shell() {
    const location = useLocation();
    return <output data-testid="mode">{auth.useAuthGuard(location.pathname)}</output>;
  }
  const Stub = createRoutesStub([{ id: "root", path: "/", Component: Shell, loader: () => ({ config }), children: [{ path: "*", Component: () => null }] }]);
  return <Stub initialEntries={[path]} hydrationData={{ loaderData: { root: { config } } }} />;
}

const mode = () => screen.getByTestId("mode").textContent;
const flush = () => act(() => new Promise((r) => setTimeout(r, 0)));

describe("route guard (docs/requirements.md#r-routes)", () => {
  it.each(["/auth-callback", "/auth-callback.html", "/silent-renew", "/silent-renew.html", "/health"])("lets %s through raw, without login", async (path) => {
    render(app(`${path}?code=x&state=y`));
    await flush();
    expect(mode()).toBe("raw");
    expect(auth.useAuthStore.getState().isRaw).toBe(true);
    expect(manager.loadUserManager).not.toHaveBeenCalled();
    expect(um.signinRedirect).not.toHaveBeenCalled();
    expect(auth.useAuthStore.getState().redirect_uri).toBeNull();
  });

  it("stores the full path as the return target, then sends a signed-out visitor to the provider", async () => {
    render(app("/settings/members?page=2#invite"));
    expect(mode()).toBe("anonymous");
    await flush();
    expect(auth.useAuthStore.getState()).toMatchObject({ redirect_uri: "/settings/members?page=2#invite", isRaw: false });
    expect(manager.configureAuth).toHaveBeenCalledWith(config);
    expect(toasts.useToastStore.getState().toasts).toContainEqual(
      expect.objectContaining({ title: "Authentication expired", description: "Logging you back in...", color: "warning" }),
    );
    expect(um.signinRedirect).toHaveBeenCalledTimes(1);
    expect(mode()).toBe("anonymous");
  });

  it("shows a signed-in user the page (authenticated) without going to the provider", async () => {
    um.stored = user();
    render(app("/inbox"));
    await flush();
    expect(mode()).toBe("authenticated");
    expect(um.signinRedirect).not.toHaveBeenCalled();
    expect(auth.useAuthStore.getState().redirect_uri).toBe("/inbox");
  });

  it("renews an expired token instead of signing in again", async () => {
    um.stored = user({ expires_at: Math.floor(Date.now() / 1000) - 10 });
    um.signinSilent.mockImplementation(async () => (um.stored = user({ access_token: "at-2" })));
    render(app("/logs"));
    await flush();
    await vi.waitFor(() => expect(mode()).toBe("authenticated"));
    expect(auth.useAuthStore.getState().access_token).toBe("at-2");
    expect(um.signinRedirect).not.toHaveBeenCalled();
  });

  it("signs in again when another tab signs out", async () => {
    um.stored = user();
    render(app("/customers"));
    await flush();
    expect(mode()).toBe("authenticated");
    um.storeFromOtherTab(null);
    await vi.waitFor(() => expect(um.signinRedirect).toHaveBeenCalledTimes(1));
    expect(mode()).toBe("anonymous");
  });

  it("renders the same markup on the server and on the first client render (no hydration mismatch)", async () => {
    um.stored = user();
    const html = renderToString(app("/users"));
    expect(html).toContain(">anonymous<");
    const container = document.createElement("div");
    container.innerHTML = html;
    document.body.appendChild(container);
    // Even a client that already holds the user hydrates with the server's "anonymous" first.
    const { setAuthUser } = await import("~/auth/store");
    setAuthUser(user());
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const recoverable = vi.fn();
    await act(async () => {
      hydrateRoot(container, app("/users"), { onRecoverableError: recoverable });
    });
    await flush();
    expect(recoverable).not.toHaveBeenCalled();
    expect(errors).not.toHaveBeenCalled();
    expect(container.textContent).toBe("authenticated");
  });
});
