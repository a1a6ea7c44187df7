import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { baseUrl, launchBrowser, newContext } from "./browser.ts";

describe("/health", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  it("works signed out, without the layout", async () => {
    const page = await (await newContext(browser)).newPage();
    const res = await page.goto(`${baseUrl()}/health`);
    expect(res?.status()).toBe(200);
    await expect.poll(() => page.getByText(/database/i).first().isVisible()).toBe(true);
    expect(page.url()).toBe(`${baseUrl()}/health`);
  });
});
