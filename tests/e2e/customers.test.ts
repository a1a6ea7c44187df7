/**
 * Customers as a back-office clerk works them (issue 10): create a customer, link two accounts on
 * different demo platforms, see their balances on the customer's panel, find the customer by
 * e-mail in the list (the filter lives in the URL), export the view and read the CSV, import a
 * file with one bad row and see it reported by line.
 */
import { readFile } from "node:fs/promises";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCsv } from "../../server/modules/customers/csv.ts";
import { demo, launchBrowser, newContext, signInAtProvider } from "./browser.ts";

async function apiFromPage<T>(page: Page, path: string): Promise<T> {
  return page.evaluate(async (p) => {
    const key = Object.keys(localStorage).find((k) => k.startsWith("oidc.user:"))!;
    const user = JSON.parse(localStorage.getItem(key)!);
    const profile = JSON.parse(localStorage.getItem("toolbox-profile") ?? "{}");
    const orgId = profile.state?.currentOrganizationId ?? "";
    const r = await fetch(p, { headers: { Authorization: `Bearer ${user.access_token}`, OrganizationId: orgId } });
    return r.json();
  }, path) as Promise<T>;
}

interface AccountRow {
  platformId: string;
  platformName: string;
  login: string;
  balance: string;
}

const moneyText = (s: string) => Number(s.replace(/[^\d.-]/g, ""));

describe("customers as a back-office clerk works them", () => {
  let browser: Browser;
  let page: Page;
  const stamp = Date.now().toString(36);
  const email = `clerk.case.${stamp}@example.com`;
  const name = `Case ${stamp}`;

  beforeAll(async () => {
    browser = await launchBrowser();
    page = await (await newContext(browser, { acceptDownloads: true, viewport: { width: 2400, height: 1000 } })).newPage();
    await page.goto("/customers");
    await page.waitForURL((u) => u.pathname.startsWith("/oidc/"), { timeout: 20_000 });
    await signInAtProvider(page, demo());
    await page.waitForURL(/\/customers/, { timeout: 20_000 });
  });
  afterAll(() => browser?.close());

  it("creates a customer, links accounts on two platforms and sees their balances", async () => {
    await page.getByRole("button", { name: "New customer" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Name").fill(name);
    await dialog.getByLabel("Email").fill("not-an-address");
    await dialog.getByRole("button", { name: "Create customer" }).click();
    await dialog.getByText("email must be an e-mail address").waitFor();
    await dialog.getByLabel("Email").fill(email);
    await dialog.getByLabel("Country").fill("se");
    await dialog.getByRole("button", { name: "Create customer" }).click();
    await page.waitForURL((u) => !!u.searchParams.get("customer"), { timeout: 15_000 });
    const panel = page.getByRole("dialog");
    await panel.getByRole("heading", { name }).waitFor();

    // One account on each of two demo platforms (accounts no customer has yet).
    // Sorted by platform both ways: the first rows are on two different platforms.
    const pick = async (dir: string) => (await apiFromPage<{ items: AccountRow[] }>(page, `/api/accounts?sort=platformId&dir=${dir}&limit=1`)).items[0]!;
    const picks = [await pick("asc"), await pick("desc")];
    expect(picks[0]!.platformId).not.toBe(picks[1]!.platformId);
    for (const a of picks) {
      await panel.getByLabel("Link an account").fill(a.login);
      await panel.getByRole("button", { name: `Link ${a.login} on ${a.platformName}` }).click();
      await panel.locator(`tr[data-account="${a.platformName}:${a.login}"]`).waitFor({ timeout: 15_000 });
    }
    for (const a of picks) {
      const row = panel.locator(`tr[data-account="${a.platformName}:${a.login}"]`);
      const live = (await apiFromPage<{ balance: string }>(page, `/api/accounts/${a.platformId}/${a.login}`)).balance;
      // The panel reads the figures again every few seconds: it shows the mirror's live balance.
      await expect.poll(async () => moneyText((await row.locator("td").nth(3).textContent()) ?? ""), { timeout: 15_000 }).toBeCloseTo(Number(live), 0);
    }
    await panel.getByRole("button", { name: "Close customer" }).click();
  });

  it("finds the customer by e-mail (the filter is in the URL) and exports the view", async () => {
    await page.getByLabel("Search").fill(email.toUpperCase());
    await page.waitForURL((u) => u.searchParams.get("q") === email.toUpperCase(), { timeout: 10_000 });
    await expect.poll(() => page.locator('[role="gridcell"][col-id="name"]').allTextContents(), { timeout: 15_000 }).toEqual([name]);
    await page.reload();
    await expect.poll(() => page.locator('[role="gridcell"][col-id="name"]').allTextContents(), { timeout: 20_000 }).toEqual([name]);

    const [download] = await Promise.all([page.waitForEvent("download", { timeout: 20_000 }), page.getByRole("button", { name: "Export CSV" }).click()]);
    const records = parseCsv(await readFile(await download.path(), "utf8")).map((r) => r.fields);
    expect(records).toEqual([
      ["kind", "name", "email", "phone", "country", "status", "kyc", "tags", "owner"],
      ["person", name, email, "", "SE", "lead", "notStarted", "", ""],
    ]);
  });

  it("imports a file with one bad row: reported by line, nothing written until the valid rows are chosen", async () => {
    const file = [
      `kind,name,email,country,tags`,
      `person,Good One,good1.${stamp}@example.com,NO,imp${stamp}`,
      `person,Bad Row,bad-address,XX,imp${stamp}`,
      `company,Good Two AB,,SE,imp${stamp}`,
    ].join("\n");
    await page.getByRole("button", { name: "Import CSV" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("CSV file").setInputFiles({ name: "customers.csv", mimeType: "text/csv", buffer: Buffer.from(file) });
    await dialog.getByRole("button", { name: "Check the file" }).click();
    await dialog.getByText("3 rows: 2 valid, 1 with errors").waitFor({ timeout: 15_000 });
    const rows = await dialog.getByRole("table", { name: "Rows with errors" }).locator("tbody tr").allTextContents();
    expect(rows).toEqual([expect.stringMatching(/^3email.*e-mail address/), expect.stringMatching(/^3country.*ISO 3166-1/)]);
    expect((await apiFromPage<{ total: number }>(page, `/api/customers?tag=imp${stamp}`)).total).toBe(0);

    await dialog.getByRole("button", { name: "Import the 2 valid rows only" }).click();
    await dialog.getByText("Imported 2 of 3 rows.").waitFor({ timeout: 15_000 });
    expect((await apiFromPage<{ total: number }>(page, `/api/customers?tag=imp${stamp}`)).total).toBe(2);
  });
});
