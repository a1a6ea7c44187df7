/**
 * Settings → General (docs/administration.md "Organization profile"): an administrator gets the
 * form; a member without the settings permission the same values read-only, with a note saying
 * who can change them; a bad name is refused at its field, tied to it, before anything is sent;
 * the default time zone is a field of its own, read-only for those who cannot change it.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

vi.mock("~/auth", () => ({
  getFreshUser: async () => ({ access_token: "t" }),
  relogin: async () => {},
  useAuthStore: (select: (s: { user: { profile: { sub: string } } }) => unknown) => select({ user: { profile: { sub: "me" } } }),
}));

import { claimsOfAccess, PRESET_ACCESS } from "@core/roles";
import { OrganizationProfileSection } from "~/features/organization-profile";
import { organizationProfileKey } from "~/features/organization-profile/organizationProfileApi";
import { TimeZonePicker } from "~/features/trade-platforms/form/TimeZonePicker";
import { resetProfile, useProfileStore } from "~/profile/store";

const ORG = "6f1c3c2e-8a55-4b8e-9d7e-2b7c0e6c9a10";
const PROFILE = {
  id: ORG,
  name: "Acme Brokers",
  currency: "EUR",
  timeZone: "Europe/Athens",
  createdAt: "2026-01-01T00:00:00.000Z",
  createdBy: { sub: "founder", name: "Fay Founder" },
};

function show(access: keyof typeof PRESET_ACCESS) {
  useProfileStore.setState({ currentOrganizationId: ORG, claims: claimsOfAccess(PRESET_ACCESS[access], ORG) });
  const client = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
  client.setQueryData(organizationProfileKey(ORG), PROFILE);
  render(
    <QueryClientProvider client={client}>
      <OrganizationProfileSection TimeZonePicker={TimeZonePicker} />
    </QueryClientProvider>,
  );
}

describe("the organization profile form", () => {
  let fetchSpy: ReturnType<typeof vi.fn>;
  beforeEach(() => {
    resetProfile();
    fetchSpy = vi.fn(async () => new Response("{}", { status: 500 }));
    vi.stubGlobal("fetch", fetchSpy);
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it("a member without the settings permission sees the values read-only, and who can change them", () => {
    show("viewer");
    expect(screen.getByText(/Only this organization's administrators can change its name, currency and time zone/)).toBeTruthy();
    const name = screen.getByLabelText<HTMLInputElement>("Name");
    expect(name.value).toBe("Acme Brokers");
    expect(name.readOnly).toBe(true);
    const currency = screen.getByRole<HTMLButtonElement>("combobox", { name: "Currency" });
    expect(currency.textContent).toContain("EUR — Euro");
    expect(currency.disabled).toBe(true);
    const zone = screen.getByLabelText<HTMLButtonElement>("Time zone");
    expect(zone.textContent).toContain("Europe/Athens");
    expect(zone.disabled).toBe(true);
    expect(screen.queryByRole("button", { name: "Save profile" })).toBeNull();
    expect(screen.getByText("Fay Founder")).toBeTruthy();
  });

  it("an administrator edits it; a blank name is refused at the field, tied to it, and nothing is sent", () => {
    show("administrator");
    expect(screen.queryByText(/Only this organization's administrators/)).toBeNull();
    const name = screen.getByLabelText<HTMLInputElement>("Name");
    expect(name.readOnly).toBe(false);
    expect(screen.getByRole<HTMLButtonElement>("combobox", { name: "Currency" }).disabled).toBe(false);
    expect(screen.getByLabelText<HTMLButtonElement>("Time zone").disabled).toBe(false);
    fireEvent.change(name, { target: { value: "   " } });
    fireEvent.click(screen.getByRole("button", { name: "Save profile" }));
    expect(name.getAttribute("aria-invalid")).toBe("true");
    const error = screen.getByText("Enter a name for the organization.");
    expect(name.getAttribute("aria-describedby")?.split(" ")).toContain(error.id);
    expect(fetchSpy).not.toHaveBeenCalled();
  });
});
