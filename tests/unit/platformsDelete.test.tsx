import { cleanup, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { createRoutesStub } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

vi.mock("~/auth", () => ({ getFreshUser: async () => ({ access_token: "t" }), relogin: async () => {} }));

import { QueryProvider } from "~/api";
import { emptyPlatformForm, formErrors, newPlatformFrom, platformFormFrom } from "~/features/trade-platforms/form/platformForm";
import type { PlatformDetail } from "~/features/trade-platforms/platformApi";
import { deleteConfirmed } from "~/features/trade-platforms/settings/deleteConfirmation";
import { DeletePlatformDialog, DELETED_PATH } from "~/features/trade-platforms/settings/DeletePlatformDialog";
import { platformPatchFrom } from "~/features/trade-platforms/settings/platformPatch";
import { resetProfile, useProfileStore } from "~/profile/store";

describe("delete confirmation", () => {
  it("only the exact name confirms", () => {
    expect(deleteConfirmed("MT5 Live", "MT5 Live")).toBe(true);
    expect(deleteConfirmed("mt5 live", "MT5 Live")).toBe(false);
    expect(deleteConfirmed("MT5 Live ", "MT5 Live")).toBe(false);
    expect(deleteConfirmed(" MT5 Live", "MT5 Live")).toBe(false);
    expect(deleteConfirmed("MT5", "MT5 Live")).toBe(false);
    expect(deleteConfirmed("", "")).toBe(false);
  });

  describe("dialog", () => {
    const platform = { id: "11111111-1111-4111-8111-111111111111", organizationId: "org-1", type: "MT5" as const, name: "MT5 Live", enable: true };
    beforeEach(() => {
      resetProfile();
      useProfileStore.setState({ currentOrganizationId: "org-1", tradePlatforms: [platform] });
      vi.stubGlobal(
        "fetch",
        vi.fn(async () => new Response(null, { status: 204 })),
      );
    });
    afterEach(() => {
      cleanup();
      vi.unstubAllGlobals();
    });

    it("keeps Delete disabled until the name is typed exactly, then deletes with confirmName and lands on the confirmation", async () => {
      const user = userEvent.setup();
      const Stub = createRoutesStub([
        {
          path: "/",
          Component: () => (
            <QueryProvider>
              <DeletePlatformDialog platform={platform} />
            </QueryProvider>
          ),
        },
        { path: DELETED_PATH, Component: () => <h1>Deleted page</h1> },
      ]);
      render(<Stub initialEntries={["/"]} />);
      await user.click(screen.getByRole("button", { name: "Delete platform" }));
      const dialog = await screen.findByRole("dialog");
      const confirm = () => screen.getAllByRole("button", { name: "Delete platform" }).find((b) => dialog.contains(b)) as HTMLButtonElement;
      const input = screen.getByLabelText(/to confirm/);
      // The dialog opens on the field to type the name into (its first focusable element).
      await waitFor(() => expect(document.activeElement).toBe(input));
      expect(confirm().disabled).toBe(true);
      await user.type(input, "mt5 live");
      expect(confirm().disabled).toBe(true);
      await user.clear(input);
      await user.type(input, "MT5 Live ");
      expect(confirm().disabled).toBe(true);
      await user.type(input, "{Backspace}");
      expect(confirm().disabled).toBe(false);
      await user.click(confirm());
      await screen.findByRole("heading", { name: "Deleted page" });
      const [url, init] = vi.mocked(fetch).mock.calls[0] as unknown as [string, RequestInit];
      expect(url).toBe(`/api/tradePlatforms/${platform.id}`);
      expect(init.method).toBe("DELETE");
      expect(await new Response(init.body).json()).toEqual({ confirmName: "MT5 Live" });
      await waitFor(() => expect(useProfileStore.getState().tradePlatforms).toEqual([]));
    });
  });
});

describe("platform form", () => {
  it("turns a simulated server into the API body", () => {
    const values = { ...emptyPlatformForm("MT4"), name: "  Demo MT4 ", timeZone: "Europe/Nicosia", accounts: "500", tradeRate: "2.5", seed: "42" };
    expect(formErrors(values)).toEqual({});
    expect(newPlatformFrom(values)).toEqual({
      type: "MT4",
      name: "Demo MT4",
      timeZone: "Europe/Nicosia",
      connection: { kind: "simulated", accounts: 500, tradeRate: 2.5, seed: 42 },
    });
  });

  it("asks for what a real server needs, in words", () => {
    const errors = formErrors({ ...emptyPlatformForm("MT5"), source: "server", address: "no-port", timeZone: "Mars/Base" });
    expect(Object.keys(errors).sort()).toEqual(["address", "login", "name", "password", "timeZone"]);
    expect(formErrors({ ...emptyPlatformForm("MatchTrader"), name: "MTR", source: "server", apiUrl: "ftp://x" })).toMatchObject({
      apiUrl: expect.any(String),
      apiKey: expect.any(String),
    });
    expect(
      newPlatformFrom({ ...emptyPlatformForm("MT5"), name: "Live", source: "server", address: "mt5.example.com:443", login: "1000", password: "pw" })
        .connection,
    ).toEqual({
      kind: "mt5WebApi",
      address: "mt5.example.com:443",
      login: "1000",
      password: "pw",
    });
  });

  const saved: PlatformDetail = {
    id: "p1",
    organizationId: "o1",
    type: "MT5",
    name: "Live",
    enable: true,
    timeZone: "UTC",
    createdAt: "",
    updatedAt: "",
    connection: { kind: "mt5WebApi", address: "mt5.example.com:443", login: "1000", hasSecret: true },
    state: "connected",
    lastError: null,
    apps: [],
  };

  it("sends only what changed, and never an untyped secret", () => {
    const before = platformFormFrom(saved);
    expect(before.password).toBe("");
    expect(formErrors(before, { secretStored: true })).toEqual({});
    expect(platformPatchFrom(before, before)).toEqual({});
    expect(platformPatchFrom(before, { ...before, name: "Live 2" })).toEqual({ name: "Live 2" });
    expect(platformPatchFrom(before, { ...before, address: "mt5.example.com:444" })).toEqual({
      connection: { kind: "mt5WebApi", address: "mt5.example.com:444", login: "1000" },
    });
    expect(platformPatchFrom(before, { ...before, password: "new" }).connection).toMatchObject({ password: "new" });
  });
});
