import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import type { TestProject } from "vitest/node";
import { CHROMIUM_LAUNCH } from "./browser.ts";

export const DEMO_PASSWORD = "e2e-demo-password-1";

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

async function waitForHealth(url: string, child: ChildProcess, ms = 180_000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`Toolbox exited early with code ${child.exitCode}`);
    try {
      const r = await fetch(`${url}/api/health`);
      if (r.ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`Toolbox did not become healthy at ${url}`);
}

/**
 * How many Toolbox servers (and test files at a time) the browser tests use: one per Vitest worker
 * (vitest.config.ts's e2e project takes its maxWorkers from here). A file talks only to its worker's
 * server (./browser.ts `server()`, by VITEST_POOL_ID), and a worker runs one file at a time, so each
 * server sees one file at a time, as when the files ran one after another on a single server: the
 * demo organization a test changes is its server's alone. `TOOLBOX_E2E_SERVERS=1` runs them serially.
 */
export const E2E_SERVERS = Math.max(1, Number(process.env.TOOLBOX_E2E_SERVERS) || 2);

/**
 * One real Toolbox (production build, embedded provider, fresh PGlite data folder) on a free port, started the way `npm start` starts it.
 * `name` names its log, test-results/e2e-server-<name>.log. Also used by scripts/screenshots.ts.
 */
export async function startServer(name: string) {
  const port = await freePort();
  // Invitations are e-mailed here: the browser test that invites runs its own SMTP server on this port.
  const smtpPort = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "toolbox-e2e-"));
  const baseUrl = `http://localhost:${port}`;
  const logFile = path.resolve("test-results", `e2e-server-${name}.log`);
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const out = fs.openSync(logFile, "w");
  const child = spawn(process.execPath, ["--import", "tsx", "server/start.ts"], {
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "localhost",
      PUBLIC_URL: baseUrl,
      DATA_DIR: dataDir,
      DEMO_PASSWORD,
      // The demo servers' traders at one action a second (3 by default): live trades still arrive
      // for the blotter's tests, and two servers' background work costs less of two cores.
      DEMO_TRADE_RATE: "1",
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      LOG_LEVEL: "warn",
      DATABASE_URL: "",
      // The MT5 browser test's protocol server listens on loopback, which trade servers may not have unless allowed.
      TRADE_SERVER_ALLOWED_TARGETS: "127.0.0.1",
      // Tests run any day: the simulated markets stay open at weekends (vitest.config.ts, decision 0084).
      TOOLBOX_SIMULATED_MARKETS_ALWAYS_OPEN: "1",
    },
    stdio: ["ignore", out, out],
  });
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitForHealth(baseUrl, child);
  } catch (error) {
    await stop();
    throw error;
  }
  return { server: { baseUrl, smtpPort }, stop };
}

/** The browser tests' Toolbox servers, started side by side, each with its own database and demo organization. */
export default async function setup(project: TestProject) {
  if (!fs.existsSync("build/server/index.js")) {
    const r = spawnSync("npm", ["run", "build"], { stdio: "inherit" });
    if (r.status !== 0) throw new Error("build failed");
  }
  // The run's one Chromium, started beside the servers: every test file connects to it (./browser.ts launchBrowser).
  const browserStarting = chromium.launchServer(CHROMIUM_LAUNCH).then(
    (server) => ({ server }),
    (error: unknown) => ({ error }),
  );
  const started = await Promise.allSettled(Array.from({ length: E2E_SERVERS }, (_, i) => startServer(String(i + 1))));
  const browser = await browserStarting;
  const stopAll = () =>
    Promise.all([...("server" in browser ? [browser.server.close()] : []), ...started.flatMap((s) => (s.status === "fulfilled" ? [s.value.stop()] : []))]);
  const failed = started.find((s) => s.status === "rejected");
  if (failed || "error" in browser) {
    await stopAll();
    throw failed ? failed.reason : (browser as { error: unknown }).error;
  }
  project.provide("e2eBrowser", browser.server.wsEndpoint());
  project.provide(
    "e2eServers",
    started.map((s) => (s as PromiseFulfilledResult<Awaited<ReturnType<typeof startServer>>>).value.server),
  );
  project.provide("e2eDemo", { email: "demo@toolbox.local", password: DEMO_PASSWORD });
  return async () => {
    await stopAll();
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    /** One per worker: its Toolbox's address and the port that Toolbox mails to. */
    e2eServers: { baseUrl: string; smtpPort: number }[];
    e2eDemo: { email: string; password: string };
    /** The run's one Chromium, which every test file connects to (./browser.ts). */
    e2eBrowser: string;
  }
}
