import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Download, type Page } from "playwright-core";
import { inject } from "vitest";

/** How Debian's Chromium (never a downloaded browser) is started: headless, with the flags this machine needs. */
export const CHROMIUM_LAUNCH = {
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
};

/** The browser tests' one Chromium (tests/e2e/globalSetup.ts), when running under Vitest's e2e project. */
function sharedBrowserEndpoint(): string | undefined {
  try {
    return inject("e2eBrowser");
  } catch {
    return undefined; // outside Vitest (scripts/screenshots.ts, the benchmarks)
  }
}

/**
 * A browser for a test file: a connection to the run's one Chromium, started once by the global
 * setup (a launch per file cost the run a few seconds of CPU each on two cores; each test still
 * gets contexts of its own, and closing the connection closes them); outside Vitest, a Chromium of
 * its own.
 */
export async function launchBrowser(): Promise<Browser> {
  const endpoint = sharedBrowserEndpoint();
  return endpoint ? chromium.connect(endpoint) : chromium.launch(CHROMIUM_LAUNCH);
}

/**
 * This file's Toolbox: its worker's own (tests/e2e/globalSetup.ts). VITEST_POOL_ID runs from 1 to
 * the number of workers and is never shared by two files running at once.
 */
export function server(): { baseUrl: string; smtpPort: number } {
  const servers = inject("e2eServers");
  const pool = Number(process.env.VITEST_POOL_ID ?? "1");
  return servers[(pool - 1) % servers.length]!;
}
export const baseUrl = () => server().baseUrl;
export const demo = () => inject("e2eDemo");

/** Fill and submit the embedded provider's sign-in page. */
export async function signInAtProvider(page: Page, creds: { email: string; password: string }) {
  await page.getByLabel(/email/i).fill(creds.email);
  await page.getByLabel(/^password/i).fill(creds.password);
  await page.getByRole("button", { name: /sign in/i }).click();
}

/**
 * A person's browser. Headless Chromium says "HeadlessChrome", which `isbot` rightly calls a bot
 * (bots get a bare 404), so people's tests present an ordinary Chrome user agent.
 */
export const PERSON_UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36";

export async function newContext(browser: Browser, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  // A script outside Vitest (scripts/screenshots.ts) passes its own baseURL: inject() works only under Vitest.
  const context = await browser.newContext({ baseURL: options.baseURL ?? baseUrl(), viewport: { width: 1400, height: 900 }, userAgent: PERSON_UA, ...options });
  // Record every toast title the page shows, even one that lives only until a redirect.
  await context.exposeBinding("__reportToast", ({ page }, text: string) => {
    const seen = toastLog.get(page);
    if (seen) seen.push(text);
    else toastLog.set(page, [text]);
  });
  await context.addInitScript(() => {
    const seen = new WeakSet<Node>();
    const scan = () => {
      document.querySelectorAll("[data-toast]").forEach((el) => {
        if (seen.has(el)) return;
        seen.add(el);
        (window as unknown as { __reportToast(t: string): void }).__reportToast(el.textContent ?? "");
      });
    };
    new MutationObserver(scan).observe(document, { childList: true, subtree: true });
  });
  return context;
}

const toastLog = new WeakMap<Page, string[]>();
/** Text of every toast the page has shown since it opened. */
export const toastsSeen = (page: Page) => toastLog.get(page) ?? [];

/**
 * Where a finished download is, on this machine: saved to a temporary folder (the run's one
 * Chromium is reached over a connection, so `download.path()`, a path on the browser's side, is
 * refused).
 */
export async function downloaded(download: Download): Promise<string> {
  const file = path.join(await mkdtemp(path.join(os.tmpdir(), "toolbox-e2e-download-")), download.suggestedFilename());
  await download.saveAs(file);
  return file;
}
