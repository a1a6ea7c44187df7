import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { decodeJwt } from "jose";
import { Secret, TOTP } from "otpauth";
import { launchBrowser, newContext, signInAtProvider, toastsSeen } from "./browser.ts";
import { layoutShown, onProvider, signUp } from "./support/people.ts";

/** A code of the secret for the step `offset` steps from now, as an authenticator app shows it. */
const codeAt = (secret: string, offset = 0) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + offset * 30_000 });

/** What the app's stored access token says about how the person signed in. */
async function amrOf(page: Page): Promise<unknown> {
  const token = await page.evaluate(() => {
    const key = Object.keys(localStorage).find((k) => k.startsWith("oidc.user:"));
    return key ? (JSON.parse(localStorage.getItem(key)!) as { access_token: string }).access_token : "";
  });
  return decodeJwt(token).amr;
}

describe("a member turns on two-factor sign-in", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  it("enrols with the QR code's secret, saves the recovery codes, and is asked for a code at the next sign-in", async () => {
    const email = `totp.${Date.now()}@example.com`;
    const password = "quartz-meadow-falcon-27";
    const page = await (await newContext(browser)).newPage();

    // A newcomer signs up.
    await signUp(page, { name: "Tess Totp", email, password });

    // Settings → Security: set up two-factor with the secret shown next to the QR code.
    await page.goto("/settings/security");
    const section = page.getByRole("region", { name: "Your two-factor sign-in" });
    await section.getByRole("button", { name: "Set up two-factor sign-in" }).click();
    await expect.poll(() => section.getByRole("img", { name: "QR code for your authenticator app" }).isVisible(), { timeout: 15_000 }).toBe(true);
    const secret = (await section.getByLabel("Secret key").textContent())!.replace(/\s/g, "");
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);

    // A wrong code is refused with a readable message; the previous step's code turns it on (the current one is kept for the sign-in).
    await section.getByLabel("Code from the app").fill(codeAt(new Secret({ size: 20 }).base32));
    await section.getByRole("button", { name: "Turn on" }).click();
    await section.getByRole("alert").filter({ hasText: "does not match" }).waitFor({ timeout: 15_000 });
    if (TOTP.remaining({ period: 30 }) < 8_000) await page.waitForTimeout(TOTP.remaining({ period: 30 }) + 200);
    await section.getByLabel("Code from the app").fill(codeAt(secret, -1));
    await section.getByRole("button", { name: "Turn on" }).click();

    const codes = section.getByRole("list", { name: "Your recovery codes" }).getByRole("listitem");
    await expect.poll(() => codes.count(), { timeout: 15_000 }).toBe(10);
    await section.getByRole("button", { name: "I have saved them" }).click();
    await expect.poll(() => section.getByText(/On since .*10 recovery codes left\./).isVisible(), { timeout: 15_000 }).toBe(true);
    expect(await amrOf(page)).toEqual(["pwd"]);

    // Signs out, and in again: after the password, the provider asks for a code.
    await page.getByRole("button", { name: /^Account:/ }).click();
    await page.getByRole("menuitem", { name: "Sign out" }).click();
    await onProvider(page);
    await page.getByLabel(/email/i).waitFor({ timeout: 20_000 });
    await signInAtProvider(page, { email, password });
    await page.getByRole("heading", { name: "Two-factor sign-in" }).waitFor({ timeout: 20_000 });
    const codeField = page.getByLabel("Authentication code");
    expect(await codeField.getAttribute("autocomplete")).toBe("one-time-code");

    // The code that turned it on was used already: refused, with the reason next to the field.
    await codeField.fill(codeAt(secret, -1));
    await page.getByRole("button", { name: "Verify" }).click();
    await page.getByText("This code is not correct, or it was already used.").waitFor({ timeout: 15_000 });

    await page.getByLabel("Authentication code").fill(codeAt(secret, 0));
    await page.getByRole("button", { name: "Verify" }).click();
    await page.waitForURL((u) => !u.pathname.startsWith("/oidc/"), { timeout: 30_000 });
    await layoutShown(page);
    expect(await amrOf(page)).toEqual(["pwd", "otp"]);
    expect(toastsSeen(page).filter((t) => t.includes("Error"))).toEqual([]);
  });
});
