/**
 * The dealing page (app/features/dealing): the profile in force, why and the next switch on the
 * server's clock; a dealer edits a markup in a profile's grid and saves the whole settings (the
 * PUT body carries the edit), the API's refusal shown in its words; a reader sees the settings
 * read-only, with no save and no override.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

vi.mock("~/auth", () => ({ getFreshUser: async () => ({ access_token: "t" }), relogin: async () => {} }));

import type { DealingView } from "@core/dealing/schema";
import { claimsOfAccess } from "@core/roles";
import { dealingQueryKey } from "~/features/dealing/dealingApi";
import { DealingPage } from "~/features/dealing/DealingPage";
import { resetProfile, useProfileStore } from "~/profile/store";

const ORG = "6f1c3c2e-8a55-4b8e-9d7e-2b7c0e6c9a10";
const PLATFORM = "11111111-1111-4111-8111-111111111111";
const profile = (name: string) => ({ name, markups: [], maxDeviationPoints: null, executionDelayMs: 0, maxVolumeLots: null, staleQuoteMs: null });
const VIEW: DealingView = {
  platformId: PLATFORM,
  timeZone: "Europe/London",
  settings: {
    profiles: [profile("normal"), { ...profile("news"), markups: [{ kind: "symbol", target: "EURUSD", bidPoints: 10, askPoints: 10 }] }],
    defaultProfile: "normal",
    schedule: [{ day: "friday", time: "13:30", profile: "news" }],
    holidays: [],
  },
  override: null,
  active: {
    profile: "normal",
    reason: { kind: "schedule", text: "Schedule: monday 00:00" },
    since: "2026-11-23T00:00:00.000Z",
    next: { at: "2026-11-27T13:30:00.000Z", profile: "news", reason: { kind: "schedule", text: "Schedule: friday 13:30" } },
  },
  updatedAt: "2026-11-20T10:00:00.000Z",
};

function show(permissions: ("read" | "write")[]) {
  useProfileStore.setState({ currentOrganizationId: ORG, claims: claimsOfAccess({ admin: false, permissions: { dealing: permissions } }, ORG) });
  const client = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
  client.setQueryData(dealingQueryKey(ORG, PLATFORM), VIEW);
  render(
    <QueryClientProvider client={client}>
      <DealingPage platformId={PLATFORM} />
    </QueryClientProvider>,
  );
}

describe("the dealing page", () => {
  let fetchSpy: ReturnType<typeof vi.fn>;
  beforeEach(() => {
    resetProfile();
    fetchSpy = vi.fn(
      async () => new Response(JSON.stringify({ message: 'Two profiles are named "news"' }), { status: 400, headers: { "content-type": "application/json" } }),
    );
    vi.stubGlobal("fetch", fetchSpy);
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it("shows the profile in force, why, and the next switch on the server's clock", () => {
    show(["read"]);
    expect(screen.getByTestId("dealing-active").textContent).toContain("normal");
    expect(screen.getByTestId("dealing-active").textContent).toContain("Schedule: monday 00:00");
    expect(screen.getByTestId("dealing-next").textContent).toMatch(/^Next switch: news at Fri,? 27 Nov 2026,? 13:30 \(Schedule: friday 13:30\)$/);
  });

  it("a reader sees the settings read-only: no save, no override", () => {
    show(["read"]);
    expect(screen.getAllByLabelText<HTMLInputElement>("Bid markup")[0]!.disabled).toBe(true);
    expect(screen.queryByRole("button", { name: "Save dealing settings" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Override" })).toBeNull();
  });

  it("a dealer edits a markup and saves the whole settings; the API's refusal is shown in its words", async () => {
    show(["read", "write"]);
    fireEvent.change(screen.getAllByLabelText("Ask markup")[0]!, { target: { value: "25" } });
    fireEvent.click(screen.getByRole("button", { name: "Save dealing settings" }));
    await waitFor(() => expect(fetchSpy).toHaveBeenCalled());
    const [url, init] = fetchSpy.mock.calls[0] as [string, RequestInit];
    expect(url).toContain(`/api/tradePlatforms/${PLATFORM}/dealing`);
    expect(init.method).toBe("PUT");
    const body = JSON.parse(init.body as string) as DealingView["settings"];
    expect(body.profiles[1]!.markups).toEqual([{ kind: "symbol", target: "EURUSD", bidPoints: 10, askPoints: 25 }]);
    expect(body.schedule).toEqual(VIEW.settings.schedule);
    expect((await screen.findByRole("alert")).textContent).toContain('Two profiles are named "news"');
  });

  it("a successful save says so, though the editor starts again from the stored settings", async () => {
    const stored = { ...VIEW, updatedAt: "2026-11-28T09:00:00.000Z" };
    fetchSpy.mockResolvedValueOnce(new Response(JSON.stringify(stored), { status: 200, headers: { "content-type": "application/json" } }));
    show(["read", "write"]);
    fireEvent.change(screen.getAllByLabelText("Ask markup")[0]!, { target: { value: "25" } });
    fireEvent.click(screen.getByRole("button", { name: "Save dealing settings" }));
    expect((await screen.findByRole("status")).textContent).toBe("Saved and recorded in the audit log.");
    // Edited again, the message goes: what is shown is no longer what was saved.
    fireEvent.change(screen.getAllByLabelText("Ask markup")[0]!, { target: { value: "30" } });
    expect(screen.queryByRole("status")).toBeNull();
  });
});
