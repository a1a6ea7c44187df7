/**
 * The Quotes Monitor's symbol-group filter and its comparison view as a dealer uses them
 * (docs/quotes-monitor.md): picking a group keeps its symbols only; the comparison tab (reached by
 * keyboard) shows EURUSD on both simulated servers with the difference in points, said over or
 * within the threshold typed; explicit pairs added in the symbol mapping make both servers'
 * XAUUSD one instrument named GOLD.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { launchBrowser, newContext } from "./browser.ts";
import { apiAs } from "./support/api.ts";
import { connectSimulatedMt5 } from "./support/platforms.ts";
import { signUp } from "./support/people.ts";

describe("the Quotes Monitor: the symbol-group filter and the comparison across servers", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  // It once failed: the page kept "No platform uses the Quotes Monitor yet", as the monitor took
  // in new assignments only at its next periodic read (5 s), and the page asked before it.
  // Assignments now reach the monitor at once (tests/server/quotesMonitor/newAssignments.test.ts).
  it("filters by symbol group, and compares the same instrument on two servers in points, with explicit pairs", async () => {
    const page = await (await newContext(browser)).newPage();
    await signUp(page, { name: "Cora Compare", email: `cora.${Date.now()}@example.com`, password: "compare-all-day-1" });
    const api = apiAs(page);
    await page
      .getByRole("link", { name: /Connect a platform/ })
      .first()
      .waitFor({ timeout: 20_000 });
    const first = await connectSimulatedMt5(page, "Alpha MT5", 3);
    const second = await api.post<{ id: string }>("/api/tradePlatforms", {
      type: "MT5",
      name: "Beta MT5",
      timeZone: "UTC",
      connection: { kind: "simulated", accounts: 3, tradeRate: 0, seed: 7 },
    });
    expect(second.status).toBe(201);
    for (const id of [first, second.json.id])
      expect((await api.call("PUT", `/api/tradePlatforms/${id}/apps`, [{ app: "quotesMonitor", enabled: true }])).status).toBe(200);

    await page.getByRole("navigation", { name: "Areas" }).getByRole("link", { name: "Quotes Monitor" }).click();
    await page.getByRole("heading", { name: "Quotes Monitor", level: 1 }).waitFor({ timeout: 20_000 });
    const grid = page.getByRole("region", { name: "Quotes" });
    const rows = (symbol: string) => grid.getByRole("row").filter({ hasText: symbol });
    await rows("XAUUSD").first().waitFor({ timeout: 30_000 });

    // The symbol group "Metals" keeps gold and silver (both servers'), not the forex majors; the
    // symbol's own name at the end of MT5's path is no group of its own.
    await page.getByLabel("Symbol group").click();
    await expect.poll(() => page.getByRole("option", { name: "Forex\\Majors\\EURUSD" }).count()).toBe(0);
    await page.getByRole("option", { name: "Metals", exact: true }).click();
    await expect.poll(() => rows("EURUSD").count(), { timeout: 10_000 }).toBe(0);
    await expect.poll(() => rows("XAUUSD").count(), { timeout: 10_000 }).toBe(2);
    expect(await rows("XAGUSD").count()).toBe(2);
    expect(page.url()).toContain("group=Metals");
    await page.getByLabel("Symbol group").click();
    await page.getByRole("option", { name: "Forex\\Majors", exact: true }).click();
    await expect.poll(() => rows("EURUSD").count(), { timeout: 10_000 }).toBe(2);
    expect(await rows("XAUUSD").count()).toBe(0);

    // The comparison tab, by keyboard: focus the selected tab, arrow right.
    const quotesTab = page.getByRole("tab", { name: "Quotes" });
    await quotesTab.focus();
    await page.keyboard.press("ArrowRight");
    const compareTab = page.getByRole("tab", { name: "Comparison across servers" });
    await expect.poll(() => compareTab.getAttribute("aria-selected")).toBe("true");
    expect(page.url()).toContain("view=comparison");
    const comparison = page.getByRole("region", { name: "Comparison" });
    const instrument = (name: string) =>
      comparison.getByRole("row").filter({ has: page.locator(`[col-id="instrument"]`, { hasText: new RegExp(`^${name}$`) }) });
    const eurusd = instrument("EURUSD");
    await eurusd.waitFor({ timeout: 30_000 });
    // Both servers' mids, and the difference in points as a number.
    await expect.poll(async () => (await eurusd.locator('[col-id="differencePoints"]').textContent()) ?? "", { timeout: 20_000 }).toMatch(/^\d+$/);
    for (const name of ["Alpha MT5", "Beta MT5"]) expect(await comparison.getByRole("columnheader", { name }).count()).toBe(1);
    // No cross-server rule and no threshold typed: nothing to be over.
    expect(await eurusd.locator('[col-id="state"]').textContent()).toBe("No threshold");

    // A threshold the difference is over: said in words; one far above: within.
    await page.getByLabel("Highlight over (points)").fill("0");
    await expect.poll(async () => Number(await eurusd.locator('[col-id="differencePoints"]').textContent()), { timeout: 30_000 }).toBeGreaterThan(0);
    await expect.poll(() => eurusd.locator('[col-id="state"]').textContent(), { timeout: 10_000 }).toBe("Over threshold");
    // The row's class comes with the grid's next refresh of that row: poll it too.
    await expect.poll(async () => (await eurusd.getAttribute("class")) ?? "", { timeout: 10_000 }).toContain("tb-compare-over");
    await page.getByLabel("Highlight over (points)").fill("100000000");
    await expect.poll(() => eurusd.locator('[col-id="state"]').textContent(), { timeout: 10_000 }).toBe("Within threshold");

    // Explicit pairs: each server's XAUUSD is GOLD; the XAUUSD row gives way to GOLD.
    const pairForm = page.getByRole("form", { name: "New symbol pair" });
    for (const name of ["Alpha MT5", "Beta MT5"]) {
      await pairForm.getByLabel("Platform").click();
      await page.getByRole("option", { name }).click();
      await pairForm.getByLabel("Its symbol").fill("XAUUSD");
      await pairForm.getByLabel("Is the instrument").fill("GOLD");
      await pairForm.getByRole("button", { name: "Add pair" }).click();
      await page.getByRole("list", { name: "Symbol pairs" }).getByText(`XAUUSD on ${name} is GOLD`).waitFor({ timeout: 10_000 });
    }
    await instrument("GOLD").waitFor({ timeout: 20_000 });
    await expect.poll(() => instrument("XAUUSD").count(), { timeout: 10_000 }).toBe(0);
  }, 240_000);
});
