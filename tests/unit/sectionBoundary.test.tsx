import { cleanup, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { createRoutesStub } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import SettingsLayout from "~/routes/settings/layout";
import { resetProfile, useProfileStore } from "~/profile/store";
import { SectionBoundary } from "~/ui/SectionBoundary";

let broken = false;
function Flaky() {
  if (broken) throw new Error("broken panel");
  return <p>Members list</p>;
}

describe("error boundaries per page section", () => {
  beforeEach(() => {
    resetProfile();
    useProfileStore.setState({ currentOrganizationId: "a", organizations: [{ id: "a", name: "Acme", createdAt: "2024-01-01T00:00:00.000Z", isAdmin: true }] });
    vi.spyOn(console, "error").mockImplementation(() => {});
  });
  afterEach(() => {
    cleanup();
    vi.restoreAllMocks();
  });

  it("a settings tab that throws shows 'This part could not be shown' in its place; the title and tabs stay, and another tab or Try again recovers", async () => {
    const user = userEvent.setup();
    broken = true;
    const Stub = createRoutesStub([
      {
        path: "/settings",
        Component: SettingsLayout,
        children: [
          { index: true, Component: Flaky },
          { path: "security", Component: () => <p>Security page</p> },
        ],
      },
    ]);
    render(<Stub initialEntries={["/settings"]} />);
    expect((await screen.findByRole("alert")).textContent).toContain("This part could not be shown");
    expect(screen.getByRole("heading", { name: "Settings" })).toBeTruthy();
    expect(screen.getByText("Acme")).toBeTruthy();
    expect(console.error).toHaveBeenCalledWith("Settings could not be shown", expect.any(Error), expect.any(String));

    await user.click(screen.getByRole("link", { name: "Security" }));
    expect(await screen.findByText("Security page")).toBeTruthy();
    expect(screen.queryByRole("alert")).toBeNull();

    await user.click(screen.getByRole("link", { name: "General" }));
    await screen.findByRole("alert");
    broken = false;
    await user.click(screen.getByRole("button", { name: "Try again" }));
    expect(await screen.findByText("Members list")).toBeTruthy();
  });

  it("a panel over the page can be closed from its message", async () => {
    const user = userEvent.setup();
    broken = true;
    const onDismiss = vi.fn();
    render(
      <main>
        <h1>Users</h1>
        <SectionBoundary name="The account panel" onDismiss={onDismiss}>
          <Flaky />
        </SectionBoundary>
      </main>,
    );
    expect(screen.getByRole("heading", { name: "Users" })).toBeTruthy();
    await user.click(screen.getByRole("button", { name: "Close" }));
    expect(onDismiss).toHaveBeenCalledOnce();
  });
});
