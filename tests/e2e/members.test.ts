import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { invitationLinkIn } from "../helpers/smtp.ts";
import { baseUrl, demo, launchBrowser, newContext, signInAtProvider, toastsSeen } from "./browser.ts";
import { loginCell } from "./support/accounts.ts";
import { apiAs } from "./support/api.ts";
import { mailbox } from "./support/mail.ts";
import { onProvider, signUp } from "./support/people.ts";

describe("an administrator invites a colleague as Viewer", () => {
  let browser: Browser;
  const smtp = mailbox();
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("e-mails the link; the colleague signs up (told they join the inviting organization), confirms the address with the e-mailed code, lands in the organization and sees its platforms, reads /users and is refused a deposit", async () => {
    const email = `colleague.${Date.now()}@example.com`;

    // The administrator invites.
    const admin = await (await newContext(browser)).newPage();
    await admin.goto("/settings/members");
    await onProvider(admin);
    await signInAtProvider(admin, demo());
    await admin.waitForURL(`${baseUrl()}/settings/members`, { timeout: 20_000 });
    await admin.getByRole("gridcell", { name: "demo@toolbox.local" }).waitFor({ timeout: 20_000 });
    await admin.getByLabel("E-mail address").fill(email);
    await expect.poll(() => admin.getByRole("combobox", { name: "Role" }).textContent()).toContain("Viewer");
    await admin.getByRole("button", { name: "Send invitation" }).click();
    await expect.poll(() => toastsSeen(admin).some((t) => t.includes("Invitation sent")), { timeout: 15_000 }).toBe(true);
    await admin.getByRole("list", { name: "Pending invitations" }).getByText(email).waitFor();

    // The e-mail arrives at this test's SMTP server.
    const mail = await smtp.next((m) => JSON.stringify(m.to).includes(email));
    expect(mail.subject).toMatch(/^You are invited to an organization on Toolbox \(ref [0-9a-f]{8}\)$/);
    const link = invitationLinkIn(mail.text);
    expect(link.startsWith(`${baseUrl()}/settings/organizations#invitation=`)).toBe(true);

    // The colleague follows it, signs up, and lands in Demo Brokerage.
    const colleague = await (await newContext(browser)).newPage();
    // An invitation waits for this address: the provider asks to confirm it with the code it e-mails.
    let lead = "";
    await signUp(
      colleague,
      { name: "Carla Colleague", email, password: "teal-harbour-violin-58" },
      { from: link, confirmWith: smtp, onSignUpPage: async (page) => void (lead = (await page.locator("p.lead").textContent()) ?? "") },
    );
    expect(lead).toBe("You will join the organization that invited you: use the email address your invitation was sent to.");
    await expect.poll(() => colleague.getByRole("button", { name: /^Organization: Demo Brokerage/ }).isVisible(), { timeout: 15_000 }).toBe(true);
    // The page reports its toasts through an exposed binding, which answers asynchronously: poll.
    await expect.poll(() => toastsSeen(colleague).some((t) => t.includes("Invitation accepted")), { timeout: 10_000 }).toBe(true);
    // Their first screen is the organization's overview with its three platforms, not a first-run page.
    await colleague.getByRole("heading", { name: "Trade platforms" }).waitFor({ timeout: 15_000 });
    expect(await colleague.getByRole("heading", { name: "Connect your first trade platform" }).count()).toBe(0);
    const theirs = await apiAs(colleague).get<{ organizationId: string; name: string }[]>("/api/tradePlatforms");
    expect(theirs.length).toBeGreaterThanOrEqual(3);
    // Each of the organization's platforms is on the screen (a card holds lists of its own, so its items are not counted).
    const region = colleague.getByRole("region", { name: "Trade platforms" });
    for (const platform of theirs) await region.getByText(platform.name, { exact: true }).first().waitFor({ timeout: 15_000 });

    // As a Viewer: /users lists the accounts; no deposit is offered, and the API refuses one clearly.
    await colleague.goto("/users");
    await loginCell(colleague).waitFor({ timeout: 30_000 });
    await loginCell(colleague).click();
    await colleague
      .getByText(/Leverage/)
      .first()
      .waitFor({ timeout: 15_000 });
    expect(await colleague.getByRole("button", { name: "Balance operation" }).count()).toBe(0);
    const api = apiAs(colleague);
    const accounts = await api.get<{ items: { platformId: string; login: string }[] }>("/api/accounts");
    const account = accounts.items[0]!;
    const deposit = await api.post<{ message: string }>(
      `/api/accounts/${account.platformId}/${account.login}/balance-operations`,
      { type: "deposit", amount: "100", comment: "should be refused" },
      { "Idempotency-Key": crypto.randomUUID() },
    );
    expect(deposit.status).toBe(403);
    expect(deposit.json.message).toBe('You need the "money" permission on the "users" module in this organization. Ask its administrator.');

    // The administrator sees the new member with their role.
    await admin.reload();
    await admin.getByRole("gridcell", { name: email }).waitFor({ timeout: 20_000 });
    expect(await admin.getByRole("row").filter({ hasText: email }).getByText("Viewer").count()).toBe(1);
  });
});
