/**
 * Done means (issue 27), dealing as a dealer sets it up (docs/dealing.md): on a simulated MT5
 * server a "news" profile with a 20-point EURUSD markup (10 points on the bid, 10 on the ask) and a
 * weekly schedule that switches to it at the next whole minute on the server's clock (the
 * schedule's granularity: the test waits for that minute, 20 to 80 s, on what the page shows). The
 * switch shows on the page and in the inbox; the blotter's EURUSD fills placed after it (by a
 * simulated trader, the demo route) are 10 points worse on each side than those placed before, on
 * the same frozen quote, so the spread they show is 20 points wider; the audit log has the switch.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import type { TradeSymbol } from "../../core/trading/symbol.ts";
import { launchBrowser, newContext } from "./browser.ts";
import { apiAs } from "./support/api.ts";
import { connectSimulatedMt5 } from "./support/platforms.ts";
import { signUp } from "./support/people.ts";

const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
/** A schedule entry's day and time on a UTC server's clock ("Saturday", "09:47"). */
const onServerClock = (at: number) => {
  const d = new Date(at);
  return { day: DAYS[d.getUTCDay()]!, time: d.toISOString().slice(11, 16) };
};

/** The trades grid's drawn rows: each one's position, ticket and price (a row may be split over containers). */
async function blotterRows(page: Page): Promise<{ position: string; ticket: string; price: string }[]> {
  return page.locator('[role="region"][aria-label="Trades"]').evaluate((grid) => {
    const rows = new Map<number, Record<string, string>>();
    for (const row of grid.querySelectorAll(".ag-row[row-index]")) {
      const index = Number(row.getAttribute("row-index"));
      const cells = rows.get(index) ?? {};
      for (const cell of row.querySelectorAll("[col-id]")) cells[cell.getAttribute("col-id")!] = cell.textContent?.trim() ?? "";
      rows.set(index, cells);
    }
    return [...rows.values()].map((c) => ({ position: c.position ?? "", ticket: c.ticket ?? "", price: c.price ?? "" }));
  });
}

describe("dealing: a schedule switches to a news profile", () => {
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    browser = await launchBrowser();
    // Wide enough for the blotter to draw every column (it draws only those in view).
    page = await (await newContext(browser, { viewport: { width: 3200, height: 1000 } })).newPage();
    await signUp(page, { name: "Nina News", email: `nina.${Date.now()}@example.com`, password: "widen-the-spread-1" });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it("switches at the scheduled minute: shown on the page and in the inbox, the blotter's new EURUSD fills 20 points wider, the switch audited", async () => {
    const api = apiAs(page);
    const platform = await connectSimulatedMt5(page, "Dealing MT5", 3);
    type Accounts = { items: { login: string; enabled: boolean; readOnly: boolean }[] };
    const login = (await api.get<Accounts>(`/api/accounts?platformId=${platform}&limit=10`)).items.find((a) => a.enabled && !a.readOnly)!.login;
    const symbols = await api.get<{ items: { object: TradeSymbol }[] }>(`/api/tradePlatforms/${platform}/config/symbols`);
    const point = 10 ** -symbols.items.find((i) => i.object.name === "EURUSD")!.object.digits;

    // The blotter, assigned to the platform through its call to action.
    await page.goto("/apps/trades-blotter");
    await page.getByRole("link", { name: "Assign the Trades Blotter" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("checkbox").first().check();
    await dialog.getByRole("button", { name: /^Assign to 1 platform/ }).click();
    await dialog.waitFor({ state: "detached", timeout: 20_000 });

    // EURUSD's quote stands still until the end (the demo route), so fills before and after the switch meet the same bid and ask.
    const frozen = await api.post(`/api/tradePlatforms/${platform}/simulator/quotes`, { symbol: "EURUSD", stopped: true });
    expect(frozen.status, frozen.text).toBe(200);
    const fill = async (side: "buy" | "sell") => {
      const r = await api.post<{ positionId: string }>(`/api/tradePlatforms/${platform}/simulator/trades`, { login, symbol: "EURUSD", side, lots: 0.01 });
      expect(r.status, r.text).toBe(200);
      return r.json.positionId;
    };
    const normal = { buy: await fill("buy"), sell: await fill("sell") };

    try {
      // The dealing page: a "news" profile with the markup, and a schedule that puts it in force at the next whole minute.
      await page
        .getByRole("complementary", { name: "Sidebar" })
        .getByRole("link", { name: /Dealing MT5/ })
        .click();
      await page.getByRole("navigation", { name: "Trade platform settings sections" }).getByRole("link", { name: "Dealing" }).click();
      const active = page.getByTestId("dealing-active");
      await expect.poll(() => active.textContent(), { timeout: 20_000 }).toMatch(/^normal/);
      await page.getByRole("button", { name: "Add profile" }).click();
      await page.getByRole("group", { name: "Profile profile 2" }).getByLabel("Name").fill("news");
      const news = page.getByRole("group", { name: "Profile news" });
      await news.getByRole("button", { name: "Add markup" }).click();
      await news.getByLabel("Markup target").fill("EURUSD");
      await news.getByLabel("Bid markup").fill("10");
      await news.getByLabel("Ask markup").fill("10");
      await page.getByRole("button", { name: "Add entry" }).click();
      await page.getByRole("button", { name: "Add entry" }).click();
      // The first entry puts "normal" in force (the default profile, already chosen), the second "news".
      await page.getByRole("combobox", { name: "Schedule profile" }).nth(1).click();
      await page.getByRole("option", { name: "news", exact: true }).click();
      // The switch: the next whole minute at least 20 s away (time to save); "normal" from two minutes
      // before it (already past, so normal is in force until the switch: the schedule wraps around the week).
      const switchAt = Math.ceil((Date.now() + 20_000) / 60_000) * 60_000;
      for (const [i, at] of [switchAt - 120_000, switchAt].entries()) {
        const { day, time } = onServerClock(at);
        await page.getByRole("combobox", { name: "Schedule day" }).nth(i).click();
        await page.getByRole("option", { name: day, exact: true }).click();
        await page.getByLabel("Schedule time").nth(i).fill(time);
      }
      await page.getByRole("button", { name: "Save dealing settings" }).click();
      await page.getByRole("status").filter({ hasText: "Saved and recorded in the audit log." }).waitFor({ timeout: 20_000 });
      // Saved before the switch: it is still to come (saved late, news would be in force already, unrecorded).
      const { time } = onServerClock(switchAt);
      expect(await page.getByTestId("dealing-next").textContent()).toMatch(new RegExp(`^Next switch: news at .*${time} \\(Schedule: `));
      expect(await active.textContent()).toMatch(/^normal/);

      // The switch, as the page shows it (it reads the profile in force again a second after the switch).
      await expect.poll(() => active.textContent(), { timeout: switchAt - Date.now() + 30_000, interval: 500 }).toMatch(/^news/);

      // The inbox has it (the notice is published once the server has the profile).
      await page
        .getByRole("navigation", { name: "Areas" })
        .getByRole("link", { name: /^Inbox/ })
        .click();
      await page.getByRole("listitem", { name: /^Unread: Dealing profile "news" in force on Dealing MT5/ }).waitFor({ timeout: 20_000 });

      // New EURUSD fills, under the news profile.
      const widened = { buy: await fill("buy"), sell: await fill("sell") };

      // The blotter: each fill's price, read from the grid.
      await page.getByRole("navigation", { name: "Areas" }).getByRole("link", { name: "Trades Blotter" }).click();
      await page.getByRole("region", { name: "Trades" }).waitFor({ timeout: 30_000 });
      const priceOf = async (positionId: string) => {
        let prices: string[] = [];
        await expect
          .poll(
            async () => {
              prices = [...new Set((await blotterRows(page)).filter((r) => r.position === positionId || r.ticket === positionId).map((r) => r.price))];
              return prices.length;
            },
            { timeout: 30_000, interval: 250 },
          )
          .toBe(1);
        return Number(prices[0]);
      };
      const before = { buy: await priceOf(normal.buy), sell: await priceOf(normal.sell) };
      const after = { buy: await priceOf(widened.buy), sell: await priceOf(widened.sell) };
      const points = (x: number) => Math.round(x / point);
      // On the same quote: a buy 10 points dearer, a sell 10 points cheaper, the spread 20 points wider.
      expect(points(after.buy - before.buy)).toBe(10);
      expect(points(before.sell - after.sell)).toBe(10);
      expect(points(after.buy - after.sell) - points(before.buy - before.sell)).toBe(20);

      // The audit log: the switch, by the schedule, normal → news.
      await page.getByRole("navigation", { name: "Areas" }).getByRole("link", { name: "Logs" }).click();
      const filters = page.getByRole("form", { name: "Audit log filters" });
      await filters.getByLabel("Action").fill("dealing.switched");
      await filters.getByRole("button", { name: "Apply", exact: true }).click();
      const rows = page.getByRole("region", { name: "Audit log" }).getByRole("row").filter({ hasText: "dealing.switched" });
      await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(1);
      await rows.first().click();
      const record = page.getByRole("dialog", { name: "dealing.switched" });
      expect(await record.getByRole("definition").first().textContent()).toMatch(/^Dealing schedule/);
      const profileLine = record
        .getByRole("table", { name: "Changes" })
        .getByRole("row")
        .filter({ has: page.getByRole("rowheader", { name: /^profile\b/ }) });
      expect((await profileLine.getByRole("cell").allTextContents()).map((c) => c.trim())).toEqual(["normal", "news"]);
    } finally {
      await api.post(`/api/tradePlatforms/${platform}/simulator/quotes`, { restore: true });
    }
  }, 240_000);
});
