/**
 * /health says when it was checked through core/format.ts: in UTC as the server renders it (no
 * member known there), then in the browser in the member's zone, here the organization's default
 * as the persisted profile holds it (Asia/Tokyo: 05:20:31 UTC is 14:20:31).
 */
import { cleanup, render, screen } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { afterEach, expect, it } from "vitest";
import { HealthPage } from "~/features/health";
import { resetProfile, useProfileStore } from "~/profile/store";
import { useDisplayStore } from "~/ui/format";

const ORG = "6f1c3c2e-8a55-4b8e-9d7e-2b7c0e6c9a10";

afterEach(() => {
  cleanup();
  resetProfile();
  useDisplayStore.getState().setOrganizationTimeZone(null);
  useDisplayStore.getState().setPreference({});
});

it("shows the time of the check in the organization's zone for a member without their own", async () => {
  useProfileStore.setState({
    currentOrganizationId: ORG,
    organizations: [{ id: ORG, name: "Acme", timeZone: "Asia/Tokyo", createdAt: "2026-01-01T00:00:00.000Z", isAdmin: false }],
  });
  render(
    <MemoryRouter>
      <HealthPage report={{ reachable: false, error: "No answer", checkedAt: "2026-11-23T05:20:31.000Z", latencyMs: 3, httpStatus: 0 }} />
    </MemoryRouter>,
  );
  const checked = await screen.findByText(/\(Asia\/Tokyo\)/);
  expect(checked.textContent).toMatch(/(14|02)[:.]20[:.]31/); // the browser's locale: 24 h or AM/PM
  expect(checked.textContent).toContain("23");
  expect(checked.getAttribute("datetime")).toBe("2026-11-23T05:20:31.000Z");
});
