import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { baseUrl, launchBrowser, newContext, toastsSeen } from "./browser.ts";

/** GET an API path as the page's signed-in person (same token, same organization). */
async function getFromPage<T>(page: Page, path: string): Promise<T> {
  return page.evaluate(async (path) => {
    const key = Object.keys(localStorage).find((k) => k.startsWith("oidc.user:"))!;
    const user = JSON.parse(localStorage.getItem(key)!);
    const profile = JSON.parse(localStorage.getItem("toolbox-profile") ?? "{}");
    const r = await fetch(path, {
      headers: {
        Authorization: `Bearer ${user.access_token}`,
        OrganizationId: profile.state?.currentOrganizationId ?? "",
        "X-Requested-With": "XMLHttpRequest",
      },
    });
    return r.json();
  }, path) as Promise<T>;
}

describe("settings: the organization profile", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("an administrator renames the organization and changes its currency and time zone; the switcher, the blotter's rates and the times shown follow", async () => {
    // The browser sits in Los Angeles: a time shown in Japan's zone below is the organization's, not the browser's.
    const page = await (await newContext(browser, { timezoneId: "America/Los_Angeles", locale: "en-GB" })).newPage();
    await page.goto("/");
    await page.waitForURL((u) => u.pathname.startsWith("/oidc/"), { timeout: 20_000 });
    await page.getByRole("link", { name: "Create an account" }).click();
    await page.getByLabel("Full name").fill("Cora Currency");
    await page.getByLabel("Email").fill(`cora.${Date.now()}@example.com`);
    await page.getByLabel("Password", { exact: true }).fill("euro-books-please-1");
    await page.getByLabel("Confirm password").fill("euro-books-please-1");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL(`${baseUrl()}/`, { timeout: 20_000 });
    await page.getByRole("button", { name: /^Organization:/ }).waitFor({ timeout: 20_000 });

    await page.goto("/settings");
    const save = page.getByRole("button", { name: "Save profile" });
    await save.waitFor({ timeout: 20_000 });
    const currency = page.getByRole("combobox", { name: "Currency" });
    await expect.poll(() => currency.textContent()).toContain("USD — US dollar");

    // A blank name is refused at the field, which says why.
    const name = page.getByLabel("Name", { exact: true });
    await name.fill("   ");
    await save.click();
    await expect.poll(() => name.getAttribute("aria-invalid")).toBe("true");
    const describedBy = (await name.getAttribute("aria-describedby")) ?? "";
    const messages = await Promise.all(describedBy.split(" ").map((id) => page.locator(`[id="${id}"]`).textContent()));
    expect(messages.join(" ")).toContain("Enter a name for the organization.");

    await name.fill("Cora Euro Brokers");
    await currency.click();
    await page.getByRole("option", { name: "EUR — Euro" }).click();
    await expect.poll(() => currency.textContent()).toContain("EUR — Euro");
    await save.click();
    await expect.poll(() => toastsSeen(page).some((t) => t.includes("Organization profile saved")), { timeout: 20_000 }).toBe(true);

    // The switcher says the new name without a reload; the API states figures in EUR.
    await page.getByRole("button", { name: "Organization: Cora Euro Brokers" }).waitFor({ timeout: 20_000 });
    const rates = await getFromPage<{ currency: string }>(page, "/api/tradesBlotter/exposure-rates");
    expect(rates.currency).toBe("EUR");

    // Saved: a reload shows it.
    await page.reload();
    await expect.poll(() => page.getByRole("combobox", { name: "Currency" }).textContent(), { timeout: 20_000 }).toContain("EUR — Euro");
    expect(await page.getByLabel("Name", { exact: true }).inputValue()).toBe("Cora Euro Brokers");

    // The organization's zone (decision 0078): Japan's. A member who chose none sees times in it.
    await page.getByRole("button", { name: "Time zone", description: /members who have not chosen their own/ }).click();
    await page.getByRole("combobox", { name: "Search time zones" }).fill("Tokyo");
    await page.getByRole("option").filter({ hasText: "Tokyo" }).first().click();
    await page.getByRole("button", { name: "Save profile" }).click();
    await expect.poll(() => toastsSeen(page).filter((t) => t.includes("Organization profile saved")).length, { timeout: 20_000 }).toBe(2);
    const [latest] = (await getFromPage<{ items: { at: string; action: string }[] }>(page, "/api/logs/audit?action=organization.updated&limit=1")).items;
    const clock = (timeZone: string) =>
      new Intl.DateTimeFormat("en-GB", { timeZone, hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" }).format(new Date(latest!.at));
    await page.goto("/logs?action=organization.updated");
    const cell = page
      .getByRole("region", { name: "Audit log" })
      .getByRole("gridcell")
      .filter({ hasText: clock("Asia/Tokyo") });
    await expect.poll(() => cell.count(), { timeout: 20_000 }).toBeGreaterThan(0);
    expect(
      await page
        .getByRole("region", { name: "Audit log" })
        .getByRole("gridcell")
        .filter({ hasText: clock("America/Los_Angeles") })
        .count(),
    ).toBe(0);
  });
});
