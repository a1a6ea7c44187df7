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
    await expect.poll(() => grid.getByText(platformId).count()).toBe(1);
    await row.first().click();
    const panel = page.getByRole("dialog", { name: "tradePlatform.created" });
    await panel.waitFor();
    const changes = panel.getByRole("table", { name: "Changes" });
    const nameLine = changes.getByRole("row").filter({ has: page.getByRole("rowheader", { name: /^name/ }) });
    await expect.poll(() => nameLine.textContent()).toContain("Journal MT5");
    expect(await nameLine.getAttribute("data-change")).toBe("added");
    await page.keyboard.press("Escape");

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
