/**
 * A dealer's day on /users and the Trades Blotter at 1440 px (issue 24 §2 and §3): the figures a
 * dealer reads first fit the screen, a view's filters and sort survive a reload, an account is
 * created with its group chosen from the platform's and an initial deposit made once, its details
 * and investor password changed; on the blotter a row's login opens the account, only the newest
 * rows are lit, and a range the API would refuse is a field's message. Screenshots of both screens
 * in light and dark go to test-results/ to be looked at.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Locator, Page } from "playwright-core";
import { demo, launchBrowser, newContext, signInAtProvider, toastsSeen } from "./browser.ts";
import { loginCell } from "./support/accounts.ts";
import { apiAs } from "./support/api.ts";

const WIDTH = 1440;

/** A grid's header cell, drawn and wholly within the window's width (not scrolled off or cut). */
async function headerFits(page: Page, grid: string, colId: string): Promise<boolean> {
  const cell = page.locator(`[role="region"][aria-label="${grid}"] .ag-header-cell[col-id="${colId}"]`).first();
  if (!(await cell.isVisible())) return false;
  const box = await cell.boundingBox();
  const region = await page.locator(`[role="region"][aria-label="${grid}"]`).first().boundingBox();
  return !!box && !!region && box.x >= region.x && box.x + box.width <= Math.min(WIDTH, region.x + region.width) + 1;
}

/** The page's width is the window's: nothing sticks out to the right. */
const noSideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

async function signedIn(browser: Browser, colorScheme: "light" | "dark", path: string): Promise<Page> {
  const context = await newContext(browser, { viewport: { width: WIDTH, height: 900 }, colorScheme });
  const page = await context.newPage();
  await page.goto(path);
  await page.waitForURL((u) => u.pathname.startsWith("/oidc/"), { timeout: 20_000 });
  await signInAtProvider(page, demo());
  await page.waitForURL((u) => u.pathname === path.split("?")[0], { timeout: 20_000 });
  // Signed in, with the organization chosen (the API calls below name it).
  await page.getByRole("button", { name: /^Organization:/ }).waitFor({ timeout: 20_000 });
  return page;
}

const fieldError = (scope: Locator | Page) => scope.locator('p[id$="-error"]');

describe("a dealer at 1440 px", () => {
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    browser = await launchBrowser();
    page = await signedIn(browser, "light", "/users");
  });
  afterAll(() => browser?.close());

  it("/users: balance, equity and margin fit the screen; filters and sort are in the URL and survive a reload", async () => {
    await loginCell(page).waitFor({ timeout: 30_000 });
    for (const col of ["login", "name", "group", "balance", "equity", "margin"]) expect(await headerFits(page, "Trading accounts", col), col).toBe(true);
    expect(await noSideways(page)).toBe(true);

    await page.getByLabel("Group mask").fill("demo*");
    await page.waitForURL((u) => u.searchParams.get("groupMask") === "demo*", { timeout: 10_000 });
    await page.locator('[role="region"][aria-label="Trading accounts"] .ag-header-cell[col-id="equity"] .ag-header-cell-label').click();
    await page.waitForURL((u) => u.searchParams.get("sort") === "equity", { timeout: 10_000 });
    const dir = new URL(page.url()).searchParams.get("dir");
    const shown = async () => (await page.locator('[role="gridcell"][col-id="group"]').allTextContents()).map((t) => t.trim()).filter(Boolean);
    await expect.poll(async () => (await shown()).length, { timeout: 15_000 }).toBeGreaterThan(0);
    expect((await shown()).every((g) => g.startsWith("demo"))).toBe(true);

    await page.reload();
    await loginCell(page).waitFor({ timeout: 30_000 });
    expect(await page.getByLabel("Group mask").inputValue()).toBe("demo*");
    const header = page.locator('[role="region"][aria-label="Trading accounts"] .ag-header-cell[col-id="equity"]');
    await expect.poll(() => header.getAttribute("aria-sort")).toBe(dir === "desc" ? "descending" : "ascending");
    expect((await shown()).every((g) => g.startsWith("demo"))).toBe(true);
    // The equity column reads in the URL's order.
    const equities = (await page.locator('[role="gridcell"][col-id="equity"]').allTextContents()).map((t) => Number(t.replace(/[^\d.-]/g, "")));
    const sorted = [...equities].sort((a, b) => (dir === "desc" ? b - a : a - b));
    expect(equities).toEqual(sorted);

    await page.getByRole("button", { name: /Clear filters/ }).click();
    await page.waitForURL((u) => !u.searchParams.has("groupMask"), { timeout: 10_000 });
  });

  it("creates an account: every form error at once, the platform's groups offered, an initial deposit made once", async () => {
    await page.getByRole("button", { name: "Create account" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("button", { name: "Create account" }).click();
    // Platform, name, group and password at once (the demo has three platforms: none is chosen).
    await expect.poll(() => fieldError(dialog).count()).toBeGreaterThanOrEqual(4);
    const errors = await fieldError(dialog).allTextContents();
    for (const message of errors) expect(message).not.toMatch(/body\.|querystring\./);
    await dialog.getByText(/Correct the \d+ fields marked above/).waitFor();
    await page.screenshot({ path: "test-results/users-create-errors-1440-light.png" });

    await dialog.getByRole("combobox", { name: "Platform" }).click();
    await page.getByRole("option", { name: /Demo MT5/ }).click();
    await dialog.getByLabel("Name").fill("Dana Dealer-Test");
    // The group is chosen from the platform's own groups, by their names there.
    await dialog.getByRole("combobox", { name: "Group" }).click();
    const option = page.getByRole("option", { name: /^demo\\retail-usd/ }).first();
    await option.waitFor({ timeout: 15_000 });
    await option.click();
    await dialog.getByRole("button", { name: "Generate" }).click();
    await dialog.getByLabel(/Initial deposit/).fill("999999999999999");
    await dialog.getByRole("button", { name: "Create account" }).click();
    await dialog.getByText(/too large/).waitFor();
    expect(await fieldError(dialog).allTextContents()).toEqual([expect.stringMatching(/^amount is too large/)]);
    await dialog.getByLabel(/Initial deposit/).fill("1,250.50");
    await dialog.getByRole("button", { name: "Create account" }).click();

    // The new account opens in its panel, with the deposit in its balance.
    await page.waitForURL((u) => (u.searchParams.get("account") ?? "").length > 0, { timeout: 30_000 });
    const [platformId, login] = new URL(page.url()).searchParams.get("account")!.split(":") as [string, string];
    const api = apiAs(page);
    await expect.poll(async () => (await api.get<{ balance: string }>(`/api/accounts/${platformId}/${login}`)).balance, { timeout: 15_000 }).toBe("1250.50");
    const operations = await api.get<{ type: string; amount: string }[]>(`/api/accounts/${platformId}/${login}/balance-operations`);
    expect(operations.map((o) => [o.type, o.amount])).toEqual([["deposit", "1250.50"]]);
    expect((await api.get<{ group: string }>(`/api/accounts/${platformId}/${login}`)).group).toBe("demo\\retail-usd");

    // The client's details, then the investor password.
    const panel = page.getByRole("dialog", { name: new RegExp(login) });
    await panel.getByRole("button", { name: "Edit details" }).waitFor({ timeout: 20_000 });
    await page.screenshot({ path: "test-results/users-account-panel-1440-light.png" });
    await panel.getByRole("button", { name: "Edit details" }).click();
    const edit = page.getByRole("dialog", { name: /Edit the details/ });
    await edit.getByLabel("Phone").fill("+357 22 000000");
    await edit.getByLabel("Country").fill("Cyprus");
    await edit.getByLabel("Email").fill("dana@");
    await edit.getByRole("button", { name: "Save details" }).click();
    await edit.getByText(/e-mail address/).waitFor();
    await edit.getByLabel("Email").fill("dana@example.com");
    await edit.getByRole("button", { name: "Save details" }).click();
    await edit.waitFor({ state: "detached", timeout: 15_000 });
    await panel.getByText("+357 22 000000").waitFor({ timeout: 15_000 });
    expect(await api.get(`/api/accounts/${platformId}/${login}`)).toMatchObject({ phone: "+357 22 000000", country: "Cyprus", email: "dana@example.com" });

    await panel.getByRole("button", { name: "Investor password" }).click();
    const investor = page.getByRole("dialog", { name: /investor password/ });
    await investor.getByRole("button", { name: "Generate" }).click();
    await investor.getByRole("button", { name: "Set investor password" }).click();
    await investor.waitFor({ state: "detached", timeout: 15_000 });
    await expect.poll(() => toastsSeen(page).some((t) => t.includes("Investor password set"))).toBe(true);

    // A deposit of 999999999999999 is too large, not "at most 2 decimals".
    await panel.getByRole("button", { name: "Balance operation" }).click();
    await page.getByLabel("Amount").fill("999999999999999");
    await page.getByRole("dialog").getByRole("button", { name: "Deposit" }).click();
    await page
      .getByText(/too large/)
      .first()
      .waitFor();
    expect(await page.getByText(/at most 2 decimals/).count()).toBe(0);
    await page.keyboard.press("Escape");
  });

  it("screenshots of /users in light and dark at 1440 px, nothing cut off", async () => {
    for (const mode of ["light", "dark"] as const) {
      const p = mode === "light" ? page : await signedIn(browser, "dark", "/users");
      await p.goto("/users");
      await loginCell(p).waitFor({ timeout: 30_000 });
      expect(await headerFits(p, "Trading accounts", "margin")).toBe(true);
      expect(await noSideways(p)).toBe(true);
      await p.screenshot({ path: `test-results/users-1440-${mode}.png` });
      if (p !== page) await p.context().close();
    }
  });
});

describe("the Trades Blotter at a dealer's desk, 1440 px", () => {
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    browser = await launchBrowser();
    page = await signedIn(browser, "light", "/apps/trades-blotter");
    // The blotter on the demo servers (the e2e files share one server: another may have done it).
    const api = apiAs(page);
    const platforms = await api.get<{ id: string }[]>("/api/tradePlatforms");
    const assigned = await api.call("POST", "/api/tradePlatforms/assign-application", { app: "tradesBlotter", platformIds: platforms.map((p) => p.id) });
    expect(assigned.status, assigned.text).toBeLessThan(300);
  });
  afterAll(() => browser?.close());

  it("shows symbol, side, login, volume, price and profit without scrolling; a row's login opens the account", async () => {
    await page.goto("/apps/trades-blotter");
    const link = page.locator('[role="region"][aria-label="Trades"] .ag-cell[col-id="login"] a').first();
    await link.waitFor({ timeout: 30_000 });
    await page.screenshot({ path: "test-results/blotter-1440-first-look.png" });
    for (const col of ["utcTime", "symbol", "side", "login", "volume", "price", "profit"]) expect(await headerFits(page, "Trades", col), col).toBe(true);
    expect(await noSideways(page)).toBe(true);

    // Lit: only the newest few rows, never every row in view.
    // A row is drawn in the pinned and the centre containers: rows are counted by their index.
    const rowsDrawn = (lit: boolean) =>
      page
        .locator('[role="region"][aria-label="Trades"]')
        .evaluate(
          (grid, lit) => new Set([...grid.querySelectorAll(`.ag-row[row-index]${lit ? ".tb-row-fresh" : ""}`)].map((r) => r.getAttribute("row-index"))).size,
          lit,
        );
    const lit = () => rowsDrawn(true);
    const drawn = await rowsDrawn(false);
    const seen: number[] = [];
    for (let i = 0; i < 20; i++) {
      seen.push(await lit());
      await page.waitForTimeout(150);
    }
    expect(Math.max(...seen)).toBeGreaterThan(0);
    expect(Math.max(...seen)).toBeLessThanOrEqual(5);
    expect(drawn).toBeGreaterThan(10);

    for (const mode of ["light", "dark"] as const) {
      const p = mode === "light" ? page : await signedIn(browser, "dark", "/apps/trades-blotter");
      await p.locator('[role="region"][aria-label="Trades"] .ag-cell[col-id="login"] a').first().waitFor({ timeout: 30_000 });
      await p.getByRole("button", { name: "Pause" }).click();
      await p.screenshot({ path: `test-results/blotter-1440-${mode}.png` });
      if (p !== page) await p.context().close();
    }

    // Paused, the first row holds still: its login opens the account's panel on /users.
    const login = (await link.textContent())!.trim();
    await link.click();
    await page.waitForURL((u) => u.pathname === "/users" && (u.searchParams.get("account") ?? "").endsWith(`:${login}`), { timeout: 15_000 });
    await page.getByRole("dialog").getByText(login, { exact: true }).first().waitFor({ timeout: 20_000 });
  });

  it("a from-after-to or over-long range is a field message; the last good rows and count stay, no stray row, no error toast", async () => {
    await page.goto("/apps/trades-blotter?mode=history");
    const count = page.getByRole("status").filter({ hasText: /^\d[\d,]* deals?$/ });
    await count.waitFor({ timeout: 30_000 });
    const before = await count.textContent();
    const url = page.url();
    const toasts = toastsSeen(page).length;
    const to = new URL(url).searchParams.get("to") ?? (await page.evaluate(() => new Date().toISOString().slice(0, 10)));
    const after = new Date(Date.parse(`${to}T12:00:00Z`) + 5 * 86_400_000).toISOString().slice(0, 10);
    // Days are typed as the member reads them (their display format; the browser's own by default).
    const typed = (day: string) =>
      page.evaluate(
        (ymd) =>
          new Intl.DateTimeFormat(navigator.language, { timeZone: "UTC", year: "numeric", month: "2-digit", day: "2-digit" }).format(
            new Date(`${ymd}T00:00:00Z`),
          ),
        day,
      );

    await page.getByLabel("From day").fill(await typed(after));
    await page.getByText("The last day is before the first").waitFor();
    await page.getByLabel("From day").fill(await typed("2020-01-01"));
    await page.getByText(/^At most 366 days/).waitFor();
    expect(page.url()).toBe(url);
    expect(await count.textContent()).toBe(before);
    expect(await page.getByText("Counting…").count()).toBe(0);
    const stray = await page.locator('[role="region"][aria-label="Trades"] .ag-cell[col-id="utcTime"]').allTextContents();
    expect(stray.filter((t) => t.trim() === "—" || t.trim() === "")).toEqual([]);
    expect(toastsSeen(page).length).toBe(toasts);
    await page.screenshot({ path: "test-results/blotter-history-range-1440-light.png" });
  });
});
