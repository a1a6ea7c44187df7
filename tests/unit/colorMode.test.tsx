import { runInThisContext } from "node:vm";
import { renderToStaticMarkup } from "react-dom/server";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { COLOR_MODE_KEY, ColorModeScript, useColorMode } from "~/ui/colorMode";

function prefersDark(dark: boolean) {
  vi.stubGlobal("matchMedia", (query: string) => ({ matches: dark && query.includes("dark"), addEventListener() {}, removeEventListener() {} }));
}

/** Runs the inline <head> script exactly as the browser would before first paint. */
function runHeadScript() {
  const html = renderToStaticMarkup(<ColorModeScript nonce="n0nce" />);
  expect(html).toContain('nonce="n0nce"');
  const code = /<script[^>]*>([\s\S]*)<\/script>/.exec(html)![1]!;
  // As a classic script of the page: its globals are this test's (jsdom's document, the stubbed matchMedia).
  runInThisContext(code);
}

describe("colour mode (docs/requirements.md#r-states)", () => {
  beforeEach(() => {
    localStorage.clear();
    document.documentElement.className = "";
  });
  afterEach(() => vi.unstubAllGlobals());

  it("'system' (nothing stored) follows the system preference at start", () => {
    prefersDark(true);
    runHeadScript();
    expect(document.documentElement.classList.contains("dark")).toBe(true);
    prefersDark(false);
    runHeadScript();
    expect(document.documentElement.classList.contains("dark")).toBe(false);
  });

  it("a stored choice wins over the system", () => {
    prefersDark(true);
    localStorage.setItem(COLOR_MODE_KEY, "light");
    runHeadScript();
    expect(document.documentElement.classList.contains("dark")).toBe(false);
    prefersDark(false);
    localStorage.setItem(COLOR_MODE_KEY, "dark");
    runHeadScript();
    expect(document.documentElement.classList.contains("dark")).toBe(true);
  });

  it("choosing a mode stores it and applies it at once; 'system' forgets the choice", () => {
    prefersDark(false);
    useColorMode.getState().setMode("dark");
    expect(localStorage.getItem(COLOR_MODE_KEY)).toBe("dark");
    expect(document.documentElement.classList.contains("dark")).toBe(true);
    expect(useColorMode.getState().resolved).toBe("dark");
    useColorMode.getState().setMode("system");
    expect(localStorage.getItem(COLOR_MODE_KEY)).toBeNull();
    expect(document.documentElement.classList.contains("dark")).toBe(false);
    expect(useColorMode.getState()).toMatchObject({ mode: "system", resolved: "light" });
  });
});
