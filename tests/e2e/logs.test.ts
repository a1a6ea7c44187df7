import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { launchBrowser, newContext } from "./browser.ts";
import { apiAs } from "./support/api.ts";
import { connectSimulatedMt5 } from "./support/platforms.ts";
import { signUp } from "./support/people.ts";

describe("logs: the audit log and the server journal", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("shows a platform just created with its before/after, and tails the simulated platform's journal live", async () => {
    const page = await (await newContext(browser)).newPage();
    await signUp(page, { name: "Lena Logs", email: `lena.${Date.now()}@example.com`, password: "audit-me-please-1" });
    const api = apiAs(page);
    await page
      .getByRole("link", { name: /Connect a platform/ })
      .first()
      .waitFor({ timeout: 20_000 });

    const platformId = await connectSimulatedMt5(page, "Journal MT5", 3);

    // The audit log lists the creation; its side panel shows the after values.
    await page.goto("/logs?action=tradePlatform.created");
    const grid = page.getByRole("region", { name: "Audit log" });
    const row = grid.getByRole("row").filter({ hasText: "tradePlatform.created" });
    await row.first().waitFor({ timeout: 20_000 });
    // The target is shown by its name, not its id.
    await expect.poll(() => grid.getByRole("gridcell", { name: "Journal MT5" }).count()).toBe(1);
    expect(await grid.getByText(platformId).count()).toBe(0);
    await row.first().click();
    const panel = page.getByRole("dialog", { name: "tradePlatform.created" });
    await panel.waitFor();
    const changes = panel.getByRole("table", { name: "Changes" });
    const nameLine = changes.getByRole("row").filter({ has: page.getByRole("rowheader", { name: /^name/ }) });
    await expect.poll(() => nameLine.textContent()).toContain("Journal MT5");
    expect(await nameLine.getAttribute("data-change")).toBe("added");
    await page.keyboard.press("Escape");

    // A date preset fills the range (today, in the member's zone); the creation is today's.
    await page.getByRole("group", { name: "Date presets" }).getByRole("button", { name: "Today" }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get("from")).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    await row.first().waitFor({ timeout: 20_000 });
    // A range the API refuses clears the rows and says why (never the old rows under "No records match").
    await page.goto(`/logs?action=tradePlatform.created&from=2026-02-01T00:00:00.000Z&to=2026-01-01T00:00:00.000Z`);
    await page
      .getByRole("status")
      .filter({ hasText: /from must not be after to/i })
      .waitFor({ timeout: 20_000 });
    expect(await grid.getByRole("row").filter({ hasText: "tradePlatform.created" }).count()).toBe(0);

    // The server journal shows the platform's entries, then a new one without a reload.
    await page.getByRole("navigation", { name: "Logs" }).getByRole("link", { name: "Server journal" }).click();
    const journal = page.getByRole("region", { name: "Server journal" });
    await journal
      .getByText(/connected from/)
      .first()
      .waitFor({ timeout: 20_000 });
    await page.getByText("Live: new entries appear as they are written.").waitFor({ timeout: 20_000 });
    const accounts = await api.call<{ items: { login: string }[] }>("GET", `/api/accounts?platformId=${platformId}&limit=1`);
    const login = accounts.json.items[0]!.login;
    expect((await api.call("PATCH", `/api/accounts/${platformId}/${login}`, { leverage: 77 })).status).toBe(200);
    await journal.getByText(`'${login}': account changed`).first().waitFor({ timeout: 15_000 });

    // Filtered by that login, only its entries stay.
    await page.getByLabel("Login").fill(login);
    await page.getByRole("button", { name: "Apply" }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get("login")).toBe(login);
    await journal.getByText(`'${login}': account changed`).first().waitFor({ timeout: 15_000 });
    await expect.poll(() => journal.getByText(/connected from/).count()).toBe(0);

    // Paused, a further change does not appear; resumed, it does.
    await page.getByRole("button", { name: "Pause live tail" }).click();
    expect((await api.call("PATCH", `/api/accounts/${platformId}/${login}`, { leverage: 88 })).status).toBe(200);
    await page.waitForTimeout(2_500);
    expect(await journal.getByText(/leverage.*88/).count()).toBe(0);
    await page.getByRole("button", { name: "Resume live tail" }).click();
    await journal
      .getByText(/leverage.*88/)
      .first()
      .waitFor({ timeout: 15_000 });
  });
});
