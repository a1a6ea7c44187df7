/**
 * Accessibility, part one (the helpers and the screens' list: ./support/axe.ts): the provider's
 * pages, the colour mode followed live, and the states a plain page load does not show (a member's
 * dialog, the blotter streaming and historical, an account's panel). The screens themselves are
 * checked in accessibilityScreens*.test.ts, so two workers share the work.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { demo, newContext, signInAtProvider } from "./browser.ts";
import { loginCell } from "./support/accounts.ts";
import { heading, isDark, sidewaysAtDeskAndPhone, signedInDemo, TWO_MODES_TIMEOUT, violationsInBothModes } from "./support/axe.ts";

describe("accessibility in light and dark mode", () => {
  const demoSession = signedInDemo();
  let browser: Browser;
  let page: Page;
  beforeAll(() => {
    browser = demoSession.browser();
    page = demoSession.page();
  });

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
