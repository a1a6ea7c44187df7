/**
 * Customers as a back-office clerk works them (docs/requirements.md#r-areas): create a customer, link two accounts on
 * different demo platforms, see their balances on the customer's panel, find the customer by
 * e-mail in the list (the filter lives in the URL), export the view and read the CSV, import a
 * file with one bad row and see it reported by line.
 *
 * Each case sets up what it needs (its own customers, under its own stamp, created through the
 * API where the screen that creates them is not what the case is about), so any one runs alone
 * and in any order: the page is only signed in once, and starts every case on /customers.
 */
import { readFile } from "node:fs/promises";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseCsv } from "../../server/modules/customers/csv.ts";
import { demo, downloaded, launchBrowser, newContext, signInAtProvider } from "./browser.ts";
import { apiAs } from "./support/api.ts";
import { layoutShown } from "./support/people.ts";

interface AccountRow {
  platformId: string;
  platformName: string;
  login: string;
  balance: string;
}

const moneyText = (s: string) => Number(s.replace(/[^\d.-]/g, ""));

/** A stamp no other case shares (none is a part of another), so what one case creates never shows in another's list. */
const newStamp = () => `${Date.now().toString(36)}${crypto.randomUUID().slice(0, 8)}`;

describe("customers as a back-office clerk works them", () => {
  let browser: Browser;
  let page: Page;
  let api: ReturnType<typeof apiAs>;
  let stamp: string;
  let email: string;
  let name: string;

  /** A person customer with an e-mail address, a country and no owner, as the clerk would create it. */
  async function createCustomer(fields: { name: string; email?: string; country?: string }): Promise<string> {
    const created = await api.post<{ id: string }>("/api/customers", { kind: "person", ...fields });
    expect(created.status, created.text).toBe(201);
    return created.json.id;
  }

  beforeAll(async () => {
    browser = await launchBrowser();
    page = await (await newContext(browser, { acceptDownloads: true, viewport: { width: 2400, height: 1000 } })).newPage();
    await page.goto("/customers");
    await page.waitForURL((u) => u.pathname.startsWith("/oidc/"), { timeout: 20_000 });
    await signInAtProvider(page, demo());
    await page.waitForURL(/\/customers/, { timeout: 20_000 });
    api = apiAs(page);
  });
  beforeEach(async () => {
    stamp = newStamp();
    email = `clerk.case.${stamp}@example.com`;
    name = `Case ${stamp}`;
    await page.goto("/customers");
    // Through the preflight: the organization the API calls below are made in is chosen.
    await layoutShown(page);
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
    const pick = async (dir: string) => (await api.get<{ items: AccountRow[] }>(`/api/accounts?sort=platformId&dir=${dir}&limit=1`)).items[0]!;
    const picks = [await pick("asc"), await pick("desc")];
    expect(picks[0]!.platformId).not.toBe(picks[1]!.platformId);
    for (const a of picks) {
      await panel.getByLabel("Link an account").fill(a.login);
      await panel.getByRole("button", { name: `Link ${a.login} on ${a.platformName}` }).click();
      await panel.locator(`tr[data-account="${a.platformName}:${a.login}"]`).waitFor({ timeout: 15_000 });
    }
    for (const a of picks) {
      const row = panel.locator(`tr[data-account="${a.platformName}:${a.login}"]`);
      const live = (await api.get<{ balance: string }>(`/api/accounts/${a.platformId}/${a.login}`)).balance;
      // The panel reads the figures again every few seconds: it shows the mirror's live balance.
      await expect.poll(async () => moneyText((await row.locator("td").nth(3).textContent()) ?? ""), { timeout: 15_000 }).toBeCloseTo(Number(live), 0);
    }
    await panel.getByRole("button", { name: "Close customer" }).click();
  });

  it("finds the customer by e-mail (the filter is in the URL) and exports the view", async () => {
    await createCustomer({ name, email, country: "se" });
    await page.getByLabel("Search").fill(email.toUpperCase());
    await page.waitForURL((u) => u.searchParams.get("q") === email.toUpperCase(), { timeout: 10_000 });
    await expect.poll(() => page.locator('[role="gridcell"][col-id="name"]').allTextContents(), { timeout: 15_000 }).toEqual([name]);
    await page.reload();
    await expect.poll(() => page.locator('[role="gridcell"][col-id="name"]').allTextContents(), { timeout: 20_000 }).toEqual([name]);

    const [download] = await Promise.all([page.waitForEvent("download", { timeout: 20_000 }), page.getByRole("button", { name: "Export CSV" }).click()]);
    const records = parseCsv(await readFile(await downloaded(download), "utf8")).map((r) => r.fields);
    expect(records).toEqual([
      ["kind", "name", "email", "phone", "country", "status", "kyc", "tags", "owner"],
      ["person", name, email, "", "SE", "lead", "notStarted", "", ""],
    ]);
  });

  it("gives a customer an owner, filters the list by owner (in the URL), and takes the owner away", async () => {
    // A customer nobody owns, under the same stamp: the list filtered by owner leaves it out.
    await createCustomer({ name, email, country: "se" });
    const ownedName = `Owned ${stamp}`;
    await page.getByRole("button", { name: "New customer" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Name").fill(ownedName);
    await dialog.getByRole("combobox", { name: "Owner" }).click();
    await page.getByRole("option", { name: demo().email }).click();
    await dialog.getByRole("button", { name: "Create customer" }).click();
    await page.waitForURL((u) => !!u.searchParams.get("customer"), { timeout: 15_000 });
    const panel = page.getByRole("dialog");
    await panel.getByRole("heading", { name: ownedName }).waitFor();
    const id = new URL(page.url()).searchParams.get("customer")!;
    const saved = await api.get<{ ownerSub: string | null; ownerName: string | null }>(`/api/customers/${id}`);
    expect(saved.ownerSub).toBeTruthy();
    await panel.getByText(saved.ownerName!, { exact: true }).waitFor();
    await panel.getByRole("button", { name: "Close customer" }).click();

    // The filter bar: this stamp's customers, then only those the demo member owns.
    await page.getByRole("search", { name: "Filter customers" }).getByLabel("Search").fill(stamp);
    await page.waitForURL((u) => u.searchParams.get("q") === stamp, { timeout: 10_000 });
    const names = () => page.locator('[role="gridcell"][col-id="name"]').allTextContents();
    await expect.poll(async () => (await names()).sort(), { timeout: 15_000 }).toEqual([name, ownedName].sort());
    await page.getByRole("search", { name: "Filter customers" }).getByRole("combobox", { name: "Owner" }).click();
    await page.getByRole("option", { name: demo().email }).click();
    await page.waitForURL((u) => u.searchParams.get("owner") === saved.ownerSub, { timeout: 10_000 });
    await expect.poll(names, { timeout: 15_000 }).toEqual([ownedName]);
    await page.reload();
    await expect.poll(names, { timeout: 20_000 }).toEqual([ownedName]);
    await expect.poll(() => page.getByRole("combobox", { name: "Owner" }).textContent(), { timeout: 10_000 }).toContain(demo().email);

    // Nobody: the customers without an owner.
    await page.getByRole("combobox", { name: "Owner" }).click();
    await page.getByRole("option", { name: "Nobody" }).click();
    await page.waitForURL((u) => u.searchParams.get("owner") === "none", { timeout: 10_000 });
    await expect.poll(names, { timeout: 15_000 }).toEqual([name]);

    // Editing takes the owner away: the customer is now among those nobody owns.
    await page.goto(`/customers?q=${stamp}&owner=none&customer=${id}`);
    const sheet = page.getByRole("dialog");
    await sheet.getByRole("heading", { name: ownedName }).waitFor({ timeout: 15_000 });
    await sheet.getByRole("button", { name: "Edit" }).click();
    const edit = page.getByRole("dialog", { name: `Edit ${ownedName}` });
    await edit.getByRole("combobox", { name: "Owner" }).click();
    await page.getByRole("option", { name: "Nobody" }).click();
    await edit.getByRole("button", { name: "Save" }).click();
    await edit.waitFor({ state: "hidden" });
    expect((await api.get<{ ownerSub: string | null }>(`/api/customers/${id}`)).ownerSub).toBeNull();
    await sheet.getByRole("button", { name: "Close customer" }).click();
    await expect.poll(async () => (await names()).sort(), { timeout: 15_000 }).toEqual([name, ownedName].sort());
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
    expect((await api.get<{ total: number }>(`/api/customers?tag=imp${stamp}`)).total).toBe(0);

    await dialog.getByRole("button", { name: "Import the 2 valid rows only" }).click();
    await dialog.getByText("Imported 2 of 3 rows: 2 new.").waitFor({ timeout: 15_000 });
    expect((await api.get<{ total: number }>(`/api/customers?tag=imp${stamp}`)).total).toBe(2);
  });
});
