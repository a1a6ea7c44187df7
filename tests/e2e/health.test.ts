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
    await expect
      .poll(() =>
        page
          .getByText(/database/i)
          .first()
          .isVisible(),
      )
      .toBe(true);
    expect(page.url()).toBe(`${baseUrl()}/health`);
  });

  it("serves the favicon every browser asks for, from the build, without signing in", async () => {
    for (const [file, type] of [
      ["/favicon.ico", /image\/(x-icon|vnd\.microsoft\.icon)/],
      ["/favicon.svg", /image\/svg\+xml/],
    ] as const) {
      const res = await fetch(`${baseUrl()}${file}`);
      expect(res.status, file).toBe(200);
      expect(res.headers.get("content-type"), file).toMatch(type);
      expect((await res.arrayBuffer()).byteLength, file).toBeGreaterThan(100);
    }
    const page = await (await newContext(browser)).newPage();
    await page.goto(`${baseUrl()}/health`);
    const icons = await page.locator('link[rel="icon"]').evaluateAll((links) => links.map((l) => l.getAttribute("href")));
    expect(icons).toEqual(["/favicon.ico", "/favicon.svg"]);
  });
  it("sends the built JavaScript precompressed (Brotli, else gzip), and plain to a client that accepts neither", async () => {
    const page = await (await fetch(`${baseUrl()}/health`)).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(page)?.[1] ?? /href="(\/assets\/[^"]+\.js)"/.exec(page)?.[1];
    expect(script, "a script of the page").toBeDefined();
    const plain = await fetch(`${baseUrl()}${script}`, { headers: { "Accept-Encoding": "identity" } });
    const plainBytes = (await plain.arrayBuffer()).byteLength;
    // Node's fetch decodes what it is sent; the header says what travelled.
    for (const [accept, encoding] of [
      ["br, gzip", "br"],
      ["gzip", "gzip"],
    ] as const) {
      const res = await fetch(`${baseUrl()}${script}`, { headers: { "Accept-Encoding": accept } });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-encoding"), accept).toBe(encoding);
      expect((await res.arrayBuffer()).byteLength).toBe(plainBytes);
    }
    expect(plain.headers.get("content-encoding") ?? "identity").toBe("identity");
  });
});
