import type { Page } from "playwright-core";
import { confirmationCodeIn } from "../../helpers/smtp.ts";
import { baseUrl } from "../browser.ts";
import type { Mailbox } from "./mail.ts";

/** Someone who signs up: the name, address and password they type on the provider's sign-up page. */
export interface Person {
  name: string;
  email: string;
  password: string;
}

/** The embedded provider's pages (sign-in, sign-up, …) are showing. */
export const onProvider = (page: Page) => page.waitForURL((u) => u.pathname.startsWith("/oidc/"), { timeout: 20_000 });

/** The app's layout shows: signed in and through the preflight, an organization chosen. */
export const layoutShown = (page: Page) => page.getByRole("button", { name: /^Organization:/ }).waitFor({ timeout: 20_000 });

/**
 * Sign a newcomer up through the real pages: open `from` (the site root unless given, e.g. an
 * invitation link), follow "Create an account" on the provider, fill the form, and land in the
 * app with its layout shown.
 *
 * When an invitation waits for the address, the provider asks to confirm it with a code it
 * e-mails first: pass the mailbox the e-2-e server mails to (`confirmWith`, ./mail.ts), and the code is
 * read from the message and typed in.
 */
export async function signUp(
  page: Page,
  person: Person,
  options: { from?: string; confirmWith?: Mailbox; onSignUpPage?: (page: Page) => Promise<void> } = {},
): Promise<void> {
  await page.goto(options.from ?? "/");
  await onProvider(page);
  await page.getByRole("link", { name: "Create an account" }).click();
  await options.onSignUpPage?.(page);
  await page.getByLabel("Full name").fill(person.name);
  await page.getByLabel("Email").fill(person.email);
  await page.getByLabel("Password", { exact: true }).fill(person.password);
  await page.getByLabel("Confirm password").fill(person.password);
  await page.getByRole("button", { name: "Create account" }).click();
  if (options.confirmWith) {
    await page.getByRole("heading", { name: "Confirm your email address" }).waitFor({ timeout: 20_000 });
    const codeMail = await options.confirmWith.next((m) => JSON.stringify(m.to).includes(person.email) && /confirmation code/.test(m.subject ?? ""));
    await page.getByLabel("Confirmation code").fill(confirmationCodeIn(codeMail.text));
    await page.getByRole("button", { name: "Confirm", exact: true }).click();
  }
  await page.waitForURL(`${baseUrl()}/`, { timeout: 30_000 });
  await layoutShown(page);
}
