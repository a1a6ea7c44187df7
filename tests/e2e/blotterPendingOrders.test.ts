/**
 * Done means (issue 25): a dealer sees a pending order placed by a simulated trader in the Trades
 * Blotter's pending-orders view, and sees it fill (its state becomes Filled, naming the position
 * it opened). The demo organization's simulated servers place pending orders a few spreads from
 * the market; their feed triggers them. The waiting orders are live: they come on the orders
 * stream, and one that fills or is cancelled leaves the view with no list read again.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { demo, launchBrowser, newContext, signInAtProvider } from "./browser.ts";

interface OrderRow {
  order: string;
  state: string;
  position: string;
  type: string;
}

/** The rows the pending-orders grid has drawn, by row index (a row may be split over containers). */
async function orderRows(page: Page): Promise<OrderRow[]> {
  return page.locator('[role="region"][aria-label="Pending orders"]').evaluate((grid) => {
    const rows = new Map<number, Record<string, string>>();
    for (const row of grid.querySelectorAll(".ag-row[row-index]")) {
      const index = Number(row.getAttribute("row-index"));
      const cells = rows.get(index) ?? {};
      for (const cell of row.querySelectorAll("[col-id]")) cells[cell.getAttribute("col-id")!] = cell.textContent?.trim() ?? "";
      rows.set(index, cells);
    }
    return [...rows.values()]
      .map((c) => ({ order: c.order ?? "", state: c.state ?? "", position: c.position ?? "", type: c.type ?? "" }))
      .filter((r) => r.order !== "");
  });
}

describe("pending orders in the Trades Blotter", () => {
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    browser = await launchBrowser();
    const context = await newContext(browser, { viewport: { width: 3200, height: 1000 } });
    page = await context.newPage();
    await page.goto("/apps/trades-blotter");
    await page.waitForURL((u) => u.pathname.startsWith("/oidc/"), { timeout: 20_000 });
    await signInAtProvider(page, demo());
    await page.waitForURL(/\/apps\/trades-blotter/, { timeout: 20_000 });
  });
  afterAll(() => browser?.close());

  it("shows a simulated trader's waiting order, then the same order filled into a position", async () => {
    const cta = page.getByRole("link", { name: "Assign the Trades Blotter" });
    await cta
      .or(page.getByRole("button", { name: "Pause" }))
      .first()
      .waitFor({ timeout: 30_000 });
    // The e2e files share one server: another test may have assigned the blotter already, the same way.
    if (await cta.isVisible()) {
      await cta.click();
      const dialog = page.getByRole("dialog");
      await dialog.getByRole("checkbox").first().waitFor({ timeout: 20_000 });
      for (const box of await dialog.getByRole("checkbox").all()) if (!(await box.isDisabled())) await box.check();
      await dialog.getByRole("button", { name: /^Assign to \d+ platforms?$/ }).click();
      await dialog.waitFor({ state: "detached", timeout: 20_000 });
    }
    await page.goto("/apps/trades-blotter");
    // The waiting orders' view reads the stream, never the list (a poll would read it every 2 s).
    let listReads = 0;
    let streams = 0;
    page.on("request", (r) => {
      const path = new URL(r.url()).pathname;
      if (path === "/api/tradesBlotter/orders") listReads++;
      if (path === "/api/tradesBlotter/orders/stream") streams++;
    });
    await page.getByRole("button", { name: "Pending orders" }).click();
    await page.waitForURL(/mode=orders/);
    let live: string[] = [];
    await expect
      .poll(
        async () => {
          live = (await orderRows(page)).filter((r) => r.state === "Waiting").map((r) => r.order);
          return live.length;
        },
        { timeout: 60_000, interval: 500 },
      )
      .toBeGreaterThan(0);
    // One of them fills (or is cancelled, or expires): it leaves the view.
    const shown = new Set(live);
    await expect
      .poll(
        async () => {
          const now = new Set((await orderRows(page)).map((r) => r.order));
          return [...shown].some((o) => !now.has(o));
        },
        { timeout: 120_000, interval: 500 },
      )
      .toBe(true);
    expect(streams).toBeGreaterThan(0);
    expect(listReads).toBe(0);

    await page.getByRole("combobox", { name: "Orders shown" }).click();
    await page.getByRole("option", { name: "All, with how they ended" }).click();

    // The same orders (those that were waiting), now with how they ended: the one that left filled
    // (or another does), naming the position it opened.
    const watched = shown;
    // One of them fills: the same row now says Filled and names the position it opened.
    await expect
      .poll(async () => (await orderRows(page)).filter((r) => watched.has(r.order) && r.state === "Filled" && r.position !== "").length, {
        timeout: 120_000,
        interval: 1_000,
      })
      .toBeGreaterThan(0);
  }, 300_000);
});
