/**
 * The audit log's range is checked in the form (issue 24 §5), as the blotter's is: a To before
 * the From is a message on the To field, tied to it, and nothing is asked of the API for it.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { afterEach, beforeEach, expect, it, vi } from "vitest";

vi.mock("~/auth", () => ({
  getFreshUser: async () => ({ access_token: "t" }),
  relogin: async () => {},
  useAuthStore: (select: (s: { user: { profile: { sub: string } } }) => unknown) => select({ user: { profile: { sub: "me" } } }),
}));

import { AuditLog } from "~/features/logs/AuditLog";
import { resetProfile, useProfileStore } from "~/profile/store";
import { useDisplayStore } from "~/ui/format";

const ORG = "6f1c3c2e-8a55-4b8e-9d7e-2b7c0e6c9a10";
let fetchSpy: ReturnType<typeof vi.fn>;

beforeEach(() => {
  resetProfile();
  useProfileStore.setState({ currentOrganizationId: ORG });
  useDisplayStore.getState().setPreference({ locale: "en-GB", timeZone: "UTC" });
  fetchSpy = vi.fn(
    async () => new Response(JSON.stringify({ items: [], total: 0, totalCapped: false }), { status: 200, headers: { "content-type": "application/json" } }),
  );
  vi.stubGlobal("fetch", fetchSpy);
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  useDisplayStore.getState().setPreference({});
});

const asked = () => fetchSpy.mock.calls.map(([url]) => String(url instanceof Request ? url.url : url)).filter((u) => u.includes("/api/logs/audit"));

it("a To before the From is the To field's message, and the API is not asked for that range", async () => {
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <MemoryRouter initialEntries={["/logs"]}>
        <AuditLog />
      </MemoryRouter>
    </QueryClientProvider>,
  );
  fireEvent.change(screen.getByLabelText("From"), { target: { value: "27/11/2026 10:00" } });
  fireEvent.change(screen.getByLabelText("To"), { target: { value: "26/11/2026 10:00" } });
  const before = asked().length;
  fireEvent.submit(screen.getByRole("form", { name: "Audit log filters" }));
  const message = await screen.findByText("The end is before the start: choose a later To or an earlier From.");
  const to = screen.getByLabelText("To");
  expect(to.getAttribute("aria-describedby")?.split(" ")).toContain(message.id);
  await new Promise((r) => setTimeout(r, 50));
  expect(
    asked()
      .slice(before)
      .some((u) => u.includes("from=")),
  ).toBe(false);

  // A range in order is taken: the message goes and the range is asked for.
  fireEvent.change(screen.getByLabelText("To"), { target: { value: "28/11/2026 10:00" } });
  fireEvent.submit(screen.getByRole("form", { name: "Audit log filters" }));
  await vi.waitFor(() =>
    expect(asked().some((u) => u.includes("from=2026-11-27T10%3A00%3A00.000Z") && u.includes("to=2026-11-28T10%3A00%3A00.000Z"))).toBe(true),
  );
  expect(screen.queryByText(/The end is before the start/)).toBeNull();
});
