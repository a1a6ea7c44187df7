/**
 * Done means (issue 25): a dealer sees a pending order placed by a simulated trader in the Trades
 * Blotter's pending-orders view, and sees it fill (its state becomes Filled, naming the position
 * it opened). A trader of the demo organization's simulated MT5 server (the simulator's demo
 * route, as from a client terminal) places a buy stop and a sell stop of EURUSD at the stops level
 * from the market: the feed soon crosses one of them. The waiting orders are live: they come on the
 * orders stream, and the one that fills leaves the view with no list read again.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { demo, launchBrowser, newContext, signInAtProvider } from "./browser.ts";
import { apiAs } from "./support/api.ts";

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
    // The pending-orders view of one trader of the simulated MT5 server.
    const api = apiAs(page);
    const platforms = await api.get<{ id: string; name: string }[]>("/api/tradePlatforms");
    const mt5 = platforms.find((p) => p.name === "Demo MT5")!.id;
    type Accounts = { items: { login: string; enabled: boolean; readOnly: boolean }[] };
    const accounts = await api.get<Accounts>(`/api/accounts?platformId=${mt5}&sort=balance&dir=desc&limit=5`);
    const login = accounts.items.find((a) => a.enabled && !a.readOnly)!.login;
    // The waiting orders' view reads the stream, never the list (a poll would read it every 2 s).
    let listReads = 0;
    let streams = 0;
    page.on("request", (r) => {
      const path = new URL(r.url()).pathname;
      if (path === "/api/tradesBlotter/orders") listReads++;
      if (path === "/api/tradesBlotter/orders/stream") streams++;
    });
    await page.goto(`/apps/trades-blotter?mode=orders&platforms=${mt5}&login=${login}`);
    await page.getByRole("region", { name: "Pending orders" }).waitFor({ timeout: 30_000 });

    // The trader places a buy stop and a sell stop at the stops level.
    const placed: string[] = [];
    for (const type of ["buyStop", "sellStop"]) {
      const answer = await api.post<{ orderId: string }>(`/api/tradePlatforms/${mt5}/simulator/orders`, {
        login,
        symbol: "EURUSD",
        type,
        lots: 0.01,
        points: 10,
      });
      expect(answer.status, answer.text).toBe(200);
      placed.push(answer.json.orderId);
    }
    const watched = new Set(placed);
    // They come live, waiting; then one of them fills and leaves the view (seen waiting, then gone).
    const seen = new Set<string>();
    await expect
      .poll(
        async () => {
          const rows = await orderRows(page);
          for (const r of rows) if (watched.has(r.order) && r.state === "Waiting") seen.add(r.order);
          const now = new Set(rows.map((r) => r.order));
          return [...seen].some((o) => !now.has(o));
        },
        { timeout: 60_000, interval: 250 },
      )
      .toBe(true);
    expect(streams).toBeGreaterThan(0);
    expect(listReads).toBe(0);

    await page.getByRole("combobox", { name: "Orders shown" }).click();
    await page.getByRole("option", { name: "All, with how they ended" }).click();
    // The one that left now says Filled and names the position it opened.
    await expect
      .poll(async () => (await orderRows(page)).filter((r) => watched.has(r.order) && r.state === "Filled" && r.position !== "").length, {
        timeout: 30_000,
        interval: 500,
      })
      .toBeGreaterThan(0);
  }, 180_000);
});
