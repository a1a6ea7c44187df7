/**
 * Outgoing notification mail (docs/notifications.md, "E-mail recipients confirm" and "Limits"),
 * through the real server and a real SMTP server on loopback, on both databases: an e-mail
 * channel's addresses get a confirmation link and nothing else until they confirm (opening the
 * link shows a button; only the POST confirms); the channel mails confirmed addresses only; no
 * subject carries a name the organization chose (its name, a channel's, a platform's); and the
 * organization's e-mails an hour are limited (NOTIFICATIONS_MAX_EMAILS_PER_HOUR), confirmations
 * counted, another organization untouched.
 */
import { eq } from "drizzle-orm";
import type { ParsedMail } from "mailparser";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { notificationDeliveries, organizations } from "../../server/db/schema.ts";
import { notificationCenterOf } from "../../server/modules/notifications/routes.ts";
import { describeDb } from "../helpers/db.ts";
import { startSmtpServer, type TestSmtpServer } from "../helpers/smtp.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory } from "../helpers/tokens.ts";
import { signUp } from "./support/fixtures.ts";

const LIMIT = 6;
const PHISHY = "URGENT verify your bank login at evil.example";

const recipientsOf = (mail: ParsedMail) =>
  [mail.to]
    .flat()
    .flatMap((a) => a?.value ?? [])
    .map((v) => v.address);

function confirmationToken(mail: ParsedMail): string {
  const token = /\/api\/notifications\/recipients\/confirm\?token=([A-Za-z0-9_-]+)/.exec(mail.text ?? "")?.[1];
  if (!token) throw new Error(`no confirmation link in: ${mail.text}`);
  return token;
}

describeDb("notification e-mail: recipients confirm, subjects without names, a limit per organization", () => {
  let smtp: TestSmtpServer;
  let t: TestApp;
  let ada: Record<string, string>;
  let eve: Record<string, string>;
  let org: string;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await createTestApp({ SMTP_URL: smtp.url, SMTP_FROM: "Toolbox <toolbox@example.test>", NOTIFICATIONS_MAX_EMAILS_PER_HOUR: String(LIMIT) });
    const tokens = await tokenFactory(t.ctx);
    const adaPerson = newPerson("Ada Mail");
    const evePerson = newPerson("Eve Mail");
    org = await signUp(t, tokens, adaPerson);
    const eveOrg = await signUp(t, tokens, evePerson);
    await t.ctx.database.db.update(organizations).set({ name: PHISHY }).where(eq(organizations.id, org));
    ada = apiHeaders(await tokens.mint(adaPerson), org);
    eve = apiHeaders(await tokens.mint(evePerson), eveOrg);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  const call = (method: "GET" | "POST" | "PATCH", url: string, payload?: object, headers = ada) =>
    t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
  const sentTo = (address: string) => smtp.received.filter((m) => recipientsOf(m).includes(address));

  it("mails only the addresses that confirmed, with subjects that name no one, within the organization's hourly limit", async () => {
    const a = `a-${Date.now()}@example.test`;
    const b = `b-${Date.now()}@example.test`;
    const created = await call("POST", "/api/notifications/channels", { kind: "email", name: PHISHY, settings: { to: [a, b] } });
    expect(created.statusCode, created.body).toBe(201);
    const channel = created.json();
    expect(channel.recipients).toEqual([
      { address: a, confirmed: false },
      { address: b, confirmed: false },
    ]);

    // Each address gets its confirmation link, and nothing else yet.
    const confirmA = await smtp.next((m) => recipientsOf(m).includes(a));
    await smtp.next((m) => recipientsOf(m).includes(b));
    expect(confirmA.subject).toBe(`Confirm e-mail notifications from Toolbox (channel ${channel.id.slice(0, 8)})`);
    expect(confirmA.text).not.toContain(PHISHY);
    const unconfirmed = await call("POST", `/api/notifications/channels/${channel.id}/test`);
    expect(unconfirmed.json()).toMatchObject({ delivered: false, error: "Not sent: no recipient of this channel has confirmed their address yet." });

    // Opening the link shows a button; only the POST confirms.
    const token = confirmationToken(confirmA);
    const opened = await t.app.inject({ url: `/api/notifications/recipients/confirm?token=${token}` });
    expect(opened.statusCode).toBe(200);
    expect(opened.headers["content-type"]).toMatch(/^text\/html/);
    expect(opened.body).toContain('<form method="post" action="/api/notifications/recipients/confirm">');
    expect((await call("GET", "/api/notifications/channels")).json()[0].recipients).toEqual([
      { address: a, confirmed: false },
      { address: b, confirmed: false },
    ]);
    const confirmed = await t.app.inject({
      method: "POST",
      url: "/api/notifications/recipients/confirm",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: `token=${token}`,
    });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(confirmed.body).toContain("Address confirmed");
    const again = await t.app.inject({
      method: "POST",
      url: "/api/notifications/recipients/confirm",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: `token=${token}`,
    });
    expect(again.statusCode).toBe(400);
    expect((await call("GET", "/api/notifications/channels")).json()[0].recipients).toEqual([
      { address: a, confirmed: true },
      { address: b, confirmed: false },
    ]);

    // The test message reaches the confirmed address only; its subject names no one.
    const test = await call("POST", `/api/notifications/channels/${channel.id}/test`);
    expect(test.json(), test.body).toMatchObject({ delivered: true });
    const testMail = await smtp.next((m) => recipientsOf(m).includes(a) && m.subject !== confirmA.subject);
    expect(recipientsOf(testMail)).toEqual([a]);
    expect(testMail.subject).toMatch(/^Toolbox: Test notification \(ref [0-9a-f]{8}\)$/);
    expect(sentTo(b)).toHaveLength(1);

    // A notice whose title names a platform: the subject is the type's label and a reference.
    const center = notificationCenterOf(t.ctx)!;
    await center.notify({
      organizationId: org,
      type: "platformDisconnected",
      title: `${PHISHY} disconnected`,
      body: "Toolbox lost its connection.",
      link: null,
      dedupeKey: `mail-test-${Date.now()}`,
    });
    const notice = await smtp.next((m) => recipientsOf(m).includes(a) && /Platform disconnected/.test(m.subject ?? ""));
    expect(notice.subject).toMatch(/^Toolbox: Platform disconnected \(ref [0-9a-f]{8}\)$/);
    for (const mail of smtp.received) expect(mail.subject ?? "").not.toContain(PHISHY.slice(0, 10));

    // The limit: two confirmations, the test and the notice are 4 of 6; two more fit, then nothing.
    for (let i = 0; i < LIMIT - 4; i++)
      expect((await call("POST", `/api/notifications/channels/${channel.id}/test`)).json()).toMatchObject({ delivered: true });
    await smtp.next(() => sentTo(a).length === 1 + LIMIT - 2);
    const over = await call("POST", `/api/notifications/channels/${channel.id}/test`);
    expect(over.json()).toMatchObject({
      delivered: false,
      error: `Not sent: this organization's notifications have sent ${LIMIT} e-mails in the last hour, the most allowed (NOTIFICATIONS_MAX_EMAILS_PER_HOUR).`,
    });
    // A withheld notice is logged failed once, not retried, and does not count against the channel.
    await center.notify({ organizationId: org, type: "memberLeft", title: "Someone left", body: "-", link: null, dedupeKey: `mail-limit-${Date.now()}` });
    const deliveries = () => t.ctx.database.db.select().from(notificationDeliveries).where(eq(notificationDeliveries.type, "memberLeft"));
    const withheld = [expect.objectContaining({ status: "failed", attempts: 1 })];
    await vi.waitFor(async () => expect(await deliveries()).toEqual(withheld), { timeout: 10_000, interval: 50 });
    expect((await call("GET", "/api/notifications/channels")).json()[0]).toMatchObject({ enabled: true, consecutiveFailures: 0 });
    expect(sentTo(a)).toHaveLength(1 + LIMIT - 2);

    // Another organization has its own allowance.
    const c = `c-${Date.now()}@example.test`;
    expect((await call("POST", "/api/notifications/channels", { kind: "email", name: "Eve's", settings: { to: [c] } }, eve)).statusCode).toBe(201);
    await smtp.next((m) => recipientsOf(m).includes(c));
  });

  it("asks a new address to confirm, drops a removed one, and sends the link again on request", async () => {
    const first = `first-${Date.now()}@example.test`;
    const second = `second-${Date.now()}@example.test`;
    const created = (await call("POST", "/api/notifications/channels", { kind: "email", name: "Desk", settings: { to: [first] } }, eve)).json();
    await smtp.next((m) => recipientsOf(m).includes(first));
    const changed = await call("PATCH", `/api/notifications/channels/${created.id}`, { settings: { to: [second] } }, eve);
    expect(changed.json().recipients).toEqual([{ address: second, confirmed: false }]);
    const mail = await smtp.next((m) => recipientsOf(m).includes(second));
    const resent = await call("POST", `/api/notifications/channels/${created.id}/recipients/resend`, undefined, eve);
    expect(resent.json()).toEqual({ requested: 1 });
    await smtp.next(() => sentTo(second).length === 2);
    // The earlier link no longer works; the new one does.
    const old = await t.app.inject({ method: "POST", url: "/api/notifications/recipients/confirm", payload: { token: confirmationToken(mail) } });
    expect(old.statusCode).toBe(400);
    const fresh = await t.app.inject({
      method: "POST",
      url: "/api/notifications/recipients/confirm",
      payload: { token: confirmationToken(sentTo(second)[1]!) },
    });
    expect(fresh.statusCode).toBe(200);
  });
});
