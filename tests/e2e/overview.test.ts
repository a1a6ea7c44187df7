/**
 * The overview (`/`) as the demo organization's dealer sees it (docs/requirements.md#r-areas): a tile per
 * demo platform whose figures are those of GET /api/overview (read from the page's own requests),
 * the volume and P/L charts drawn with their 24 h / 7 d toggle and the values at the cursor, the
 * recent inbox (live: a demo server's outage appears without a reload) and the copier's tile.
 * Also the JavaScript `/` preloads, read from the production build these tests run on, held under
 * its bound.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import type { Overview } from "@core/schemas/overview";
import type { InboxPage } from "@core/schemas/notifications";
import { demo, launchBrowser, newContext, signInAtProvider } from "./browser.ts";
import { apiAs } from "./support/api.ts";
import { shellSize } from "../../scripts/shellSize.ts";

/** "1,234.50" / "-3.20" / "—" as a number (NaN for the dash). */
const figure = (text: string) => (text.trim() === "—" ? NaN : Number(text.replace(/,/g, "")));

/** A platform tile's figures by label, as drawn. */
async function tileFigures(page: Page, platformId: string): Promise<Record<string, string>> {
  return page.locator(`[data-platform-id="${platformId}"] [data-testid="platform-figures"]`).evaluate((dl) => {
    const out: Record<string, string> = {};
    const terms = [...dl.querySelectorAll("dt")];
    for (const dt of terms) out[(dt.textContent ?? "").trim()] = dt.nextElementSibling?.textContent?.trim() ?? "";
    return out;
  });
}

describe("the overview as a dealer reads it", () => {
  let browser: Browser;
  let page: Page;
  /** The newest answers the page itself received. */
  let latest: Overview | null = null;
  let inbox: InboxPage | null = null;
  /** How many answers of each the page has received. */
  let overviewAnswers = 0;
  let inboxAnswers = 0;

  beforeAll(async () => {
    browser = await launchBrowser();
    page = await (await newContext(browser, { viewport: { width: 1600, height: 1200 } })).newPage();
    page.on("response", async (response) => {
      const url = new URL(response.url());
      if (!response.ok()) return;
      try {
        if (url.pathname === "/api/overview") {
          latest = (await response.json()) as Overview;
          overviewAnswers++;
        } else if (url.pathname === "/api/inbox" && url.searchParams.get("limit") === "5") {
          inbox = (await response.json()) as InboxPage;
          inboxAnswers++;
        }
      } catch {
        // a body gone with the page: the next answer will do
      }
    });
    await page.goto("/");
    await page.waitForURL((u) => u.pathname.startsWith("/oidc/"), { timeout: 20_000 });
    await signInAtProvider(page, demo());
    await page.waitForURL((u) => u.pathname === "/", { timeout: 20_000 });
  });
  afterAll(() => browser?.close());

  it("records the demo servers' trades: a tile without trade history says so and assigns the Trades Blotter", async () => {
    await page
      .getByRole("heading", { name: /Trade platforms/ })
      .first()
      .waitFor({ timeout: 30_000 });
    await expect.poll(() => latest !== null, { timeout: 30_000 }).toBe(true);
    const cta = page.getByRole("link", { name: "Assign the Trades Blotter to record volume and P/L" }).first();
    if (latest!.platforms.every((p) => p.tradeHistory)) {
      // Another e2e file (they share one server) assigned it already.
      expect(await cta.count()).toBe(0);
      return;
    }
    await cta.click();
    await page.waitForURL(/AssignApplicationModal/);
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("checkbox").first().waitFor({ timeout: 20_000 });
    for (const box of await dialog.getByRole("checkbox").all()) if (!(await box.isDisabled())) await box.check();
    await dialog.getByRole("button", { name: /^Assign to \d+ platforms?$/ }).click();
    await dialog.waitFor({ state: "detached", timeout: 20_000 });
    await page.goto("/");
    await expect.poll(() => latest?.platforms.every((p) => p.tradeHistory), { timeout: 30_000 }).toBe(true);
  });

  it("shows each platform's tile with the figures of /api/overview, live", async () => {
    await expect.poll(() => latest?.platforms.length ?? 0, { timeout: 30_000 }).toBeGreaterThan(0);
    // The page reads the figures again every 5 s: wait until what is drawn is the newest answer.
    await expect
      .poll(
        async () => {
          const answer = latest!;
          const drawn = await Promise.all(answer.platforms.map((p) => tileFigures(page, p.platformId)));
          return answer.platforms.every((p, i) => {
            const d = drawn[i]!;
            return (
              figure(d["Accounts"]!) === p.accounts &&
              figure(d["Open positions"]!) === p.openPositions &&
              figure(d["Volume today (lots)"]!) === Number(p.volumeToday) &&
              figure(d["P/L today"]!) === Number(p.profitToday) &&
              figure(d["Deposits today"]!) === Number(p.depositsToday) &&
              figure(d["Withdrawals today"]!) === Number(p.withdrawalsToday) &&
              figure(d["Credit today (net)"]!) === Number(p.creditToday)
            );
          });
        },
        { timeout: 30_000, interval: 500 },
      )
      .toBe(true);
    for (const p of latest!.platforms) {
      const tile = page.locator(`[data-platform-id="${p.platformId}"]`);
      await expect.poll(() => tile.getByRole("heading").textContent()).toBe(p.name);
      // Connection state from the live stream: the demo's simulated servers are connected.
      await expect.poll(() => tile.textContent(), { timeout: 20_000 }).toMatch(/Connected/);
    }
    // Live: simulated traders keep trading, so a later answer moves the drawn volume.
    const volume = async () => (await Promise.all(latest!.platforms.map((p) => tileFigures(page, p.platformId)))).map((d) => d["Volume today (lots)"]).join();
    const before = await volume();
    await expect.poll(volume, { timeout: 30_000, interval: 1000 }).not.toBe(before);
  });

  it("draws volume and P/L by platform over 24 hours and 7 days, with a table of the same figures", async () => {
    const charts = page.getByTestId("overview-charts");
    await charts.waitFor({ timeout: 30_000 });
    // Drawn with SVG elements (no chart library on the first screen): one per chart.
    await expect.poll(() => charts.locator('svg[data-chart="line"]').count(), { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
    const volumeTable = page.getByRole("table", { name: /^Volume \(lots\) by platform/ });
    expect(await volumeTable.locator("tbody tr").count()).toBe(24);
    const names = latest!.platforms.map((p) => p.name);
    const headers = (await volumeTable.locator("thead th").allTextContents()).slice(1);
    expect(headers.sort()).toEqual([...names].sort());

    await page.getByRole("radio", { name: "7 d" }).click();
    await expect
      .poll(() =>
        page
          .getByRole("table", { name: /^Volume \(lots\) by platform/ })
          .locator("tbody tr")
          .count(),
      )
      .toBe(7);
    await expect
      .poll(
        async () => {
          const answer = latest!;
          const table = page.getByRole("table", { name: /^Volume \(lots\) by platform/ });
          const cols = (await table.locator("thead th").allTextContents()).slice(1);
          const rows = await table.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent ?? "")));
          return cols.every((name, c) => {
            const id = answer.platforms.find((p) => p.name === name)!.platformId;
            const api = answer.daily.filter((d) => d.platformId === id).reduce((a, d) => a + Number(d.volume), 0);
            const drawn = rows.reduce((a, r) => a + figure(r[c]!), 0);
            // Each cell is rounded to 0.01 lot.
            return Math.abs(api - drawn) <= 0.005 * rows.length + 1e-9;
          });
        },
        { timeout: 30_000, interval: 500 },
      )
      .toBe(true);
    expect(await page.getByRole("radio", { name: "7 d" }).getAttribute("aria-checked")).toBe("true");

    // Pointing at the volume chart shows the values at the cursor: the day and each platform's
    // volume, the figures of that day's row in the table.
    const figureOf = page.getByRole("slider", { name: "Volume (lots) at a time" }).locator("xpath=ancestor::figure");
    const readout = figureOf.getByTestId("chart-readout");
    expect(await readout.textContent()).toMatch(/^Point at the chart/);
    const box = (await figureOf.locator('svg[data-chart="line"]').first().boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2);
    await expect.poll(() => readout.textContent(), { timeout: 10_000 }).toMatch(/ \(UTC\)/);
    await expect
      .poll(
        async () => {
          const text = (await readout.textContent()) ?? "";
          const day = text.slice(0, text.indexOf(" (UTC)"));
          const table = page.getByRole("table", { name: /^Volume \(lots\) by platform/ });
          const cols = (await table.locator("thead th").allTextContents()).slice(1);
          const row = (
            await table
              .locator("tbody tr")
              .evaluateAll((trs) =>
                trs.map((tr) => [tr.querySelector("th")?.textContent ?? "", ...[...tr.querySelectorAll("td")].map((td) => td.textContent ?? "")]),
              )
          ).find((r) => r[0] === day);
          return row !== undefined && cols.every((name, c) => text.includes(`${name}: ${row[c + 1]}`));
        },
        { timeout: 15_000, interval: 500 },
      )
      .toBe(true);
    // Leaving the chart clears the readout.
    await page.mouse.move(0, 0);
    await expect.poll(() => readout.textContent(), { timeout: 10_000 }).toMatch(/^Point at the chart/);
  });

  it("lists the five newest inbox items and shows the Trades Copier's tile", async () => {
    const recent = page.getByRole("region", { name: "Recent inbox" });
    await expect.poll(() => inbox !== null, { timeout: 20_000 }).toBe(true);
    expect(await recent.getByRole("link", { name: "Open the inbox" }).getAttribute("href")).toBe("/inbox");
    if (inbox!.items.length) {
      await expect.poll(() => recent.getByRole("listitem").count()).toBe(Math.min(5, inbox!.items.length));
      expect(await recent.getByRole("listitem").first().textContent()).toContain(inbox!.items[0]!.title);
    } else {
      await recent.getByText("No notifications yet", { exact: false }).waitFor();
    }
    // Live: the recent inbox follows the inbox's stream, not a timer. While nothing happens it
    // is not read again (the platform figures are, twice meanwhile) …
    const answers = inboxAnswers;
    const seen = overviewAnswers;
    await expect.poll(() => overviewAnswers, { timeout: 30_000 }).toBeGreaterThanOrEqual(seen + 2);
    expect(inboxAnswers).toBe(answers);
    // … and a new notification (a demo server's link drops) appears without a reload.
    const platform = latest!.platforms[0]!;
    const fault = async (action: string) => (await apiAs(page).post(`/api/tradePlatforms/${platform.platformId}/simulator/faults`, { action })).status;
    try {
      expect(await fault("disconnect")).toBe(200);
      await recent
        .getByRole("listitem")
        .filter({ hasText: `${platform.name} disconnected` })
        .first()
        .waitFor({ timeout: 20_000 });
      // The item may already be listed (an earlier drop of the same platform): the proof is that
      // the inbox's stream made the page read the inbox again.
      await expect.poll(() => inboxAnswers, { timeout: 20_000 }).toBeGreaterThan(answers);
    } finally {
      await fault("restore");
    }

    const copier = page.getByRole("region", { name: "Trades Copier" });
    await copier.waitFor();
    expect(await copier.textContent()).toMatch(/No copy link yet|Copies today/);
  });
});

/**
 * What `/` preloads, from the build's manifest (scripts/shellSize.ts: independent of the machine's
 * load), as sent (Brotli). Issue 30's target is 160 KB as Chromium counts it, after load included;
 * the manifest's figure was 162.9 KB when this bound was set (docs/benchmarks.md). A static import
 * of a grid, a chart library or zod into the shell or the overview adds 25–185 KB and fails here
 * (2026-11-28: a barrel import brought AG Grid, a shared constant brought zod: 376 KB).
 */
describe("the first screen's JavaScript", () => {
  const BOUND_KB = 165;
  it(`is at most ${BOUND_KB} KB (Brotli) in the build's manifest for /`, () => {
    const size = shellSize("build");
    const largest = size.chunks
      .slice()
      .sort((a, b) => b.servedBytes - a.servedBytes)
      .slice(0, 5)
      .map((c) => `${c.file} ${(c.servedBytes / 1024).toFixed(1)} KB`)
      .join(", ");
    expect(size.servedKb, `/ preloads ${size.servedKb} KB; the largest: ${largest}`).toBeLessThanOrEqual(BOUND_KB);
  });
});
