/**
 * A newcomer connects a real Match-Trader server through "Your server": the local Match-Trader
 * Broker API protocol server (the one `npm run simulator` runs: REST over HTTPS and the gRPC feed
 * over TLS, with its own CA), started by this test. A wrong API key explains itself; the right one
 * tests green, saves, and the server's accounts show in /users.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { selfSignedCertificate, type TestCertificate } from "../../server/protocolServers/certificates.ts";
import { PROTOCOL_SERVERS, type RunningProtocolServer } from "../../server/protocolServers/registry.ts";
import { launchBrowser, newContext } from "./browser.ts";
import { filterUsersToFirstLogin } from "./support/accounts.ts";
import { apiAs } from "./support/api.ts";
import { signUp } from "./support/people.ts";

const ACCOUNTS = 25;

describe("a newcomer connects their Match-Trader server", () => {
  let browser: Browser;
  let tls: TestCertificate;
  let server: RunningProtocolServer;
  const detail = (label: string) => server.details.find(([l]) => l === label)?.[1] ?? "";

  beforeAll(async () => {
    tls = await selfSignedCertificate();
    const matchTrader = PROTOCOL_SERVERS.find((s) => s.name === "matchTraderApi")!;
    server = await matchTrader.start({ host: "127.0.0.1", port: 0, seed: 7007, accounts: ACCOUNTS, tradeRate: 0, tls });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("tests the connection (a wrong API key explained), saves it, and sees its accounts in /users", async () => {
    const page = await (await newContext(browser)).newPage();
    await signUp(page, { name: "Grace Hopper", email: `grace.${Date.now()}@example.com`, password: "compiler-a0-1952" });

    await page
      .getByRole("link", { name: /Connect a platform/ })
      .first()
      .click();
    await page.waitForURL(/\/tradePlatforms\/new$/);
    await page.locator('input[name="type"][value="MatchTrader"]').check();
    await page.locator('input[name="source"][value="server"]').check();
    await page.getByLabel("Name").fill("Broker Match-Trader");

    // Plain HTTP is refused next to its field, before anything is sent.
    await page.getByLabel("API URL").fill(detail("API URL").replace("https:", "http:"));
    await page.getByLabel("API key").fill("not-the-api-key");
    await page.getByRole("button", { name: "Test connection" }).click();
    await expect.poll(() => page.getByText("apiUrl must be an https:// URL").count(), { timeout: 10_000 }).toBeGreaterThan(0);

    await page.getByLabel("API URL").fill(detail("API URL"));
    await page.getByLabel("Live feed address (optional)").fill(detail("gRPC feed"));
    await page.getByLabel("CA certificate (optional)").fill(tls.ca);

    const outcome = page.getByRole("status");
    await page.getByRole("button", { name: "Test connection" }).click();
    await expect.poll(() => outcome.textContent(), { timeout: 20_000 }).toMatch(/refused the API key: it is wrong, expired or revoked/);

    await page.getByLabel("API key").fill(detail("API token"));
    await page.getByRole("button", { name: "Test connection" }).click();
    await expect.poll(() => outcome.textContent(), { timeout: 20_000 }).toMatch(new RegExp(`Connected.*${ACCOUNTS} trading accounts`));

    await page.getByRole("button", { name: "Connect platform" }).click();
    await page.waitForURL(/\/tradePlatforms\/MatchTrader\/[0-9a-f-]{36}\/settings$/, { timeout: 20_000 });
    const platformId = page.url().split("/")[5];
    const sidebarLink = page.getByRole("link", { name: /Broker Match-Trader/ }).first();
    await expect.poll(() => sidebarLink.textContent(), { timeout: 20_000 }).toMatch(/Connected/);

    await page.getByRole("link", { name: "Users" }).first().click();
    await page.waitForURL(/\/users/);
    await filterUsersToFirstLogin(page);
    // Every account of the server is there, as the page's own API answers them.
    const page1 = await apiAs(page).get<{ total: number }>(`/api/accounts?platformId=${platformId}&limit=100`);
    expect(page1.total).toBe(ACCOUNTS);
  });
});
