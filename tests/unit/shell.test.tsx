import { cleanup, render, screen } from "@testing-library/react";
import { renderToString } from "react-dom/server";
import { createRoutesStub } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

const auth = vi.hoisted(() => {
  const state: { mode: "raw" | "anonymous" | "authenticated" } = { mode: "anonymous" };
  return state;
});

// The sign-in layer is another team's: its public face is mocked, its guard answers `auth.mode`.
vi.mock("~/auth", async () => {
  const { create } = await import("zustand");
  return {
    useAuthGuard: () => auth.mode,
    useAuthStore: create(() => ({ user: { access_token: "t", token_type: "Bearer", profile: { sub: "u1", name: "Dana Dealer", email: "dana@x" } } })),
    getFreshUser: async () => ({ access_token: "t", token_type: "Bearer", profile: { sub: "u1" } }),
    relogin: async () => {},
    logout: async () => {},
  };
});

import { QueryProvider } from "~/api";
import { AppShell } from "~/features/shell/AppShell";
import { resetProfile } from "~/profile/store";

const json = (body: unknown) => new Response(JSON.stringify(body), { headers: { "Content-Type": "application/json" } });
const ORG = { id: "a", name: "Demo Brokerage", createdAt: "2024-01-01T00:00:00.000Z", isAdmin: true };
const ANSWERS: Record<string, unknown> = {
  "/api/profile/preflight": { user: { sub: "u1", email: "dana@x", name: "Dana" }, organizationCount: 1, serverTime: "2024-01-01T00:00:00.000Z" },
  "/api/profile/user-claims": [{ type: "organization:admin", value: "a" }],
  "/api/organizations": [ORG],
  "/api/tradePlatforms": [{ id: "p1", organizationId: "a", type: "MT5", name: "Live MT5", enable: true }],
};

function Shell() {
  return (
    <QueryProvider>
      <AppShell />
    </QueryProvider>
  );
}

const Stub = createRoutesStub([
  {
    path: "/",
    Component: Shell,
    children: [
      { index: true, Component: () => <h1>Overview page</h1> },
      { path: "health", Component: () => <h1>Health page</h1> },
    ],
  },
]);

describe("root shell modes (docs/requirements.md#r-routes)", () => {
  beforeEach(() => {
    localStorage.clear();
    resetProfile();
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string) => json(ANSWERS[url])),
    );
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it("raw: the page alone, no layout, no preflight", async () => {
    auth.mode = "raw";
    render(<Stub initialEntries={["/health"]} />);
    expect(await screen.findByRole("heading", { name: "Health page" })).toBeTruthy();
    expect(screen.queryByRole("navigation", { name: "Areas" })).toBeNull();
    expect(fetch).not.toHaveBeenCalled();
  });

  it("anonymous: the full-screen 'Signing in...' placeholder", async () => {
    auth.mode = "anonymous";
    render(<Stub initialEntries={["/"]} />);
    expect((await screen.findByRole("status")).textContent).toContain("Signing in...");
    expect(screen.queryByRole("heading", { name: "Overview page" })).toBeNull();
    expect(fetch).not.toHaveBeenCalled();
  });

  it("authenticated: 'Loading...' until preflight is done, then the layout with the page", async () => {
    auth.mode = "authenticated";
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string) => {
        await gate;
        return json(ANSWERS[url]);
      }),
    );
    render(<Stub initialEntries={["/"]} />);
    expect((await screen.findByRole("status")).textContent).toContain("Loading...");
    release();
    expect(await screen.findByRole("heading", { name: "Overview page" })).toBeTruthy();
    expect(screen.getByRole("navigation", { name: "Areas" })).toBeTruthy();
    expect(screen.getByRole("link", { name: /Live MT5/ })).toBeTruthy();
    expect(screen.getByRole("link", { name: "Skip to content" })).toBeTruthy();
    expect(screen.getAllByText("Demo Brokerage").length).toBeGreaterThan(0);
  });

  it("the server renders 'Signing in...' even for a signed-in browser, so hydration matches", () => {
    auth.mode = "authenticated";
    const html = renderToString(<Stub initialEntries={["/"]} />);
    expect(html).toContain("Signing in...");
    expect(html).not.toContain("Overview page");
  });

  it("the server renders raw pages as they are", () => {
    auth.mode = "raw";
    expect(renderToString(<Stub initialEntries={["/health"]} />)).toContain("Health page");
  });
});
