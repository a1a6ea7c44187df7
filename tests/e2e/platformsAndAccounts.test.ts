import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { baseUrl, launchBrowser, newContext } from "./browser.ts";
import { filterUsersToFirstLogin } from "./support/accounts.ts";
import { apiAs } from "./support/api.ts";
import { signUp } from "./support/people.ts";

const money = (s: string) => Number(s.replace(/[^\d.-]/g, ""));

describe("a newcomer connects a simulated MT5 server and manages its accounts", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  it("connects, sees it live, filters /users, deposits 100 exactly once, then deletes the platform", async () => {
    const page = await (await newContext(browser)).newPage();

    // A newcomer: sign up, land in their own empty organization.
    await signUp(page, { name: "Grace Hopper", email: `grace.${Date.now()}@example.com`, password: "cobol-compiler-1959" });
    const api = apiAs(page);

    // Connect a simulated MT5 server (no simulated trading, so only our deposit moves the balance).
    await page
      .getByRole("link", { name: /Connect a platform/ })
      .first()
      .click();
    await page.waitForURL(/\/tradePlatforms\/new$/);
    await page.locator('input[name="type"][value="MT5"]').check();
    await page.locator('input[name="source"][value="simulated"]').check();
    await page.getByLabel("Name").fill("E2E MT5");
    await page.getByLabel("Accounts").fill("40");
    await page.getByLabel("Trade rate").fill("0");
    await page.getByRole("button", { name: "Connect platform" }).click();
    await page.waitForURL(/\/tradePlatforms\/MT5\/[0-9a-f-]{36}\/settings$/, { timeout: 20_000 });
    const platformId = page.url().split("/")[5];

    // Live in the sidebar: the platform's link shows "Connected".
    const sidebarLink = page.getByRole("link", { name: /E2E MT5/ }).first();
    await expect.poll(() => sidebarLink.textContent(), { timeout: 20_000 }).toMatch(/Connected/);

    // /users: the mirrored accounts, filtered down to one login.
    await page.getByRole("link", { name: "Users" }).first().click();
    await page.waitForURL(/\/users/);
    const login = await filterUsersToFirstLogin(page);

    // Open the account and read its balance.
    await page.locator('[role="gridcell"][col-id="login"]').first().click();
    await page.waitForURL((u) => u.searchParams.get("account") === `${platformId}:${login}`);
    const before = (await api.get<{ balance: string }>(`/api/accounts/${platformId}/${login}`)).balance;

    // Deposit 100; a double click on submit must still move the money once.
    await page.getByRole("button", { name: "Balance operation" }).click();
    await page.getByLabel("Amount").fill("100");
    await page.getByLabel(/Comment/).fill("e2e deposit");
    await page.getByRole("dialog").getByRole("button", { name: "Deposit" }).dblclick();
    await page
      .getByRole("dialog")
      .getByText(/Deposit done/)
      .waitFor({ timeout: 15_000 });
    await page.getByRole("dialog").getByRole("button", { name: "Close" }).first().click();

    const after = (await api.get<{ balance: string }>(`/api/accounts/${platformId}/${login}`)).balance;
    expect(money(after) - money(before)).toBeCloseTo(100, 2);
    await expect
      .poll(() =>
        page
          .getByText(Number(money(after)).toLocaleString("en", { minimumFractionDigits: 2 }))
          .first()
          .isVisible(),
      )
      .toBe(true);

    // Delete the platform, confirmed by typing its name; land on the confirmation page.
    await page.goto(`/tradePlatforms/MT5/${platformId}/settings`);
    await page.getByRole("button", { name: "Delete platform" }).click();
    const confirm = page.getByRole("dialog").getByRole("button", { name: "Delete platform" });
    expect(await confirm.isDisabled()).toBe(true);
    await page.getByRole("dialog").getByRole("textbox").fill("E2E MT5");
    await confirm.click();
    await page.waitForURL(`${baseUrl()}/tradePlatforms/tradePlatformDeletedSuccessfully`, { timeout: 15_000 });
    const list = await api.get<{ id: string }[]>("/api/tradePlatforms");
    expect(list.some((p) => p.id === platformId)).toBe(false);
  });
});
