/**
 * A newcomer connects a real MT4 server through "Your server": the local MT4 manager gateway (the
 * one `npm run simulator` runs, HTTPS with its own CA), started by this test. A wrong password
 * explains itself; the right one tests green, saves, and the server's accounts show in /users.
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

describe("a newcomer connects their MT4 server", () => {
  let browser: Browser;
  let tls: TestCertificate;
  let server: RunningProtocolServer;
  const detail = (label: string) => server.details.find(([l]) => l === label)?.[1] ?? "";

  beforeAll(async () => {
    tls = await selfSignedCertificate();
    const mt4 = PROTOCOL_SERVERS.find((s) => s.name === "mt4Gateway")!;
    server = await mt4.start({ host: "127.0.0.1", port: 0, seed: 4004, accounts: ACCOUNTS, tradeRate: 0, tls });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("tests the connection (a wrong password explained), saves it, and sees its accounts in /users", async () => {
    const page = await (await newContext(browser)).newPage();
    await signUp(page, { name: "Dorothy Vaughan", email: `dorothy.${Date.now()}@example.com`, password: "orbital-mechanics-1962" });

    await page
      .getByRole("link", { name: /Connect a platform/ })
      .first()
      .click();
    await page.waitForURL(/\/tradePlatforms\/new$/);
    await page.locator('input[name="type"][value="MT4"]').check();
    await page.locator('input[name="source"][value="server"]').check();
    await page.getByLabel("Name").fill("Broker MT4");
    await page.getByLabel("Server address").fill(detail("Address"));
    await page.getByLabel("Manager login").fill(detail("Manager login"));
    await page.getByLabel("Manager password").fill("Not-the-password-1");
    await page.getByLabel("CA certificate (optional)").fill(tls.ca);

    const outcome = page.getByRole("status");
    await page.getByRole("button", { name: "Test connection" }).click();
    await expect.poll(() => outcome.textContent(), { timeout: 20_000 }).toMatch(/The manager login or password was refused/);

    await page.getByLabel("Manager password").fill(detail("Manager password"));
    await page.getByRole("button", { name: "Test connection" }).click();
    await expect.poll(() => outcome.textContent(), { timeout: 20_000 }).toMatch(new RegExp(`Connected.*${ACCOUNTS} trading accounts`));

    await page.getByRole("button", { name: "Connect platform" }).click();
    await page.waitForURL(/\/tradePlatforms\/MT4\/[0-9a-f-]{36}\/settings$/, { timeout: 20_000 });
    const platformId = page.url().split("/")[5];
    const sidebarLink = page.getByRole("link", { name: /Broker MT4/ }).first();
    await expect.poll(() => sidebarLink.textContent(), { timeout: 20_000 }).toMatch(/Connected/);

    await page.getByRole("link", { name: "Users" }).first().click();
    await page.waitForURL(/\/users/);
    await filterUsersToFirstLogin(page);
    // Every account of the server is there, as the page's own API answers them.
    const page1 = await apiAs(page).get<{ total: number }>(`/api/accounts?platformId=${platformId}&limit=100`);
    expect(page1.total).toBe(ACCOUNTS);
  });
});
