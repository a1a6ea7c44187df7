import type { Page } from "playwright-core";
import { expect } from "vitest";
import type { TradePlatformType } from "../../../core/trading/index.ts";
import { apiAs } from "./api.ts";

/**
 * A simulated MT5 server without simulated trading (only what the test does moves its accounts),
 * created through the API as the page's person; answers its id once it is connected.
 */
export async function connectSimulatedMt5(page: Page, name: string, accounts: number): Promise<string> {
  return connectSimulated(page, "MT5", name, accounts);
}

/** The same for any platform type (a simulated server of that type's flavour). */
export async function connectSimulated(page: Page, type: TradePlatformType, name: string, accounts = 3): Promise<string> {
  const api = apiAs(page);
  // Right after a sign-up the app may not have stored its current organization yet (a loaded machine
  // shows it): the API call would go without one.
  await expect
    .poll(
      () =>
        page.evaluate(
          () =>
            (JSON.parse(localStorage.getItem("toolbox-profile") ?? "{}") as { state?: { currentOrganizationId?: string } }).state?.currentOrganizationId ?? "",
        ),
      { timeout: 30_000 },
    )
    .not.toBe("");
  const created = await api.post<{ id: string }>("/api/tradePlatforms", {
    type,
    name,
    timeZone: "UTC",
    connection: { kind: "simulated", accounts, tradeRate: 0 },
  });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  const platformId = created.json.id;
  await expect.poll(async () => (await api.get<{ state: string }>(`/api/tradePlatforms/${platformId}`)).state, { timeout: 60_000 }).toBe("connected");
  return platformId;
}
