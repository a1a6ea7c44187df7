import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { resetLinkIn } from "../helpers/smtp.ts";
import { baseUrl, launchBrowser, newContext, signInAtProvider } from "./browser.ts";
import { mailbox } from "./support/mail.ts";
import { layoutShown, signUp } from "./support/people.ts";

const onSignInPage = (page: Page) => page.getByRole("heading", { name: "Sign in to Toolbox" }).waitFor({ timeout: 20_000 });

/** docs/security.md "Password change and reset", through the real pages. */
describe("a person changes their password, then resets a forgotten one", () => {
  let browser: Browser;
  const smtp = mailbox();
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("changes it under Settings → Security (signed out everywhere), then resets it by the e-mailed link", async () => {
    const email = `pat.${Date.now()}@example.com`;
    const page = await (await newContext(browser)).newPage();
    await signUp(page, { name: "Pat Password", email, password: "first-quince-harbor-11" });

    await page.goto("/settings/security");
    const form = page.getByRole("form", { name: "Change your password" });
    await form.getByLabel("Current password").fill("first-quince-harbor-11");
    await form.getByLabel("New password", { exact: true }).fill("second-walnut-comet-22");
    await form.getByLabel("Confirm new password").fill("second-walnut-comet-22");
    await form.getByRole("button", { name: "Change password" }).click();
    // Every session ended, this one too: the provider asks to sign in again.
    await onSignInPage(page);
    await signInAtProvider(page, { email, password: "second-walnut-comet-22" });
    await layoutShown(page);

    // Forgotten: from the sign-in page, a link by e-mail.
    const other = await (await newContext(browser)).newPage();
    await other.goto("/");
    await onSignInPage(other);
    await other.getByRole("link", { name: "Forgot your password?" }).click();
    await other.getByLabel("Email").fill(email);
    await other.getByRole("button", { name: "Send the link" }).click();
    await other.getByRole("heading", { name: "Check your email" }).waitFor();
    const mail = await smtp.next((m) => JSON.stringify(m.to).includes(email) && m.subject === "Reset your Toolbox password");
    const link = resetLinkIn(mail.text);
    expect(link.startsWith(`${baseUrl()}/oidc/password/reset?token=`)).toBe(true);
    await other.goto(link);
    await other.getByLabel("New password", { exact: true }).fill("third-meadow-piano-33");
    await other.getByLabel("Confirm new password").fill("third-meadow-piano-33");
    await other.getByRole("button", { name: "Save the new password" }).click();
    await other.getByRole("heading", { name: "Your password is changed" }).waitFor();
    await other.getByRole("link", { name: "Sign in" }).click();
    await onSignInPage(other);
    await signInAtProvider(other, { email, password: "third-meadow-piano-33" });
    await layoutShown(other);

    // The first browser's sign-in ended with the reset: its next call to the API is refused, and it is sent to sign in.
    await page.goto("/settings/security");
    await onSignInPage(page);
  });
});
