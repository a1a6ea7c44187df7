/**
 * A dealer opens the Trades Blotter on the demo organization's simulated servers (docs/requirements.md#r-blotter): assigns the app through the call to action, sees live trades arrive, pauses (the
 * held-back count grows, the grid stays still), resumes, filters by symbol, reads yesterday in
 * historical mode and exports it, and checks the CSV's rows against the grid.
 */
import fs from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { demo, downloaded, launchBrowser, newContext, signInAtProvider } from "./browser.ts";
import { apiAs } from "./support/api.ts";

interface DrawnRow {
  ticket: string;
  symbol: string;
  kind: string;
}

/**
 * The rows AG Grid has drawn, top to bottom (it draws only what is in view). A row is split over
 * the pinned and the centre containers, so cells are gathered by row index.
 */
async function gridRows(page: Page): Promise<DrawnRow[]> {
  return page.locator('[role="region"][aria-label="Trades"]').evaluate((grid) => {
    const rows = new Map<number, Record<string, string>>();
    for (const row of grid.querySelectorAll(".ag-row[row-index]")) {
      const index = Number(row.getAttribute("row-index"));
      const cells = rows.get(index) ?? {};
      for (const cell of row.querySelectorAll("[col-id]")) cells[cell.getAttribute("col-id")!] = cell.textContent?.trim() ?? "";
      rows.set(index, cells);
    }
    return [...rows.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, c]) => ({ ticket: c.ticket ?? "", symbol: c.symbol ?? "", kind: c.kind ?? "" }))
      .filter((r) => r.ticket !== "");
  });
}

/** The number in the grid's status line ("1,234 rows", "56 deals"). */
const statusCount = async (page: Page, noun: "rows" | "deals") => {
  const text = await page
    .getByRole("status")
    .filter({ hasText: new RegExp(`^\\d[\\d,]* ${noun.slice(0, -1)}s?$`) })
    .textContent();
  return Number(text?.replace(/\D/g, "") ?? NaN);
};

/** A downloaded CSV (RFC 4180: quoted cells may hold commas, quotes and line breaks): its header and lines, as cells. */
async function readCsv(path: string): Promise<{ header: string[]; lines: string[][] }> {
  const text = (await fs.readFile(path, "utf8")).replace(/^\ufeff/, "");
  const cellPattern = /("(?:[^"]|"")*"|[^,\r\n]*)(,|\r\n|$)/y;
  const records: string[][] = [];
  let record: string[] = [];
  while (cellPattern.lastIndex < text.length) {
    const [, raw = "", end] = cellPattern.exec(text)!;
    record.push(raw.startsWith('"') ? raw.slice(1, -1).replace(/""/g, '"') : raw);
    if (end !== ",") {
      records.push(record);
      record = [];
    }
  }
  const [header = [], ...lines] = records;
  return { header, lines };
}

/**
 * A time zone where it is early morning now, so "yesterday" covers most of the last 24 hours: the
 * simulated servers' history (open positions' entry deals) reaches back one day from their start.
 */
function earlyMorningZone(now = new Date()): string {
  let offset = 2 - now.getUTCHours();
  if (offset < -12) offset += 24;
  // Etc/GMT names are sign-inverted: Etc/GMT-3 is UTC+3.
  return offset === 0 ? "Etc/GMT" : `Etc/GMT${offset > 0 ? "-" : "+"}${Math.abs(offset)}`;
}

describe("the Trades Blotter as a dealer uses it", () => {
  const zone = earlyMorningZone();
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    browser = await launchBrowser();
    // Wide enough for AG Grid to draw every column (it draws only those in view).
    const context = await newContext(browser, { acceptDownloads: true, viewport: { width: 3200, height: 1000 }, timezoneId: zone });
    page = await context.newPage();
    await page.goto("/apps/trades-blotter");
    await page.waitForURL((u) => u.pathname.startsWith("/oidc/"), { timeout: 20_000 });
    await signInAtProvider(page, demo());
    await page.waitForURL(/\/apps\/trades-blotter/, { timeout: 20_000 });
    // The dealer's own zone is the browser's (decision 0078: else the organization's, UTC here).
    await page.getByRole("button", { name: /^Organization:/ }).waitFor({ timeout: 20_000 });
    const saved = await apiAs(page).call("PUT", "/api/preferences/display", { value: { locale: null, timeZone: zone } });
    expect(saved.status, JSON.stringify(saved.json)).toBe(200);
    await page.reload();
  });
  afterAll(async () => {
    await apiAs(page)
      .call("PUT", "/api/preferences/display", { value: null })
      .catch(() => undefined);
    await browser?.close();
  });

  it("assigns the blotter to the demo servers through the call to action", async () => {
    const cta = page.getByRole("link", { name: "Assign the Trades Blotter" });
    await cta
      .or(page.getByRole("button", { name: "Pause" }))
      .first()
      .waitFor({ timeout: 30_000 });
    // The e2e files share one server: the accessibility test may have assigned it already, the same way.
    if (!(await cta.isVisible())) return;
    await cta.click();
    await page.waitForURL(/AssignApplicationModal/);
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("checkbox").first().waitFor({ timeout: 20_000 });
    for (const box of await dialog.getByRole("checkbox").all()) if (!(await box.isDisabled())) await box.check();
    await dialog.getByRole("button", { name: /^Assign to \d+ platforms?$/ }).click();
    await dialog.waitFor({ state: "detached", timeout: 20_000 });
  });

  it("sees live trades arrive; paused, the held-back count grows and the grid stays still; resumed, they arrive again", async () => {
    await page.goto("/apps/trades-blotter");
    await page.getByText("Live", { exact: true }).waitFor({ timeout: 30_000 });
    // The snapshot: the servers' open positions and recent deals.
    await expect.poll(async () => (await gridRows(page)).length, { timeout: 30_000 }).toBeGreaterThan(0);
    // Then trades as they happen (a few a second on each server).
    const before = await statusCount(page, "rows");
    await expect.poll(() => statusCount(page, "rows"), { timeout: 30_000 }).toBeGreaterThan(before);
    // New rows flash: the page lights the rows that arrived since it last drew (rowFlash.ts), in
    // the grid's colour for a changed value (rowFlash.css).
    const flashing = () =>
      page.evaluate(() => {
        const lit = [...document.querySelectorAll<HTMLElement>('[role="region"][aria-label="Trades"] .ag-row.tb-row-fresh')];
        if (lit.length === 0) return 0;
        const probe = document.createElement("span");
        probe.style.backgroundColor = "var(--ag-value-change-value-highlight-background-color)";
        lit[0]!.append(probe);
        const colour = getComputedStyle(probe).backgroundColor;
        probe.remove();
        return lit.filter((row) => getComputedStyle(row).backgroundColor === colour).length;
      });
    await expect.poll(flashing, { timeout: 30_000, interval: 100 }).toBeGreaterThan(0);

    // Streaming, cell text cannot be selected (rows move under the pointer); paused, it can (a dealer copies a login).
    // Read as the browser applies it (the cell's computed user-select): a double-click's word selection
    // came back empty once in CI while paused, and not in any run since (see the session note).
    const loginSelectable = () =>
      page
        .locator('.ag-row[row-index="0"] .ag-cell[col-id="login"]')
        .first()
        .evaluate((cell) => getComputedStyle(cell).userSelect);
    expect(await loginSelectable()).toBe("none");

    await page.getByRole("button", { name: "Pause" }).click();
    const held = page.getByTestId("held-count");
    await held.waitFor();
    await expect.poll(loginSelectable, { timeout: 10_000 }).toBe("text");
    const heldNumber = async () => Number((await held.textContent())?.replace(/\D/g, "") ?? 0);
    await expect.poll(heldNumber, { timeout: 30_000 }).toBeGreaterThan(0);
    const still = await gridRows(page);
    const count = await statusCount(page, "rows");
    const first = await heldNumber();
    await expect.poll(heldNumber, { timeout: 30_000 }).toBeGreaterThan(first);
    expect(await gridRows(page)).toEqual(still);
    expect(await statusCount(page, "rows")).toBe(count);

    await page.getByRole("button", { name: "Resume" }).click();
    await held.waitFor({ state: "detached" });
    await expect.poll(() => statusCount(page, "rows"), { timeout: 30_000 }).toBeGreaterThan(count);
  });

  it("keeps the member's columns: one hidden in the live grid stays hidden on the next visit, until reset", async () => {
    const comment = page.locator('.ag-header-cell[col-id="comment"]');
    await expect.poll(() => comment.count(), { timeout: 10_000 }).toBe(1);
    const saved = page.waitForResponse((r) => r.request().method() === "PUT" && r.url().includes("tradesBlotter.grid.columns"), { timeout: 15_000 });
    await page.getByRole("button", { name: "Columns" }).click();
    await page.getByRole("menuitemcheckbox", { name: "Comment" }).click();
    await page.keyboard.press("Escape");
    await expect.poll(() => comment.count()).toBe(0);
    expect((await saved).ok()).toBe(true);

    await page.reload();
    await page.getByText("Live", { exact: true }).waitFor({ timeout: 30_000 });
    await expect.poll(async () => (await gridRows(page)).length, { timeout: 30_000 }).toBeGreaterThan(0);
    expect(await comment.count()).toBe(0);

    await page.getByRole("button", { name: "Columns" }).click();
    await page.getByRole("menuitem", { name: "Reset columns" }).click();
    await expect.poll(() => comment.count(), { timeout: 10_000 }).toBe(1);
  });

  it("filters by symbol; the CSV of the paused view holds the grid's rows", async () => {
    // The symbol with the largest net exposure: open positions in it, so rows in every mode.
    const exposure = page.getByRole("complementary", { name: "Totals and exposure" });
    const symbol = (await exposure.getByRole("rowheader").first().textContent())!.trim();
    expect(symbol).toMatch(/^[A-Z0-9.]+$/);
    // Notional in one currency, said; every bar drawn, shorts included (width, not only a value).
    await expect.poll(() => exposure.getByTestId("exposure-currency").textContent(), { timeout: 30_000 }).toMatch(/^Notional in USD/);
    const bars = exposure.getByTestId("bar");
    await expect.poll(() => bars.count(), { timeout: 10_000 }).toBeGreaterThan(0);
    for (const bar of await bars.all()) expect((await bar.boundingBox())!.width).toBeGreaterThan(0);

    await page.getByLabel("Symbol mask").fill(symbol);
    await page.waitForURL((u) => u.searchParams.get("symbol") === symbol, { timeout: 10_000 });
    await expect
      .poll(
        async () => {
          const rows = await gridRows(page);
          return rows.length > 0 && rows.every((r) => r.symbol === symbol);
        },
        { timeout: 30_000 },
      )
      .toBe(true);

    await page.getByRole("button", { name: "Pause" }).click();
    await page.getByTestId("held-count").waitFor();
    const still = await gridRows(page);
    const count = await statusCount(page, "rows");
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV" }).click()]);
    const { header, lines } = await readCsv(await downloaded(download));
    const ticketAt = header.indexOf("Ticket / deal");
    const symbolAt = header.indexOf("Symbol");
    expect(lines).toHaveLength(count);
    expect(lines.every((cells) => cells[symbolAt] === symbol)).toBe(true);
    // The grid's rows, in the grid's order, are the CSV's first lines.
    expect(lines.slice(0, still.length).map((cells) => cells[ticketAt])).toEqual(still.map((r) => r.ticket));
    await page.getByRole("button", { name: "Resume" }).click();
    await page.getByTestId("held-count").waitFor({ state: "detached" });
  });

  it("reads yesterday in historical mode and exports it: the CSV holds every deal the grid counts, the grid's first", async () => {
    const blotter = page.url();
    const symbol = new URL(blotter).searchParams.get("symbol")!;
    // The store read each server's history when it connected: its page says when that is done.
    for (const name of ["Demo MT4", "Demo MT5", "Demo Match-Trader"]) {
      await page.getByRole("link", { name }).first().click();
      await page.waitForURL(/\/tradePlatforms\/\w+\/[0-9a-f-]{36}\/settings$/, { timeout: 20_000 });
      await page.getByText(/^Up to date/).waitFor({ timeout: 60_000 });
    }
    await page.goto(blotter);
    await page.getByRole("button", { name: "Historical" }).click();
    await page.waitForURL((u) => u.searchParams.get("mode") === "history");
    // The default range is yesterday on the dealer's calendar: their own zone (decision 0078),
    // set in beforeAll to the browser's early-morning zone, where yesterday is mostly within the
    // demo servers' last day of history.
    const yesterday = await page.evaluate(() => {
      const d = new Date();
      d.setDate(d.getDate() - 1);
      return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
    });
    expect(new URL(page.url()).searchParams.get("from")).toBe(yesterday);
    // Shown as the member reads dates (their display format; the browser's own by default), not as the native date box would.
    const shownDay = await page.evaluate(
      (day) =>
        new Intl.DateTimeFormat(navigator.language, { timeZone: "UTC", year: "numeric", month: "2-digit", day: "2-digit" }).format(
          new Date(`${day}T00:00:00Z`),
        ),
      yesterday,
    );
    expect(await page.getByLabel("From day").inputValue()).toBe(shownDay);

    // The store backfilled the servers' history when they connected.
    await expect.poll(async () => (await gridRows(page)).length, { timeout: 30_000 }).toBeGreaterThan(0);
    const shown = await gridRows(page);
    expect(shown.every((r) => r.symbol === symbol && r.kind === "Deal")).toBe(true);
    const total = await statusCount(page, "deals");
    expect(total).toBeGreaterThanOrEqual(shown.length);

    const [download] = await Promise.all([page.waitForEvent("download", { timeout: 30_000 }), page.getByRole("button", { name: "Export CSV" }).click()]);
    const { header, lines } = await readCsv(await downloaded(download));
    const dealAt = header.indexOf("Deal");
    const symbolAt = header.indexOf("Symbol");
    // The first time column is in the member's zone (the browser's by default), named in its header: "2026-11-26 14:03:07".
    const utcAt = header.findIndex((h) => h.startsWith("Time (") && h !== "Time (server)");
    expect(utcAt).toBe(0);
    expect(lines).toHaveLength(total);
    expect(lines.every((cells) => cells[symbolAt] === symbol)).toBe(true);
    expect(lines.slice(0, shown.length).map((cells) => cells[dealAt])).toEqual(shown.map((r) => r.ticket));
    // Every line is a deal of yesterday, on the dealer's calendar: the first time column is in their zone already.
    const days = lines.map((cells) => cells[utcAt]!.slice(0, 10));
    expect(new Set(days)).toEqual(new Set([yesterday]));

    // The totals are the whole range's (every line of the CSV), not the rows loaded: computed here
    // from the CSV's raw lines, in cents.
    const panel = page.getByRole("complementary", { name: "Totals and exposure" });
    await expect
      .poll(() => panel.getByTestId("totals-scope").textContent(), { timeout: 30_000 })
      .toBe("Every matching deal of the chosen days, summed on the server.");
    const sideAt = header.indexOf("Side");
    const profitAt = header.indexOf("Profit");
    const trades = lines.filter((cells) => cells[sideAt] === "buy" || cells[sideAt] === "sell");
    const cents = (v: string) => Math.round(Number(v) * 100);
    const drawn = async (label: string) => {
      const text = await panel.getByTestId("blotter-totals").locator("dt", { hasText: label }).locator("xpath=following-sibling::dd[1]").textContent();
      return text!.replace(/,/g, "");
    };
    expect(Number(await drawn("Trade deals"))).toBe(trades.length);
    expect(cents(await drawn("Profit"))).toBe(trades.reduce((sum, cells) => sum + cents(cells[profitAt]!), 0));
  });
});
