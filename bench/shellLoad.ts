/**
 * The shell's weight as the browser counts it (issue 30): the JavaScript a signed-in person's
 * Chromium receives for `/`, compressed as sent (the encoded body size of each response), including
 * the chunks fetched right after load (charts, grid, the identity client), not only what the
 * build's manifest preloads (scripts/shellSize.ts).
 *
 * The real server as `npm start` runs it (the production build, a fresh PostgreSQL database, the
 * demo organization with its platforms). The demo dealer signs in through the embedded provider;
 * then `/` is loaded again with the browser's cache off and every JavaScript response counted from
 * the navigation until the network has been quiet for 2 s after the overview has drawn.
 *
 *   node --import tsx bench/shellLoad.ts [--verbose]     (after `npm run build`;
 *   BENCH_SHELL_SCREENSHOT=file.png also saves what the screen shows then)
 */
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Request } from "playwright-core";
import { launchBrowser } from "../tests/e2e/browser.ts";
import { loadConfig } from "../server/config.ts";
import { startToolbox } from "../server/main.ts";
import { withEmptyPostgresDatabase } from "../tests/helpers/postgres.ts";

const DEMO_PASSWORD = "bench-demo-password-1";
const PERSON_UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36";

export interface ShellLoad {
  /** Encoded (as sent) bytes of every JavaScript response for `/`, until the network is quiet. */
  jsBytes: number;
  /** Of those, the ones that started after the page's `load` event. */
  afterLoadBytes: number;
  files: { url: string; bytes: number; afterLoad: boolean }[];
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

const isScript = (request: Request) => request.resourceType() === "script" || /\.m?js(\?|$)/.test(new URL(request.url()).pathname);

/** Signs the demo dealer in at `base` and measures `/` (see the opening comment). */
export async function measureShellLoad(base: string, browser: Browser): Promise<ShellLoad> {
  const context = await browser.newContext({ baseURL: base, viewport: { width: 1400, height: 900 }, userAgent: PERSON_UA });
  try {
    const page = await context.newPage();
    await page.goto("/");
    await page.waitForURL((u) => u.pathname.startsWith("/oidc/"), { timeout: 60_000 });
    await page.getByLabel(/email/i).fill("demo@toolbox.local");
    await page.getByLabel(/^password/i).fill(DEMO_PASSWORD);
    await page.getByRole("button", { name: /sign in/i }).click();
    await page.waitForURL((u) => u.pathname === "/", { timeout: 60_000 });
    await page
      .getByRole("heading", { name: /Trade platforms/ })
      .first()
      .waitFor({ timeout: 60_000 });

    // Signed in (the session is in localStorage): `/` again, as a returning person's first load.
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    const pending = new Set<Request>();
    const done: Promise<{ url: string; bytes: number; afterLoad: boolean } | null>[] = [];
    let loaded = false;
    let lastActivity = performance.now();
    page.on("request", (request) => {
      pending.add(request);
      lastActivity = performance.now();
      if (!isScript(request)) return;
      const afterLoad = loaded;
      done.push(
        (async () => {
          const response = await request.response();
          if (!response) return null;
          await response.finished();
          const sizes = await request.sizes();
          return { url: new URL(request.url()).pathname, bytes: sizes.responseBodySize, afterLoad };
        })().catch(() => null),
      );
    });
    const settle = (request: Request) => {
      pending.delete(request);
      lastActivity = performance.now();
    };
    page.on("requestfinished", settle);
    page.on("requestfailed", settle);
    await page.goto("/", { waitUntil: "load" });
    loaded = true;
    await page
      .getByRole("heading", { name: /Trade platforms/ })
      .first()
      .waitFor({ timeout: 60_000 });
    // Quiet: no request other than long-lived streams in flight, and none started, for 2 s.
    const streaming = (r: Request) => /\/api\/.*(stream|events|live)/i.test(r.url()) || r.headers().accept === "text/event-stream";
    for (let i = 0; i < 300; i++) {
      const busy = [...pending].some((r) => !streaming(r));
      if (!busy && performance.now() - lastActivity > 2_000) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    if (process.env.BENCH_SHELL_SCREENSHOT) await page.screenshot({ path: process.env.BENCH_SHELL_SCREENSHOT });
    const files = (await Promise.all(done)).filter((f): f is NonNullable<typeof f> => f !== null);
    files.sort((a, b) => b.bytes - a.bytes);
    return {
      jsBytes: files.reduce((s, f) => s + f.bytes, 0),
      afterLoadBytes: files.filter((f) => f.afterLoad).reduce((s, f) => s + f.bytes, 0),
      files,
    };
  } finally {
    await context.close();
  }
}

/** Starts the production server on a fresh PostgreSQL database and measures `/` in Chromium. */
export async function shellLoadBench(options: { adminUrl?: string; line?: (text: string) => void; verbose?: boolean } = {}): Promise<ShellLoad | null> {
  const adminUrl = options.adminUrl ?? process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const line = options.line ?? ((text: string) => console.log(text));
  if (!fs.existsSync("build/server/index.js")) {
    line("JavaScript for / in Chromium: no build (run `npm run build` first)");
    return null;
  }
  return withEmptyPostgresDatabase(adminUrl, "toolbox_bench_shell", async (databaseUrl) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "toolbox-bench-shell-"));
    const port = await freePort();
    const base = `http://localhost:${port}`;
    const config = loadConfig({
      NODE_ENV: "production",
      LOG_LEVEL: "silent",
      PORT: String(port),
      HOST: "127.0.0.1",
      PUBLIC_URL: base,
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      DEMO_PASSWORD,
      SECRETS_KEY: crypto.randomBytes(32).toString("base64"),
    });
    const running = await startToolbox(config, { quiet: true });
    let browser: Browser | undefined;
    try {
      browser = await launchBrowser();
      const result = await measureShellLoad(base, browser);
      const kb = (bytes: number) => (bytes / 1024).toFixed(1);
      if (options.verbose) for (const f of result.files) line(`${kb(f.bytes).padStart(7)} KB  ${f.afterLoad ? "after load " : "before load"}  ${f.url}`);
      line(
        `${"JavaScript for / in Chromium (signed in; as sent, incl. after load)".padEnd(84)} ${kb(result.jsBytes)} KB ` +
          `(${kb(result.afterLoadBytes)} KB after load, ${result.files.length} files)  target ≤ 160 KB`,
      );
      return result;
    } finally {
      await browser?.close();
      await running.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  shellLoadBench({ verbose: process.argv.includes("--verbose") }).then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
