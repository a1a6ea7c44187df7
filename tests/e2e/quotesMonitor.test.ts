/**
 * The Quotes Monitor as a dealer uses it (docs/quotes-monitor.md): a simulated server's symbols
 * ticking on the screen; a fault stops EURUSD's feed; within the rule's threshold the row is marked
 * stale and an inbox item arrives; the feed resumes and the alert clears; a weekend on the server's
 * clock shows EURUSD closed, not stale.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { launchBrowser, newContext } from "./browser.ts";
import { apiAs } from "./support/api.ts";
import { connectSimulatedMt5 } from "./support/platforms.ts";
import { signUp } from "./support/people.ts";

describe("the Quotes Monitor: a stopped feed is stale, reaches the inbox and clears; a weekend is closed", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("shows EURUSD ticking, stale when its feed stops, back when it resumes, closed on Saturday", async () => {
    const page = await (await newContext(browser)).newPage();
    await signUp(page, { name: "Quinn Quotes", email: `quinn.${Date.now()}@example.com`, password: "quotes-all-day-1" });
    const api = apiAs(page);
    await page
      .getByRole("link", { name: /Connect a platform/ })
      .first()
      .waitFor({ timeout: 20_000 });
    const platformId = await connectSimulatedMt5(page, "Quotes MT5", 5);
    expect((await api.call("PUT", `/api/tradePlatforms/${platformId}/apps`, [{ app: "quotesMonitor", enabled: true }])).status).toBe(200);
    const rule = await api.post("/api/quotesMonitor/alert-rules", {
      kind: "staleFeed",
      name: "EURUSD silent",
      symbolMask: "EURUSD",
      staleSeconds: 3,
      cooldownSeconds: 0,
    });
    expect(rule.status, rule.text).toBe(201);

    // The navigation leads there; the symbol mask narrows the grid to EURUSD.
    await page.getByRole("navigation", { name: "Areas" }).getByRole("link", { name: "Quotes Monitor" }).click();
    await page.getByRole("heading", { name: "Quotes Monitor" }).waitFor({ timeout: 20_000 });
    await page.getByLabel("Symbols").fill("EURUSD");
    const grid = page.getByRole("region", { name: "Quotes" });
    const row = grid.getByRole("row").filter({ hasText: "Quotes MT5" }).filter({ hasText: "EURUSD" });
    const cell = (colId: string) => row.locator(`[col-id="${colId}"]`);
    await row.waitFor({ timeout: 30_000 });
    await expect.poll(() => grid.getByRole("row").filter({ hasText: "GBPUSD" }).count(), { timeout: 10_000 }).toBe(0);
    // Ticking: the bid changes on screen and the minute's ticks count up.
    const firstBid = await cell("bid").textContent();
    await expect.poll(() => cell("bid").textContent(), { timeout: 20_000 }).not.toBe(firstBid);
    await expect.poll(async () => Number(await cell("ticksPerMinute").textContent()), { timeout: 20_000 }).toBeGreaterThan(0);
    expect(await cell("session").textContent()).toBe("open");
    expect(await cell("alerts").textContent()).toBe("");

    // A fault stops EURUSD's feed: within the threshold the row says stale, and the inbox has the alert.
    expect((await api.post(`/api/tradePlatforms/${platformId}/simulator/quotes`, { symbol: "EURUSD", stopped: true })).status).toBe(200);
    await expect.poll(() => cell("alerts").textContent(), { timeout: 20_000 }).toBe("Stale feed");
    const inboxLink = page.getByRole("navigation", { name: "Areas" }).getByRole("link", { name: /^Inbox/ });
    await expect.poll(async () => (await inboxLink.textContent()) ?? "", { timeout: 20_000 }).toMatch(/1 unread/);
    const items = await api.get<{ items: { title: string; type: string }[] }>("/api/inbox?type=quoteAlert");
    expect(items.items.map((i) => i.title)).toEqual(["EURUSD silent: EURUSD on Quotes MT5"]);

    // The feed resumes: the alert clears on the row, and the clearing reaches the inbox too.
    expect((await api.post(`/api/tradePlatforms/${platformId}/simulator/quotes`, { symbol: "EURUSD", stopped: false })).status).toBe(200);
    await expect.poll(() => cell("alerts").textContent(), { timeout: 20_000 }).toBe("");
    await expect.poll(async () => (await api.get<{ items: unknown[] }>("/api/inbox?type=quoteAlertCleared")).items.length, { timeout: 20_000 }).toBe(1);

    // Saturday on the server's clock: EURUSD does not tick, and the row says closed, not stale.
    expect((await api.post(`/api/tradePlatforms/${platformId}/simulator/quotes`, { serverClock: "2026-11-28T12:00:00Z" })).status).toBe(200);
    await expect.poll(() => cell("session").textContent(), { timeout: 30_000 }).toBe("closed");
    await expect.poll(async () => Number((await cell("silence").textContent())?.replace(/\D/g, "") || 0), { timeout: 20_000 }).toBeGreaterThan(4);
    expect(await cell("alerts").textContent()).toBe("");
    expect((await api.get<{ items: unknown[] }>("/api/inbox?type=quoteAlert")).items).toHaveLength(1);
    await api.post(`/api/tradePlatforms/${platformId}/simulator/quotes`, { restore: true });
  }, 240_000);
});
