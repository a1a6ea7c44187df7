import { AxeBuilder } from "@axe-core/playwright";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { demo, launchBrowser, newContext, signInAtProvider } from "../browser.ts";
import { loginCell } from "./accounts.ts";
import { pageScrollsSideways } from "./overflow.ts";

/**
 * The accessibility checks (tests/e2e/accessibility*.test.ts, three files so two workers share
 * them): axe-core on every screen that is built, in light and in dark colour mode: no serious or
 * critical violation (WCAG 2.2 A/AA and axe's best practices). The mode comes from the system
 * preference, which both the app ("system", its default) and the provider's pages follow, live:
 * each screen is loaded once and scanned in light, then in dark (the emulated preference switched
 * under it), then set back to light. Each screen is also measured, without loading it again, at a
 * desk's 1440 px and a phone's 390 px: the page itself never scrolls sideways (docs/ui-review.md).
 */

export const MODES = ["light", "dark"] as const;
/** Each scan runs twice (light and dark), some tests scan several states: a busy machine needs the time. */
export const TWO_MODES_TIMEOUT = 150_000;

/**
 * The serious and critical violations on the page as it stands (or only `within` a selector), one
 * readable line per element.
 */
export async function seriousViolations(page: Page, within?: string, rules?: readonly string[]): Promise<string[]> {
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
export const COLOUR_RULES = ["color-contrast", "link-in-text-block"] as const;

/**
 * The serious and critical violations in both colour modes, each line prefixed with its mode: every
 * rule in light, the colour rules in dark. The page is switched to dark through the emulated system
 * preference and back to light afterwards; app pages are waited on until their root's `dark` class
 * follows (the provider's pages follow the media query in CSS alone).
 */
export async function violationsInBothModes(page: Page, within?: string): Promise<string[]> {
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

export const heading = (page: Page, name: string | RegExp) => page.getByRole("heading", { name, level: 1 }).waitFor({ timeout: 20_000 });
/** A section's title (any level): the platform settings tabs and the copier show theirs under the page's. */
export const titled = (page: Page, name: string) => page.getByRole("heading", { name, exact: true }).first().waitFor({ timeout: 20_000 });
export const isDark = (page: Page) => page.evaluate(() => document.documentElement.classList.contains("dark"));

/** The desk size the screens are checked at (and the phone's): docs/ui-review.md. */
export const DESK = { width: 1440, height: 900 };
export const PHONE = { width: 390, height: 844 };
/** After two frames: what resizes itself from JavaScript (charts, grids) has followed a new viewport. */
export const twoFrames = (page: Page) => page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));

/** How far the page scrolls sideways at the desk's width and at the phone's (the page is left at the desk's). */
export async function sidewaysAtDeskAndPhone(page: Page): Promise<{ desk: number; phone: number }> {
  const desk = await pageScrollsSideways(page);
  await page.setViewportSize(PHONE);
  await twoFrames(page);
  const phone = await pageScrollsSideways(page);
  await page.setViewportSize(DESK);
  await twoFrames(page);
  return { desk, phone };
}

/** A screen: where it is, and what shows once it has loaded (scanning a skeleton proves little). */
export const SCREENS: { name: string; path: (platformSettings: string) => string; ready: (page: Page) => Promise<void> }[] = [
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
  { name: "trade platform settings", path: (settings) => settings, ready: (p) => p.getByLabel("Name").first().waitFor({ timeout: 20_000 }) },
  { name: "trade platform apps", path: (settings) => `${settings}/apps`, ready: (p) => heading(p, /\w/) },
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
  { name: "trade platform dealing", path: (settings) => `${settings}/dealing`, ready: (p) => titled(p, "Dealing and execution") },
  {
    name: "trade platform plugins",
    path: (settings) => `${settings}/plugins`,
    ready: (p) => p.getByRole("gridcell", { name: "Flexible Leverage" }).waitFor({ timeout: 20_000 }),
  },
  { name: "trade platform MT4/MT5 editor", path: (settings) => `${settings}/MT4MT5editor`, ready: (p) => titled(p, "MT4/MT5 editor") },
  { name: "trades copier", path: () => "/apps/trades-copier", ready: (p) => titled(p, "Copy links") },
  { name: "trades copier status", path: () => "/apps/trades-copier/status", ready: (p) => titled(p, "Status") },
  { name: "trade platform deleted", path: () => "/tradePlatforms/tradePlatformDeletedSuccessfully", ready: (p) => heading(p, "Trade platform deleted") },
  { name: "style guide", path: () => "/index-sample", ready: (p) => heading(p, "UI building blocks") },
  { name: "not found", path: () => "/no/such/page", ready: (p) => heading(p, "Page not found") },
];

/**
 * The demo administrator signed in, on a desk-sized light page, with the demo MT5 server's settings
 * path (found through the sidebar); the browser closed after the file.
 */
export function signedInDemo(): { browser: () => Browser; page: () => Page; platformSettings: () => string } {
  let browser: Browser;
  let page: Page;
  let platformSettings: string;
  beforeAll(async () => {
    browser = await launchBrowser();
    page = await (await newContext(browser, { colorScheme: "light", viewport: DESK })).newPage();
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
  return { browser: () => browser, page: () => page, platformSettings: () => platformSettings };
}

/** Each of these screens, loaded once: no serious violation in either mode, no sideways scroll at a desk's or a phone's width. */
export function screensPass(screens: typeof SCREENS): void {
  const demoSession = signedInDemo();
  it.each(screens)(
    "$name",
    async ({ name, path, ready }) => {
      const page = demoSession.page();
      await page.goto(path(demoSession.platformSettings()));
      await ready(page);
      expect(await violationsInBothModes(page), name).toEqual([]);
      expect(await sidewaysAtDeskAndPhone(page), `${name}: px the page scrolls sideways`).toEqual({ desk: 0, phone: 0 });
    },
    TWO_MODES_TIMEOUT,
  );
}
