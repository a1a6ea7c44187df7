import { AxeBuilder } from "@axe-core/playwright";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { demo, launchBrowser, newContext, signInAtProvider } from "./browser.ts";
import { loginCell } from "./support/accounts.ts";
import { pageScrollsSideways } from "./support/overflow.ts";

/**
 * axe-core on every screen that is built, in light and in dark colour mode: no serious or
 * critical violation (WCAG 2.2 A/AA and axe's best practices). The mode comes from the system
 * preference, which both the app ("system", its default) and the provider's pages follow, live:
 * each screen is loaded once and scanned in light, then in dark (the emulated preference switched
 * under it), then set back to light. Each screen is also measured, without loading it again, at a
 * desk's 1440 px and a phone's 390 px: the page itself never scrolls sideways (docs/ui-review.md).
 */

const MODES = ["light", "dark"] as const;
/** Each scan runs twice (light and dark), some tests scan several states: a busy machine needs the time. */
const TWO_MODES_TIMEOUT = 150_000;

/**
 * The serious and critical violations on the page as it stands (or only `within` a selector), one
 * readable line per element.
 */
async function seriousViolations(page: Page, within?: string, rules?: readonly string[]): Promise<string[]> {
  // Let entry animations (dialogs, sheets, toasts) finish: a half-faded element has no real contrast.
  // Endless ones (spinners, live-state pulses) never finish and are not waited for.
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== "running" || a.effect?.getComputedTiming().iterations === Infinity));
  // Only violations are read; collecting every passing node too doubles the time on the grid.
  const axe = new AxeBuilder({ page }).options({ resultTypes: ["violations"] });
  if (within) axe.include(within);
  if (rules) axe.withRules([...rules]);
  const { violations } = await axe.analyze();
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}) ${n.target.join(" ")}: ${v.help}. ${n.failureSummary ?? ""}`.trim()));
}

/**
 * What a colour mode can change: the rest (names, roles, structure, focus order) is the same markup
 * in both modes, so the dark pass runs only these rules, about half of a full scan's time.
 */
const COLOUR_RULES = ["color-contrast", "link-in-text-block"] as const;

/**
 * The serious and critical violations in both colour modes, each line prefixed with its mode: every
 * rule in light, the colour rules in dark. The page is switched to dark through the emulated system
 * preference and back to light afterwards; app pages are waited on until their root's `dark` class
 * follows (the provider's pages follow the media query in CSS alone).
 */
async function violationsInBothModes(page: Page, within?: string): Promise<string[]> {
  const found: string[] = [];
  for (const mode of MODES) {
    await page.emulateMedia({ colorScheme: mode });
    // App pages switch their root's class on the preference's change event: wait until it has.
    await page.waitForFunction(
      (dark) => window.location.pathname.startsWith("/oidc/") || document.documentElement.classList.contains("dark") === dark,
      mode === "dark",
    );
    const rules = mode === "dark" ? COLOUR_RULES : undefined;
    found.push(...(await seriousViolations(page, within, rules)).map((line) => `[${mode}] ${line}`));
  }
  await page.emulateMedia({ colorScheme: "light" });
  return found;
}

const heading = (page: Page, name: string | RegExp) => page.getByRole("heading", { name, level: 1 }).waitFor({ timeout: 20_000 });
/** A section's title (any level): the platform settings tabs and the copier show theirs under the page's. */
const titled = (page: Page, name: string) => page.getByRole("heading", { name, exact: true }).first().waitFor({ timeout: 20_000 });
const isDark = (page: Page) => page.evaluate(() => document.documentElement.classList.contains("dark"));

/** The desk size the screens are checked at (and the phone's): docs/ui-review.md. */
const DESK = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };
/** After two frames: what resizes itself from JavaScript (charts, grids) has followed a new viewport. */
const twoFrames = (page: Page) => page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));

/** How far the page scrolls sideways at the desk's width and at the phone's (the page is left at the desk's). */
async function sidewaysAtDeskAndPhone(page: Page): Promise<{ desk: number; phone: number }> {
  const desk = await pageScrollsSideways(page);
  await page.setViewportSize(PHONE);
  await twoFrames(page);
  const phone = await pageScrollsSideways(page);
  await page.setViewportSize(DESK);
  await twoFrames(page);
  return { desk, phone };
}

describe("accessibility in light and dark mode", () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  /** Path of the demo MT5 server's settings, found through the sidebar. */
  let platformSettings: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    context = await newContext(browser, { colorScheme: "light", viewport: DESK });
    page = await context.newPage();
    await page.goto("/");
    await page.waitForURL((u) => u.pathname.startsWith("/oidc/"), { timeout: 20_000 });
    await signInAtProvider(page, demo());
    await page.getByRole("button", { name: /^Organization:/ }).waitFor({ timeout: 20_000 });
    await page
      .getByRole("link", { name: /Demo MT5/ })
      .first()
      .click();
    await page.waitForURL(/\/tradePlatforms\/MT5\/[0-9a-f-]{36}\/settings$/, { timeout: 20_000 });
    platformSettings = new URL(page.url()).pathname;
  });
  afterAll(() => browser?.close());

  it(
    "the provider's sign-in page, a refused sign-in, the sign-up page and the password reset pages",
    async () => {
      const signedOut = await (await newContext(browser, { colorScheme: "light" })).newPage();
      await signedOut.goto("/");
      await signedOut.waitForURL((u) => u.pathname.startsWith("/oidc/"), { timeout: 20_000 });
      await signedOut.getByRole("button", { name: /sign in/i }).waitFor();
      expect(await violationsInBothModes(signedOut), "sign-in page").toEqual([]);

      await signInAtProvider(signedOut, { email: demo().email, password: "not-the-password" });
      await signedOut.locator('[aria-invalid="true"], .form-alert, [role="alert"]').first().waitFor();
      expect(await violationsInBothModes(signedOut), "refused sign-in").toEqual([]);

      await signedOut.getByRole("link", { name: "Create an account" }).click();
      await signedOut.getByLabel("Confirm password").waitFor();
      expect(await violationsInBothModes(signedOut), "sign-up page").toEqual([]);

      await signedOut.getByRole("link", { name: "Sign in", exact: true }).click();
      await signedOut.getByRole("link", { name: "Forgot your password?" }).click();
      await signedOut.getByRole("button", { name: "Send the link" }).waitFor();
      expect(await violationsInBothModes(signedOut), "password reset page").toEqual([]);
      await signedOut.getByLabel("Email").fill(`nobody.${Date.now()}@example.com`);
      await signedOut.getByRole("button", { name: "Send the link" }).click();
      await signedOut.getByRole("heading", { name: "Check your email" }).waitFor();
      expect(await violationsInBothModes(signedOut), "reset link sent page").toEqual([]);
      await signedOut.context().close();
    },
    TWO_MODES_TIMEOUT,
  );

  it("the app follows the colour mode, also when the system's changes", async () => {
    await page.goto("/");
    await heading(page, "Overview");
    expect(await isDark(page)).toBe(false);
    await page.emulateMedia({ colorScheme: "dark" });
    await page.waitForFunction(() => document.documentElement.classList.contains("dark"));
    await page.emulateMedia({ colorScheme: "light" });
    await page.waitForFunction(() => !document.documentElement.classList.contains("dark"));
    // A page loaded while the system is dark starts dark.
    await page.emulateMedia({ colorScheme: "dark" });
    await page.reload();
    await heading(page, "Overview");
    expect(await isDark(page)).toBe(true);
    await page.emulateMedia({ colorScheme: "light" });
  });

  /** A screen: where it is, and what shows once it has loaded (scanning a skeleton proves little). */
  const screens: { name: string; path: () => string; ready: (page: Page) => Promise<void> }[] = [
    { name: "overview", path: () => "/", ready: (p) => p.getByText("Connected").first().waitFor({ timeout: 20_000 }) },
    {
      name: "health",
      path: () => "/health",
      ready: (p) =>
        p
          .getByText(/database/i)
          .first()
          .waitFor(),
    },
    { name: "diagnostics", path: () => "/debug", ready: (p) => heading(p, "Diagnostics") },
    {
      name: "settings: organization profile",
      path: () => "/settings",
      ready: (p) => p.getByRole("button", { name: "Save profile" }).waitFor({ timeout: 20_000 }),
    },
    { name: "settings: organizations", path: () => "/settings/organizations", ready: (p) => p.getByText("Demo Brokerage").first().waitFor() },
    {
      name: "settings: members",
      path: () => "/settings/members",
      ready: (p) => p.getByRole("gridcell", { name: "demo@toolbox.local" }).waitFor({ timeout: 20_000 }),
    },
    {
      name: "settings: security",
      path: () => "/settings/security",
      ready: (p) => p.getByRole("button", { name: "Set up two-factor sign-in" }).waitFor({ timeout: 20_000 }),
    },
    { name: "inbox", path: () => "/inbox", ready: (p) => p.getByRole("radiogroup", { name: "Show" }).waitFor() },
    {
      name: "settings: notifications",
      path: () => "/settings/notifications",
      ready: (p) => p.getByRole("form", { name: "Rules" }).waitFor({ timeout: 20_000 }),
    },
    { name: "connect a trade platform", path: () => "/tradePlatforms/new", ready: (p) => heading(p, "Connect a trade platform") },
    { name: "trade platform settings", path: () => platformSettings, ready: (p) => p.getByLabel("Name").first().waitFor({ timeout: 20_000 }) },
    { name: "trade platform apps", path: () => `${platformSettings}/apps`, ready: (p) => heading(p, /\w/) },
    { name: "users", path: () => "/users", ready: (p) => loginCell(p).waitFor({ timeout: 30_000 }) },
    { name: "customers", path: () => "/customers", ready: (p) => p.getByLabel("Filter customers").waitFor({ timeout: 20_000 }) },
    {
      name: "logs: audit log",
      path: () => "/logs",
      ready: async (p) => {
        await p.getByRole("form", { name: "Audit log filters" }).waitFor({ timeout: 20_000 });
        await p.getByRole("gridcell").first().waitFor({ timeout: 20_000 });
      },
    },
    {
      name: "logs: server journal",
      path: () => "/logs/journal",
      ready: (p) => p.getByRole("form", { name: "Server journal filters" }).waitFor({ timeout: 20_000 }),
    },
    { name: "trade platform dealing", path: () => `${platformSettings}/dealing`, ready: (p) => titled(p, "Dealing and execution") },
    {
      name: "trade platform plugins",
      path: () => `${platformSettings}/plugins`,
      ready: (p) => p.getByRole("gridcell", { name: "Flexible Leverage" }).waitFor({ timeout: 20_000 }),
    },
    { name: "trade platform MT4/MT5 editor", path: () => `${platformSettings}/MT4MT5editor`, ready: (p) => titled(p, "MT4/MT5 editor") },
    { name: "trades copier", path: () => "/apps/trades-copier", ready: (p) => titled(p, "Copy links") },
    { name: "trades copier status", path: () => "/apps/trades-copier/status", ready: (p) => titled(p, "Status") },
    { name: "trade platform deleted", path: () => "/tradePlatforms/tradePlatformDeletedSuccessfully", ready: (p) => heading(p, "Trade platform deleted") },
    { name: "style guide", path: () => "/index-sample", ready: (p) => heading(p, "UI building blocks") },
    { name: "not found", path: () => "/no/such/page", ready: (p) => heading(p, "Page not found") },
  ];

  it.each(screens)(
    "$name",
    async ({ name, path, ready }) => {
      await page.goto(path());
      await ready(page);
      expect(await violationsInBothModes(page), name).toEqual([]);
      expect(await sidewaysAtDeskAndPhone(page), `${name}: px the page scrolls sideways`).toEqual({ desk: 0, phone: 0 });
    },
    TWO_MODES_TIMEOUT,
  );

  it(
    "settings: members, a member's dialog and the permission editor",
    async () => {
      await page.goto("/settings/members");
      // The only member is the person signed in, and nobody changes their own access: the dialog
      // says why instead of offering the editor.
      await page.getByRole("gridcell", { name: "demo@toolbox.local" }).click({ timeout: 20_000 });
      const dialog = page.getByRole("dialog");
      await dialog.getByText(/nobody changes their own access/i).waitFor();
      expect(await violationsInBothModes(page, '[role="dialog"]'), "member dialog").toEqual([]);
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "detached" });
      // The permission editor, in the invitation form: a custom role shows the module × permission table.
      await page.getByRole("combobox", { name: "Role" }).click();
      await page.getByRole("option", { name: "Custom" }).click();
      await page.getByRole("table", { name: "Permissions by module" }).waitFor();
      expect(await violationsInBothModes(page), "invitation's permission editor").toEqual([]);
    },
    TWO_MODES_TIMEOUT,
  );

  it(
    "the Trades Blotter: its call to action, streaming and historical modes with the side panel",
    async () => {
      await page.goto("/apps/trades-blotter");
      const cta = page.getByRole("link", { name: "Assign the Trades Blotter" });
      const cell = page.locator('[role="gridcell"][col-id="login"]').first();
      await cta.or(cell).first().waitFor({ timeout: 30_000 });
      // Whichever test file runs first assigns the app; until then the page is a call to action.
      if (await cta.isVisible()) {
        expect(await violationsInBothModes(page), "blotter call to action").toEqual([]);
        await cta.click();
        const dialog = page.getByRole("dialog");
        await dialog.getByRole("checkbox").first().waitFor({ timeout: 20_000 });
        expect(await violationsInBothModes(page, '[role="dialog"]'), "assign the blotter").toEqual([]);
        for (const box of await dialog.getByRole("checkbox").all()) if (!(await box.isDisabled())) await box.check();
        await dialog.getByRole("button", { name: /^Assign to \d+ platforms?$/ }).click();
        await dialog.waitFor({ state: "detached", timeout: 20_000 });
        await page.goto("/apps/trades-blotter");
      }
      await cell.waitFor({ timeout: 30_000 });
      await page.getByRole("complementary", { name: "Totals and exposure" }).getByRole("rowheader").first().waitFor({ timeout: 30_000 });
      // Live rows keep arriving (and flashing): held still while axe reads the page.
      await page.getByRole("button", { name: "Pause" }).click();
      expect(await violationsInBothModes(page), "blotter, streaming (paused)").toEqual([]);
      await page.getByRole("button", { name: "Resume" }).click();

      await page.getByRole("button", { name: "Historical" }).click();
      await page.getByLabel("From day").waitFor();
      await page
        .getByRole("status")
        .filter({ hasText: /^\d[\d,]* deals?$/ })
        .waitFor({ timeout: 30_000 });
      expect(await violationsInBothModes(page), "blotter, historical").toEqual([]);
      expect(await sidewaysAtDeskAndPhone(page), "blotter, historical: px the page scrolls sideways").toEqual({ desk: 0, phone: 0 });
    },
    TWO_MODES_TIMEOUT,
  );

  it(
    "a trading account's panel and its balance operation dialog",
    async () => {
      await page.goto("/users");
      await loginCell(page).waitFor({ timeout: 30_000 });
      await loginCell(page).click();
      await page.getByRole("button", { name: "Balance operation" }).waitFor({ timeout: 20_000 });
      // The panel's positions as they settle, not their loading overlay: a grid that is still loading
      // has no cell to focus, which axe reports (scrollable-region-focusable) — it failed CI once.
      // AG Grid keeps the overlay's wrapper in the page once loaded, hidden, so wait for hidden.
      await page.locator('[role="dialog"] .ag-overlay-loading-wrapper').waitFor({ state: "hidden", timeout: 20_000 });
      // The list behind the panel was checked as "users"; scan only what opened over it.
      expect(await violationsInBothModes(page, '[role="dialog"]'), "account panel").toEqual([]);

      await page.getByRole("button", { name: "Balance operation" }).click();
      await page.getByLabel("Amount").waitFor();
      expect(await violationsInBothModes(page, '[role="dialog"]'), "balance operation dialog").toEqual([]);
    },
    TWO_MODES_TIMEOUT,
  );
});
