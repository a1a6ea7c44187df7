import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { inject } from "vitest";

/** Debian's Chromium (never a downloaded browser), headless, with the flags this machine needs. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

export const baseUrl = () => inject("e2eBaseUrl");
export const demo = () => inject("e2eDemo");

/** Fill and submit the embedded provider's sign-in page. */
export async function signInAtProvider(page: Page, creds: { email: string; password: string }) {
  await page.getByLabel(/email/i).fill(creds.email);
  await page.getByLabel(/^password/i).fill(creds.password);
  await page.getByRole("button", { name: /sign in/i }).click();
}

export async function newContext(browser: Browser): Promise<BrowserContext> {
  return browser.newContext({ baseURL: baseUrl(), viewport: { width: 1400, height: 900 } });
}
