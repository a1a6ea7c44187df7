import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { baseUrl, demo, launchBrowser, newContext, signInAtProvider, toastsSeen } from "./browser.ts";

const onProvider = (page: Page) => page.waitForURL((u) => u.pathname.startsWith("/oidc/"), { timeout: 20_000 });

/** What a program does with the client's credentials: the token endpoint, then the API. */
async function machineCall(clientId: string, secret: string) {
  const tokenRes = await fetch(`${baseUrl()}/oidc/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString("base64")}` },
    body: new URLSearchParams({ grant_type: "client_credentials", resource: "urn:toolbox:api" }),
  });
  return tokenRes;
}

async function accountsWith(token: string, organizationId: string) {
  return fetch(`${baseUrl()}/api/accounts?limit=1`, { headers: { authorization: `Bearer ${token}`, organizationid: organizationId } });
}

describe("an administrator creates an API client, sees its secret once, and revokes it", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => browser?.close());

  it("the client reads accounts with its secret until it is revoked", async () => {
    const page = await (await newContext(browser)).newPage();
    await page.goto("/settings/security");
    await onProvider(page);
    await signInAtProvider(page, demo());
    await page.waitForURL(`${baseUrl()}/settings/security`, { timeout: 20_000 });
    const name = `Reporting ${Date.now()}`;

    await page.getByRole("button", { name: "New API client" }).click();
    await page.getByLabel("Name").fill(name);
    // The members' permission editor, without the Administrator preset; "Trading accounts: read" is preset.
    expect(await page.getByRole("checkbox", { name: "Trading accounts: Read" }).isChecked()).toBe(true);
    await page.getByRole("button", { name: "Create client" }).click();

    await page.getByText("you will not see it again").waitFor({ timeout: 15_000 });
    const clientId = await page.getByRole("textbox", { name: "Client id" }).inputValue();
    const secret = await page.getByRole("textbox", { name: "Client secret" }).inputValue();
    expect(clientId).toMatch(/^tbc_/);
    expect(secret.length).toBeGreaterThanOrEqual(43);
    await page.getByRole("button", { name: "I have saved the secret" }).click();

    const organizationId: string = await page.evaluate(() => JSON.parse(localStorage.getItem("toolbox-profile") ?? "{}").state?.currentOrganizationId);
    const tokenRes = await machineCall(clientId, secret);
    expect(tokenRes.status).toBe(200);
    const { access_token: token } = (await tokenRes.json()) as { access_token: string };
    expect((await accountsWith(token, organizationId)).status).toBe(200);

    // Listed without its secret; the page never shows it again.
    const row = page.getByRole("list", { name: "API clients" }).getByRole("listitem").filter({ hasText: name });
    await row.waitFor();
    expect(await page.content()).not.toContain(secret);

    await row.getByRole("button", { name: `Revoke the API client ${name}` }).click();
    await page.getByRole("button", { name: `Revoke ${name}` }).click();
    await expect.poll(() => toastsSeen(page).some((t) => t.includes("API client revoked")), { timeout: 15_000 }).toBe(true);
    await row.waitFor({ state: "detached" });
    expect((await accountsWith(token, organizationId)).status).toBe(401);
    expect((await machineCall(clientId, secret)).status).toBe(401);
  });
});
