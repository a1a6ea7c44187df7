import { cleanup, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { createRoutesStub } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

const auth = vi.hoisted(() => ({ logout: vi.fn(async () => {}) }));
vi.mock("~/auth", async () => {
  const { create } = await import("zustand");
  return {
    useAuthStore: create(() => ({ user: { access_token: "t", token_type: "Bearer", profile: { sub: "u1", name: "Dana Dealer", email: "dana@x" } } })),
    getFreshUser: async () => null,
    relogin: async () => {},
    logout: auth.logout,
  };
});

import { QueryProvider } from "~/api";
import { OrganizationSwitcher } from "~/features/shell/OrganizationSwitcher";
import { UserMenu } from "~/features/shell/UserMenu";
import { resetProfile, useProfileStore } from "~/profile/store";
import { toast, Toaster } from "~/ui/toast";

const ORGS = [
  { id: "a", name: "Demo Brokerage", createdAt: "2024-01-01T00:00:00.000Z", isAdmin: true },
  { id: "b", name: "Second Desk", createdAt: "2024-01-02T00:00:00.000Z", isAdmin: false },
];

function renderInShell(ui: React.ReactNode) {
  const Stub = createRoutesStub([{ path: "/", Component: () => <QueryProvider>{ui}</QueryProvider> }]);
  return render(<Stub initialEntries={["/"]} />);
}

describe("menus and the toaster, whose code loads off the critical path", () => {
  beforeEach(() => {
    resetProfile();
    useProfileStore.setState({ organizations: ORGS, currentOrganizationId: "a" });
  });
  afterEach(() => {
    cleanup();
    vi.restoreAllMocks();
  });

  it("the account button says it opens a menu, and one press opens it once its code has arrived", async () => {
    const user = userEvent.setup();
    renderInShell(<UserMenu />);
    const button = screen.getByRole("button", { name: "Account: Dana Dealer" });
    expect(button.getAttribute("aria-haspopup")).toBe("menu");
    expect(screen.queryByRole("menu")).toBeNull();
    await user.click(button);
    await user.click(await screen.findByRole("menuitem", { name: "Sign out" }));
    expect(auth.logout).toHaveBeenCalledOnce();
  });

  it("opens from the keyboard too, and switches organization from the loaded menu", async () => {
    const user = userEvent.setup();
    renderInShell(<OrganizationSwitcher />);
    screen.getByRole("button", { name: /^Organization: Demo Brokerage/ }).focus();
    await user.keyboard("{Enter}");
    await user.click(await screen.findByRole("menuitemradio", { name: /Second Desk/ }));
    expect(useProfileStore.getState().currentOrganizationId).toBe("b");
    await waitFor(() => expect(screen.getByRole("button", { name: /^Organization: Second Desk/ })).toBeTruthy());
  });

  it("the toaster arrives right after the page hydrates, and a toast raised before it shows when it does", async () => {
    toast({ title: "Saved", color: "success" });
    render(<Toaster />);
    expect(await screen.findByText("Saved")).toBeTruthy();
  });
});
