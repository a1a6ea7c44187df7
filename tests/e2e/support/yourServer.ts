/**
 * A newcomer connects a real trade server through "Your server", the same way for every platform
 * kind: the local protocol server of that kind (server/protocolServers/registry.ts, the one `npm
 * run simulator` runs, over TLS with its own CA) is started for the describe block; the newcomer
 * signs up, fills the connection in, tests it with a wrong credential (explained), then the right
 * one (green), saves it, and sees the server's accounts in /users. Each kind's test file names
 * only what differs: its fields and the vendor's refusal.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TradePlatformType } from "../../../core/trading/index.ts";
import { selfSignedCertificate, type TestCertificate } from "../../../server/protocolServers/certificates.ts";
import { PROTOCOL_SERVERS, type RunningProtocolServer } from "../../../server/protocolServers/registry.ts";
import { launchBrowser, newContext } from "../browser.ts";
import { filterUsersToFirstLogin } from "./accounts.ts";
import { apiAs } from "./api.ts";
import { signUp } from "./people.ts";

const ACCOUNTS = 25;

/** A value of the running protocol server's details (its address, its credentials …), by label. */
export type Detail = (label: string) => string;

export interface YourServerCase {
  /** As a dealer says it, in the test's name and the platform's ("Broker Match-Trader"). */
  platform: string;
  /** The form's platform type, also in the platform's URL. */
  type: TradePlatformType;
  /** The protocol server's name in server/protocolServers/registry.ts, and the seed of its accounts. */
  protocolServer: string;
  seed: number;
  newcomer: { name: string; password: string };
  /** What the wrong credential is, in the test's name: "password", "API key". */
  credential: string;
  /** Fills the connection's fields (not the CA certificate) with a wrong credential, checking what the kind's form checks itself. */
  fillWrong(page: Page, detail: Detail): Promise<void>;
  /** How the connection test explains the wrong credential. */
  refused: RegExp;
  /** Puts the right credential in. */
  fillRight(page: Page, detail: Detail): Promise<void>;
}

/** MT4 and MT5: a server address, a manager login and its password. */
export const MANAGER_LOGIN = {
  credential: "password",
  async fillWrong(page: Page, detail: Detail) {
    await page.getByLabel("Server address").fill(detail("Address"));
    await page.getByLabel("Manager login").fill(detail("Manager login"));
    await page.getByLabel("Manager password").fill("Not-the-password-1");
  },
  refused: /The manager login or password was refused/,
  async fillRight(page: Page, detail: Detail) {
    await page.getByLabel("Manager password").fill(detail("Manager password"));
  },
} satisfies Pick<YourServerCase, "credential" | "fillWrong" | "refused" | "fillRight">;

export function describeYourServer(c: YourServerCase): void {
  describe(`a newcomer connects their ${c.platform} server`, () => {
    let browser: Browser;
    let tls: TestCertificate;
    let server: RunningProtocolServer;
    const detail: Detail = (label) => server.details.find(([l]) => l === label)?.[1] ?? "";

    beforeAll(async () => {
      tls = await selfSignedCertificate();
      const kind = PROTOCOL_SERVERS.find((s) => s.name === c.protocolServer);
      if (!kind) throw new Error(`no protocol server named ${c.protocolServer}`);
      server = await kind.start({ host: "127.0.0.1", port: 0, seed: c.seed, accounts: ACCOUNTS, tradeRate: 0, tls });
      browser = await launchBrowser();
    });
    afterAll(async () => {
      await browser?.close();
      await server?.close();
    });

    it(`tests the connection (a wrong ${c.credential} explained), saves it, and sees its accounts in /users`, async () => {
      const page = await (await newContext(browser)).newPage();
      const firstName = c.newcomer.name.split(" ")[0]!.toLowerCase();
      await signUp(page, { ...c.newcomer, email: `${firstName}.${Date.now()}@example.com` });

      await page
        .getByRole("link", { name: /Connect a platform/ })
        .first()
        .click();
      await page.waitForURL(/\/tradePlatforms\/new$/);
      await page.locator(`input[name="type"][value="${c.type}"]`).check();
      await page.locator('input[name="source"][value="server"]').check();
      await page.getByLabel("Name").fill(`Broker ${c.platform}`);
      await c.fillWrong(page, detail);
      await page.getByLabel("CA certificate (optional)").fill(tls.ca);

      const outcome = page.getByRole("status");
      await page.getByRole("button", { name: "Test connection" }).click();
      await expect.poll(() => outcome.textContent(), { timeout: 20_000 }).toMatch(c.refused);

      await c.fillRight(page, detail);
      await page.getByRole("button", { name: "Test connection" }).click();
      await expect.poll(() => outcome.textContent(), { timeout: 20_000 }).toMatch(new RegExp(`Connected.*${ACCOUNTS} trading accounts`));

      await page.getByRole("button", { name: "Connect platform" }).click();
      await page.waitForURL(new RegExp(`/tradePlatforms/${c.type}/[0-9a-f-]{36}/settings$`), { timeout: 20_000 });
      const platformId = page.url().split("/")[5];
      const sidebarLink = page.getByRole("link", { name: new RegExp(`Broker ${c.platform}`) }).first();
      await expect.poll(() => sidebarLink.textContent(), { timeout: 20_000 }).toMatch(/Connected/);

      await page.getByRole("link", { name: "Users" }).first().click();
      await page.waitForURL(/\/users/);
      await filterUsersToFirstLogin(page);
      // Every account of the server is there, as the page's own API answers them.
      const page1 = await apiAs(page).get<{ total: number }>(`/api/accounts?platformId=${platformId}&limit=100`);
      expect(page1.total).toBe(ACCOUNTS);
    });
  });
}
