import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { baseUrl, demo, launchBrowser, newContext, signInAtProvider, toastsSeen } from "./browser.ts";
import { layoutShown, onProvider, signUp } from "./support/people.ts";

describe("signing in through the embedded provider", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  it("sends a deep link to sign in and comes back there; reload keeps the session; sign-out returns to /", async () => {
    const page = await (await newContext(browser)).newPage();
    await page.goto("/settings/members");
    await onProvider(page);
    expect(toastsSeen(page).some((t) => t.includes("Authentication expired") && t.includes("Logging you back in..."))).toBe(true);

    await signInAtProvider(page, demo());
    await page.waitForURL(`${baseUrl()}/settings/members`, { timeout: 20_000 });
    await layoutShown(page);
    await expect.poll(() => page.getByRole("button", { name: /^Organization: Demo Brokerage/ }).isVisible()).toBe(true);
    expect(await page.evaluate(() => localStorage.getItem("toolbox-auth"))).toContain("/settings/members");

    await page.reload();
    await layoutShown(page);
    expect(new URL(page.url()).pathname).toBe("/settings/members");

    const visited: string[] = [];
    page.on("framenavigated", (f) => f === page.mainFrame() && visited.push(f.url()));
    await page.getByRole("button", { name: /^Account:/ }).click();
    await page.getByRole("menuitem", { name: "Sign out" }).click();
    // The provider ends the session and returns to the site root, which (signed out) asks to sign in.
    await expect.poll(() => visited.some((u) => u === `${baseUrl()}/`), { timeout: 20_000 }).toBe(true);
    expect(visited.some((u) => new URL(u).pathname === "/oidc/session/end" || new URL(u).pathname.startsWith("/oidc/session/end"))).toBe(true);
    await onProvider(page);
    const stored = await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith("oidc.user:")));
    expect(stored).toEqual([]);
  });

  it("lets a newcomer sign up and lands them in a new organization of their own", async () => {
    const page = await (await newContext(browser)).newPage();
    await signUp(page, { name: "Ada Lovelace", email: `ada.${Date.now()}@example.com`, password: "analytical-engine-1843" });
    await expect.poll(() => page.getByRole("button", { name: /^Organization: Ada Lovelace's organization/ }).isVisible()).toBe(true);
    // A new organization has no platform yet: the first-run call to action shows.
    await expect
      .poll(() =>
        page
          .getByRole("link", { name: /Connect a platform/ })
          .first()
          .isVisible(),
      )
      .toBe(true);
  });

  it("shows 'Authentication expired' and signs in again when the token is revoked", async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto("/");
    await onProvider(page);
    await signInAtProvider(page, demo());
    await page.waitForURL(`${baseUrl()}/`, { timeout: 20_000 });
    await layoutShown(page);

    // Spoil the stored access token (as if revoked) and revoke the refresh token at the provider.
    await page.evaluate(async (authority) => {
      const key = Object.keys(localStorage).find((k) => k.startsWith("oidc.user:"))!;
      const user = JSON.parse(localStorage.getItem(key)!);
      await fetch(`${authority}/token/revocation`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token: user.refresh_token, token_type_hint: "refresh_token", client_id: "toolbox-web" }),
      });
      user.access_token = `${user.access_token.slice(0, -6)}AAAAAA`;
      localStorage.setItem(key, JSON.stringify(user));
    }, `${baseUrl()}/oidc`);

    await page.goto("/settings/organizations");
    // The API answers 401; the app warns and goes back through the provider, whose session
    // still stands, so the person lands on the page again without typing anything.
    await expect.poll(() => toastsSeen(page).some((t) => t.includes("Authentication expired")), { timeout: 20_000 }).toBe(true);
    await page.waitForURL(`${baseUrl()}/settings/organizations`, { timeout: 20_000 });
    await layoutShown(page);
    await expect.poll(() => page.getByRole("heading", { name: "Organizations" }).first().isVisible()).toBe(true);
  });

  it("shows the not-found page with HTTP 404 for an unknown route; bots get a plain 404", async () => {
    const page = await (await newContext(browser)).newPage();
    const res = await page.goto("/no/such/page");
    expect(res?.status()).toBe(404);
    await expect.poll(() => page.getByRole("heading", { name: "Page not found" }).isVisible()).toBe(true);
    expect(await page.getByText("We are sorry but this page could not be found.").isVisible()).toBe(true);
    await page
      .getByRole("link", { name: "Back to home" })
      .or(page.getByRole("button", { name: "Back to home" }))
      .click();
    await page.waitForURL((u) => u.pathname === "/" || u.pathname.startsWith("/oidc/"));

    const bot = await fetch(`${baseUrl()}/no/such/page`, { headers: { "User-Agent": "Googlebot/2.1 (+http://www.google.com/bot.html)" } });
    expect(bot.status).toBe(404);
    expect(bot.headers.get("content-type")).toMatch(/^text\/plain/);
  });
});
