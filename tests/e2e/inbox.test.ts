import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { launchBrowser, newContext, toastsSeen } from "./browser.ts";
import { apiAs } from "./support/api.ts";
import { mailbox } from "./support/mail.ts";
import { connectSimulatedMt5 } from "./support/platforms.ts";
import { signUp } from "./support/people.ts";

describe("the inbox: a platform outage shows in the sidebar badge, live", () => {
  let browser: Browser;
  const smtp = mailbox();
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("counts the outage in the badge without a reload, lists it, marks it read; the settings screen adds a channel and refuses a metadata address", async () => {
    const page = await (await newContext(browser)).newPage();
    await signUp(page, { name: "Ida Inbox", email: `ida.${Date.now()}@example.com`, password: "notify-me-please-1" });
    const api = apiAs(page);
    // Signed in and through the preflight: the organization is chosen.
    await page
      .getByRole("link", { name: /Connect a platform/ })
      .first()
      .waitFor({ timeout: 20_000 });

    const platformId = await connectSimulatedMt5(page, "Outage MT5", 10);

    await page.goto("/inbox");
    await page.getByText("No notifications").waitFor({ timeout: 20_000 });
    const inboxLink = page.getByRole("navigation", { name: "Areas" }).getByRole("link", { name: /^Inbox/ });
    expect(await inboxLink.getByTestId("inbox-unread").count()).toBe(0);

    // The platform's link drops (the demo tool of simulated servers): the badge counts it, no reload.
    expect((await api.call("POST", `/api/tradePlatforms/${platformId}/simulator/faults`, { action: "disconnect" })).status).toBe(200);
    await expect.poll(async () => (await inboxLink.textContent()) ?? "", { timeout: 10_000 }).toMatch(/1 unread/);
    await expect.poll(() => inboxLink.getByTestId("inbox-unread").textContent()).toMatch(/^1/);

    // The page follows too: the notice is listed, with a link to the platform.
    const item = page.getByRole("listitem", { name: /^Unread: Outage MT5 disconnected/ });
    await item.waitFor({ timeout: 10_000 });
    expect(await item.getByRole("link", { name: "Open" }).getAttribute("href")).toBe(`/tradePlatforms/MT5/${platformId}/settings`);
    await item.getByRole("button", { name: /Mark .* read/ }).click();
    await expect.poll(() => inboxLink.getByTestId("inbox-unread").count(), { timeout: 10_000 }).toBe(0);
    await page.getByRole("listitem", { name: /^Outage MT5 disconnected/ }).waitFor();

    // Settings: a webhook to the cloud metadata address is refused inline; an e-mail channel is added and tested.
    await page.goto("/settings/notifications");
    const form = page.getByRole("form", { name: "Add a channel" });
    await form.getByLabel("Name").fill("Metadata");
    await form.getByLabel("URL").fill("http://169.254.169.254/latest/meta-data");
    await form.getByLabel("Secret").fill("a-secret-of-sixteen-plus");
    await form.getByRole("button", { name: "Add channel" }).click();
    await form.getByText(/private, loopback, link-local or reserved address/).waitFor({ timeout: 10_000 });

    await form.getByLabel("Kind").click();
    await page.getByRole("option", { name: "E-mail" }).click();
    await form.getByLabel("Name").fill("Risk desk");
    await form.getByLabel("Recipients").fill("risk@example.com");
    await form.getByRole("button", { name: "Add channel" }).click();
    const channel = page.getByRole("listitem", { name: "E-mail channel Risk desk" });
    await channel.waitFor({ timeout: 10_000 });
    // The address has not confirmed yet: nothing is mailed to it but its confirmation link.
    const recipients = channel.getByRole("list", { name: "Recipients of Risk desk" });
    await recipients.getByText("Waiting for confirmation").waitFor();
    await channel.getByRole("button", { name: "Send test" }).click();
    await expect.poll(() => toastsSeen(page).join("|"), { timeout: 10_000 }).toMatch(/no recipient of this channel has confirmed/);
    const confirmation = await smtp.next((m) => JSON.stringify(m.to).includes("risk@example.com"));
    expect(confirmation.subject).toMatch(/^Confirm e-mail notifications from Toolbox \(channel [0-9a-f]{8}\)$/);
    const link = /(https?:\/\/\S+\/api\/notifications\/recipients\/confirm\?token=[A-Za-z0-9_-]+)/.exec(confirmation.text ?? "")?.[1];
    expect(link).toBeDefined();
    await page.goto(link!);
    await page.getByRole("button", { name: "Confirm" }).click();
    await page.getByRole("heading", { name: "Address confirmed" }).waitFor();
    await page.goto("/settings/notifications");
    await page.getByRole("list", { name: "Recipients of Risk desk" }).getByText("Confirmed").waitFor({ timeout: 10_000 });
    await page.getByRole("listitem", { name: "E-mail channel Risk desk" }).getByRole("button", { name: "Send test" }).click();
    await expect.poll(() => toastsSeen(page).join("|"), { timeout: 10_000 }).toMatch(/Test sent/);
    // …and the test message reaches the mailbox through the server's SMTP, its subject naming no one.
    const mail = await smtp.next((m) => JSON.stringify(m.to).includes("risk@example.com") && m !== confirmation);
    expect(mail.subject).toMatch(/^Toolbox: Test notification \(ref [0-9a-f]{8}\)$/);

    await api.call("POST", `/api/tradePlatforms/${platformId}/simulator/faults`, { action: "restore" });
  }, 90_000);
});
