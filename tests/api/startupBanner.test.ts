/**
 * The start-up banner (where Toolbox runs, the demo password) is printed plainly and after the
 * start's log lines: after "Server listening", each demo platform's simulated server and the trade
 * feed's lease on it (the last lines before it, still in the asynchronous log's buffer) — not lost
 * among the JSON log lines. Toolbox runs as `npm start` runs it, in a
 * process of its own (tests/helpers/toolboxProcess.ts), on a fresh database, so the demo is seeded.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, inject, it } from "vitest";
import { describeDb, testDbKind } from "../helpers/db.ts";
import { createEmptyPostgresDatabase } from "../helpers/postgres.ts";
import { TEST_SECRETS_KEY } from "../helpers/testApp.ts";
import { freePort, killStartedToolboxes, startToolboxProcess } from "../helpers/toolboxProcess.ts";

describeDb("Start-up banner", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolbox-banner-"));
  let dropDatabase: (() => Promise<void>) | undefined;

  afterAll(async () => {
    await killStartedToolboxes();
    await dropDatabase?.();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("comes plainly after the connection log lines", { timeout: 600_000 }, async () => {
    const env: Record<string, string> = {
      DATA_DIR: path.join(dir, "data"),
      SECRETS_KEY: TEST_SECRETS_KEY,
      DATABASE_URL: "",
      LOG_LEVEL: "info",
      TOOLBOX_TEST_LOUD: "1",
    };
    if (testDbKind() === "postgres") {
      const empty = await createEmptyPostgresDatabase(inject("testDatabaseUrl"), "toolbox_banner");
      dropDatabase = () => empty.drop();
      env.DATABASE_URL = empty.url;
    }
    const toolbox = await startToolboxProcess({ port: await freePort(), env, logFile: path.join(dir, "toolbox.log"), timeoutMs: 300_000 });
    // Healthy means listening; the banner follows once the platforms have connected.
    for (const deadline = Date.now() + 150_000; !toolbox.output().includes("This password is shown only once");) {
      expect(Date.now(), toolbox.output().slice(-3000)).toBeLessThan(deadline);
      await new Promise((r) => setTimeout(r, 250));
    }
    const output = toolbox.output();
    const lines = output.split("\n");
    const banner = lines.findIndex((l) => l.includes(`Toolbox is running at ${toolbox.url}`));
    expect(banner).toBeGreaterThan(0);
    const lastIndex = (text: string) => lines.findLastIndex((l) => l.includes(text));
    const count = (text: string) => lines.filter((l) => l.startsWith("{") && l.includes(text)).length;
    expect(count("Server listening")).toBe(1);
    expect(lastIndex("Server listening")).toBeLessThan(banner);
    // The three demo platforms' simulated servers, before the banner.
    expect(
      lines.slice(0, banner).filter((l) => l.includes("simulated server runs on this node")),
      output,
    ).toHaveLength(3);
    // The trade feed's lease lines, logged just before the banner is let go and still in the
    // asynchronous log's buffer then: the banner is written behind them, never overtaking them.
    const lease = "this node publishes the platform's trade feed";
    expect(count(lease), output).toBe(3);
    expect(lastIndex(lease), output).toBeLessThan(banner);
    // Plain text: the password line is not a JSON log line.
    const password = lines.find((l) => l.includes("Sign in as demo@toolbox.local with password "));
    expect(password).toMatch(/^ {2}Sign in as demo@toolbox\.local with password \S{24}$/);
  });
});
