/**
 * Signing in through an external OpenID Connect provider (docs/security.md): a provider run by this test
 * on its own port with its own login page, as a broker's Keycloak or Entra ID would be, and a
 * Toolbox started for it with OIDC_AUTHORITY, OIDC_CLIENT_ID and OIDC_AUDIENCE. Chromium signs in
 * there, lands in an organization of its own and reads an API-backed page.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { startExternalIdp, type ExternalIdp } from "../helpers/externalIdp.ts";
import { launchBrowser, newContext } from "./browser.ts";

const CLIENT_ID = "toolbox-spa";
const AUDIENCE = "https://toolbox.api.example";

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

describe("signing in through an external identity provider", () => {
  let idp: ExternalIdp;
  let child: ChildProcess;
  let browser: Browser;
  let appUrl: string;
  let dataDir: string;

  beforeAll(async () => {
    const port = await freePort();
    appUrl = `http://localhost:${port}`;
    idp = await startExternalIdp({ clientId: CLIENT_ID, audience: AUDIENCE, appUrl });
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "toolbox-e2e-external-"));
    const out = fs.openSync(path.resolve("test-results", "e2e-external-server.log"), "w");
    child = spawn(process.execPath, ["--import", "tsx", "server/start.ts"], {
      env: {
        ...process.env,
        NODE_ENV: "production",
        PORT: String(port),
        HOST: "localhost",
        PUBLIC_URL: appUrl,
        DATA_DIR: dataDir,
        LOG_LEVEL: "warn",
        DATABASE_URL: "",
        OIDC_AUTHORITY: idp.issuer,
        OIDC_CLIENT_ID: CLIENT_ID,
        OIDC_AUDIENCE: AUDIENCE,
      },
      stdio: ["ignore", out, out],
    });
    const until = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`Toolbox exited early with code ${child.exitCode} (test-results/e2e-external-server.log)`);
      if (
        await fetch(`${appUrl}/api/health`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      if (Date.now() > until) throw new Error("Toolbox did not become healthy");
      await new Promise((r) => setTimeout(r, 250));
    }
    browser = await launchBrowser();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    if (child && child.exitCode === null) {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    }
    await idp?.close();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("signs in at the external provider's own page, lands in a new organization and reads the members page", async () => {
    const page = await (await newContext(browser, { baseURL: appUrl })).newPage();
    await page.goto("/settings/members");
    // The external provider's login page, not Toolbox's.
    await page.waitForURL((u) => u.origin === idp.issuer, { timeout: 20_000 });
    await page.locator('input[name="login"]').fill("eve");
    await page.locator('input[name="password"]').fill("anything");
    await page.getByRole("button", { name: "Sign-in" }).click();
    await page.getByRole("button", { name: "Continue" }).click();

    await page.waitForURL(`${appUrl}/settings/members`, { timeout: 20_000 });
    await page.getByRole("button", { name: /^Organization:/ }).waitFor({ timeout: 20_000 });
    // The members list comes from the API, read with the external provider's access token.
    await expect.poll(() => page.getByText("eve@external.example").first().isVisible(), { timeout: 20_000 }).toBe(true);
    const token = await page.evaluate(() => {
      const key = Object.keys(localStorage).find((k) => k.startsWith("oidc.user:"));
      return key ? (JSON.parse(localStorage.getItem(key)!) as { access_token: string }).access_token : null;
    });
    expect(token).toBeTruthy();
    const claims = JSON.parse(Buffer.from(token!.split(".")[1]!, "base64url").toString()) as { iss: string; aud: string };
    expect(claims.iss).toBe(idp.issuer);
    expect(claims.aud).toBe(AUDIENCE);
  });
});
