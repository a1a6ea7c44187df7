/**
 * Members, roles and invitations (docs/administration.md) through the real server: invitations
 * e-mailed to a real SMTP server run here, the invitee signing up through the provider's real
 * pages, removal ending API access and live streams at once, the last-administrator rule, the
 * audit trail, and one organization never seeing another's members or invitations.
 */
import crypto from "node:crypto";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { auditEvents, invitations, memberClaims } from "../../server/db/schema.ts";
import { describeDb } from "../helpers/db.ts";
import { decodeJwt } from "jose";
import { authorize, browse, pathOf, signIn as signInThroughPages, signUp as signUpThroughPages } from "../helpers/oidcFlow.ts";
import { confirmationCodeIn, invitationLinkIn, startSmtpServer, type TestSmtpServer } from "../helpers/smtp.ts";
import { UNVERIFIED_EMAIL_MESSAGE } from "../../server/modules/members/service.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type Person, type TokenFactory } from "../helpers/tokens.ts";
import { INVITATION_SEND_LIMIT } from "../../server/modules/members/routes.ts";
import { addMember, signUp } from "./support/fixtures.ts";

const PASSWORD = "lantern-orchid-basalt-42";
const tokenOf = (link: string) => new URL(link).hash.replace(/^#invitation=/, "");

describeDb("members and invitations, e-mailed through SMTP", () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let tokens: TokenFactory;
  let admin: Person;
  let org: string;
  let headers: Record<string, string>;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await createTestApp({ SMTP_URL: smtp.url, SMTP_FROM: "Toolbox <toolbox@example.test>", SIGN_UP: "invite-only" });
    tokens = await tokenFactory(t.ctx);
    admin = newPerson("Ada Admin");
    org = await signUp(t, tokens, admin);
    headers = apiHeaders(await tokens.mint(admin), org);
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  const call = (method: "GET" | "POST" | "PUT" | "DELETE", url: string, payload?: unknown, h = headers) =>
    t.app.inject({ method, url, headers: h, ...(payload === undefined ? {} : { payload: payload as object }) });

  it("invites by e-mail; the invitee signs up, accepts once, and is a Viewer who can read accounts but not move money", async () => {
    const email = `viewer-${Date.now().toString(36)}@example.test`;
    const sent = await call("POST", "/api/members/invitations", { email: email.toUpperCase(), role: "viewer" });
    expect(sent.statusCode).toBe(201);
    expect(sent.json()).toMatchObject({ delivery: "email", invitation: { email, role: "viewer", status: "pending" } });
    expect(sent.json().link).toBeUndefined();

    const mail = await smtp.next((m) => JSON.stringify(m.to).includes(email));
    expect(mail.subject).toMatch(/^You are invited to an organization on Toolbox \(ref [0-9a-f]{8}\)$/);
    expect(mail.from?.text).toContain("toolbox@example.test");
    const link = invitationLinkIn(mail.text);
    expect(link.startsWith("http://localhost:3000/settings/organizations#invitation=")).toBe(true);

    // Only the token's hash is kept; the link is valid for 7 days.
    const [row] = await t.ctx.database.db.select().from(invitations).where(eq(invitations.email, email));
    expect(row!.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(tokenOf(link));
    const days = (row!.expiresAt.getTime() - row!.createdAt.getTime()) / 86_400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThan(7.01);

    // Sign-up is invite-only here: the invited address may create an account. An invitation waits
    // for it, so the provider asks to confirm the address with a mailed code; "Not now" goes on
    // unconfirmed, and holding the link is then not enough to accept it.
    const unconfirmed = await signUpThroughPages(t.app, { name: "Vic Viewer", email, password: PASSWORD }, { emailCode: async () => "skip" });
    expect(decodeJwt(unconfirmed.access_token)).toMatchObject({ email, email_verified: false });
    expect(decodeJwt(unconfirmed.id_token)).toMatchObject({ email, email_verified: false });
    const refusedUnconfirmed = await t.app.inject({
      method: "POST",
      url: "/api/invitations/accept",
      headers: apiHeaders(unconfirmed.access_token),
      payload: { token: tokenOf(link) },
    });
    expect(refusedUnconfirmed.statusCode).toBe(422);
    expect(refusedUnconfirmed.json().message).toBe(UNVERIFIED_EMAIL_MESSAGE);

    // Signing in again asks for the code once more; the one from the e-mail confirms the address.
    const sentBefore = smtp.received.length;
    const invitee = await signInThroughPages(
      t.app,
      { email, password: PASSWORD },
      {
        emailCode: async () => {
          await vi.waitFor(() => expect(smtp.received.slice(sentBefore).some((m) => JSON.stringify(m.to).includes(email))).toBe(true), { timeout: 10_000 });
          const mail = smtp.received.slice(sentBefore).find((m) => JSON.stringify(m.to).includes(email))!;
          expect(mail.subject).toMatch(/^\d{6} is your Toolbox confirmation code$/);
          return confirmationCodeIn(mail.text);
        },
      },
    );
    expect(decodeJwt(invitee.access_token)).toMatchObject({ email, email_verified: true });
    const inviteeHeaders = apiHeaders(invitee.access_token);
    const preflight = await t.app.inject({ url: "/api/profile/preflight", headers: inviteeHeaders });
    expect(preflight.json()).toMatchObject({ organizationCount: 0 });
    expect(preflight.json().createdOrganizationId).toBeUndefined();

    const accepted = await t.app.inject({ method: "POST", url: "/api/invitations/accept", headers: inviteeHeaders, payload: { token: tokenOf(link) } });
    expect(accepted.statusCode).toBe(200);
    expect(accepted.json()).toEqual({ organizationId: org, organizationName: expect.any(String) });

    const again = await t.app.inject({ method: "POST", url: "/api/invitations/accept", headers: inviteeHeaders, payload: { token: tokenOf(link) } });
    expect(again.statusCode).toBe(422);
    expect(again.json().message).toBe("This invitation has already been used.");

    const inOrg = apiHeaders(invitee.access_token, org);
    expect((await t.app.inject({ url: "/api/accounts", headers: inOrg })).statusCode).toBe(200);
    const deposit = await t.app.inject({
      method: "POST",
      url: `/api/accounts/${crypto.randomUUID()}/1001/balance-operations`,
      headers: { ...inOrg, "idempotency-key": crypto.randomUUID() },
      payload: { type: "deposit", amount: "100.00", comment: "try" },
    });
    expect(deposit.statusCode).toBe(403);
    expect(deposit.json().message).toBe('You need the "money" permission on the "users" module in this organization. Ask its administrator.');
    const members = await call("GET", "/api/members");
    expect(members.json()).toContainEqual(
      expect.objectContaining({ email, name: "Vic Viewer", role: "viewer", admin: false, lastSignInAt: expect.any(String) }),
    );
    const refused = await t.app.inject({ url: "/api/members", headers: inOrg });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toBe('You need the "read" permission on the "members" module in this organization. Ask its administrator.');
    expect((await call("GET", "/api/members/invitations")).json()).not.toContainEqual(expect.objectContaining({ email }));

    const audit = await t.ctx.database.db.select().from(auditEvents).where(eq(auditEvents.organizationId, org));
    expect(audit.map((a) => a.action)).toEqual(expect.arrayContaining(["invitation.created", "invitation.accepted"]));
    expect(JSON.stringify(audit)).not.toContain(tokenOf(link));
    await vi.waitFor(
      async () => {
        const inbox = (await call("GET", "/api/inbox?type=memberJoined")).json<{ items: { title: string }[] }>();
        expect(inbox.items).toContainEqual(expect.objectContaining({ title: "Vic Viewer joined the organization" }));
      },
      { timeout: 10_000, interval: 100 },
    );
  });

  it("invite-only sign-up refuses an address nobody invited", async () => {
    await expect(signUpThroughPages(t.app, { name: "Uninvited", email: `nobody-${Date.now()}@example.test`, password: PASSWORD })).rejects.toThrow(
      /sign-up answered 403/,
    );
  });

  it("resend replaces the link (the old one stops working); revoke ends it; only the invited address may accept", async () => {
    const email = `resend-${Date.now().toString(36)}@example.test`;
    const created = (await call("POST", "/api/members/invitations", { email, permissions: { users: ["read", "write"], logs: ["read"] } })).json();
    expect(created.invitation).toMatchObject({ role: "custom", permissions: { users: ["read", "write"], logs: ["read"] } });
    const first = invitationLinkIn((await smtp.next((m) => JSON.stringify(m.to).includes(email))).text);

    const dup = await call("POST", "/api/members/invitations", { email, role: "viewer" });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().message).toBe(`${email} has already been invited. Resend that invitation instead.`);

    const count = smtp.received.length;
    expect((await call("POST", `/api/members/invitations/${created.invitation.id}/resend`)).statusCode).toBe(200);
    const second = invitationLinkIn(smtp.received.slice(count).find((m) => JSON.stringify(m.to).includes(email))?.text);
    expect(second).not.toBe(first);

    const someoneElse = newPerson("Mallory");
    const other = apiHeaders(await tokens.mint(someoneElse));
    const stale = await t.app.inject({ method: "POST", url: "/api/invitations/accept", headers: other, payload: { token: tokenOf(first) } });
    expect(stale.statusCode).toBe(404);
    const wrongPerson = await t.app.inject({ method: "POST", url: "/api/invitations/accept", headers: other, payload: { token: tokenOf(second) } });
    expect(wrongPerson.statusCode).toBe(422);
    expect(wrongPerson.json().message).toBe(`This invitation is for ${email}. Sign in with that e-mail address to accept it.`);

    expect((await call("DELETE", `/api/members/invitations/${created.invitation.id}`)).statusCode).toBe(204);
    const invited = apiHeaders(await tokens.mint({ sub: `user-${Date.now()}`, email, name: "Rita" }));
    const revoked = await t.app.inject({ method: "POST", url: "/api/invitations/accept", headers: invited, payload: { token: tokenOf(second) } });
    expect(revoked.statusCode).toBe(422);
    expect(revoked.json().message).toMatch(/^This invitation was withdrawn/);
  });

  it("only a token saying email_verified: true accepts, even for the invited address", async () => {
    const email = `verified-${Date.now().toString(36)}@example.test`;
    await call("POST", "/api/members/invitations", { email, role: "viewer" });
    const link = invitationLinkIn((await smtp.next((m) => JSON.stringify(m.to).includes(email))).text);
    const person = { sub: `user-verified-${Date.now()}`, email, name: "Vera" };
    const accept = async (claims: Record<string, unknown>) =>
      t.app.inject({
        method: "POST",
        url: "/api/invitations/accept",
        headers: apiHeaders(await tokens.mint(person, { claims })),
        payload: { token: tokenOf(link) },
      });
    // Not said, false, or not the boolean true (a string, a number): not verified.
    for (const claims of [{}, { email_verified: false }, { email_verified: "true" }, { email_verified: 1 }]) {
      const refused = await accept(claims);
      expect(refused.statusCode, JSON.stringify(claims)).toBe(422);
      expect(refused.json().message).toBe(UNVERIFIED_EMAIL_MESSAGE);
    }
    // An address only in preferred_username was never verified as an e-mail address.
    const fromUsername = await accept({ email: undefined, preferred_username: email, email_verified: true });
    expect(fromUsername.statusCode).toBe(422);
    expect(fromUsername.json().message).toBe(UNVERIFIED_EMAIL_MESSAGE);
    expect((await call("GET", "/api/members")).json()).not.toContainEqual(expect.objectContaining({ email }));

    const accepted = await accept({ email_verified: true });
    expect(accepted.statusCode).toBe(200);
    expect((await call("GET", "/api/members")).json()).toContainEqual(expect.objectContaining({ email, role: "viewer" }));
  });

  it("an expired invitation is refused", async () => {
    const email = `late-${Date.now().toString(36)}@example.test`;
    const { invitation } = (await call("POST", "/api/members/invitations", { email, role: "support" })).json();
    const link = invitationLinkIn((await smtp.next((m) => JSON.stringify(m.to).includes(email))).text);
    await t.ctx.database.db
      .update(invitations)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(invitations.id, invitation.id));
    expect((await call("GET", "/api/members/invitations")).json()).toContainEqual(expect.objectContaining({ email, status: "expired" }));
    const res = await t.app.inject({
      method: "POST",
      url: "/api/invitations/accept",
      headers: apiHeaders(await tokens.mint({ sub: `user-late-${Date.now()}`, email, name: "Late" })),
      payload: { token: tokenOf(link) },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().message).toBe("This invitation has expired. Ask the organization's administrator to send it again.");
  });

  it("changes a role; the last administrator cannot be demoted or removed; every change is audited", async () => {
    const dealer = newPerson("Dan Dealer");
    await addMember(t.ctx, org, dealer);
    const changed = await call("PUT", `/api/members/${dealer.sub}`, { role: "dealer" });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toMatchObject({ role: "dealer", admin: false, permissions: { users: ["read", "write", "money"] } });
    const claims = await t.ctx.database.db
      .select()
      .from(memberClaims)
      .where(and(eq(memberClaims.organizationId, org), eq(memberClaims.userSub, dealer.sub)));
    expect(claims).toContainEqual(expect.objectContaining({ type: `Module.users.${org}`, value: "read,write,money" }));

    // Nobody changes their own access (docs/security.md "Who may grant what"): the last
    // administrator can neither demote nor remove themselves, and nobody else may either.
    const demote = await call("PUT", `/api/members/${admin.sub}`, { role: "viewer" });
    expect(demote.statusCode).toBe(403);
    expect(demote.json().message).toBe("You cannot change your own role or permissions. Ask an administrator.");
    const remove = await call("DELETE", `/api/members/${admin.sub}`);
    expect(remove.statusCode).toBe(403);
    expect(remove.json().message).toBe("You cannot remove Ada Admin: nobody changes their own access. Ask an administrator.");

    // With a second administrator, the first may step down.
    expect((await call("PUT", `/api/members/${dealer.sub}`, { role: "administrator" })).statusCode).toBe(200);
    expect((await call("PUT", `/api/members/${dealer.sub}`, { permissions: { users: ["read"] } })).json()).toMatchObject({ role: "custom" });

    const actions = (
      await t.ctx.database.db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.organizationId, org), eq(auditEvents.targetId, dealer.sub)))
    ).map((a) => a.action);
    expect(actions).toEqual(["member.roleChanged", "member.roleChanged", "member.roleChanged"]);
  });

  it("removing a member ends their API access and their live stream at once", async () => {
    const base = await t.app.listen({ port: 0, host: "127.0.0.1" });
    const leaver = newPerson("Lee Leaver");
    await addMember(t.ctx, org, leaver, { [`Module.tradePlatforms.${org}`]: "read", [`Module.users.${org}`]: "read" });
    const leaverHeaders = apiHeaders(await tokens.mint(leaver), org);
    expect((await t.app.inject({ url: "/api/accounts", headers: leaverHeaders })).statusCode).toBe(200);

    const stream = await fetch(`${base}/api/tradePlatforms/live`, { headers: leaverHeaders });
    expect(stream.status).toBe(200);
    expect(t.app.access.streams.size).toBeGreaterThan(0);

    expect((await call("DELETE", `/api/members/${leaver.sub}`)).statusCode).toBe(204);
    const after = await t.app.inject({ url: "/api/accounts", headers: leaverHeaders });
    expect(after.statusCode).toBe(404);
    expect(after.json().message).toBe("You are not a member of this organization");

    // The stream ends: the body is read to its end.
    const reader = stream.body!.getReader();
    while (!(await reader.read()).done);
    expect((await call("GET", "/api/members")).json()).not.toContainEqual(expect.objectContaining({ sub: leaver.sub }));
    const [audit] = await t.ctx.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, "member.removed"), eq(auditEvents.targetId, leaver.sub)));
    expect(audit).toMatchObject({ organizationId: org, actorSub: admin.sub });

    // The members area publishes it on the bus: the administrator's inbox says so.
    await vi.waitFor(
      async () => {
        const inbox = (await call("GET", "/api/inbox?type=memberLeft")).json<{ items: { title: string; link: string }[] }>();
        expect(inbox.items).toContainEqual(expect.objectContaining({ title: "Lee Leaver left the organization", link: "/settings/members" }));
      },
      { timeout: 10_000, interval: 100 },
    );
  });

  it("removing a member ends their inbox stream too", async () => {
    const base = t.app.server.listening
      ? `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`
      : await t.app.listen({ port: 0, host: "127.0.0.1" });
    const reader_ = newPerson("Ina Inbox");
    await addMember(t.ctx, org, reader_, { [`Module.inbox.${org}`]: "read" });
    const stream = await fetch(`${base}/api/inbox/live`, { headers: apiHeaders(await tokens.mint(reader_), org) });
    expect(stream.status).toBe(200);
    expect((await call("DELETE", `/api/members/${reader_.sub}`)).statusCode).toBe(204);
    const reader = stream.body!.getReader();
    while (!(await reader.read()).done);
  });

  it("a role change that takes away the stream's permission closes it too", async () => {
    const base = t.app.server.listening
      ? `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`
      : await t.app.listen({ port: 0, host: "127.0.0.1" });
    const watcher = newPerson("Wes Watcher");
    await addMember(t.ctx, org, watcher, { [`Module.tradePlatforms.${org}`]: "read" });
    const stream = await fetch(`${base}/api/tradePlatforms/live`, { headers: apiHeaders(await tokens.mint(watcher), org) });
    expect(stream.status).toBe(200);
    expect((await call("PUT", `/api/members/${watcher.sub}`, { permissions: { users: ["read"] } })).statusCode).toBe(200);
    const reader = stream.body!.getReader();
    while (!(await reader.read()).done);
  });

  it("another organization's members and invitations are invisible (404)", async () => {
    const eve = newPerson("Eve Elsewhere");
    const eveOrg = await signUp(t, tokens, eve);
    const eveHeaders = apiHeaders(await tokens.mint(eve), eveOrg);
    const { invitation } = (await call("POST", "/api/members/invitations", { email: `secret-${Date.now()}@example.test`, role: "viewer" })).json();

    const eveCall = (method: "GET" | "POST" | "PUT" | "DELETE", url: string, payload?: unknown) => call(method, url, payload, eveHeaders);
    for (const res of [
      await eveCall("PUT", `/api/members/${admin.sub}`, { role: "viewer" }),
      await eveCall("DELETE", `/api/members/${admin.sub}`),
      await eveCall("POST", `/api/members/invitations/${invitation.id}/resend`),
      await eveCall("DELETE", `/api/members/invitations/${invitation.id}`),
    ]) {
      expect(res.statusCode).toBe(404);
    }
    expect((await eveCall("GET", "/api/members")).json().map((m: { sub: string }) => m.sub)).toEqual([eve.sub]);
    expect((await eveCall("GET", "/api/members/invitations")).json()).toEqual([]);
    // Still there, untouched, in its own organization.
    expect((await call("GET", "/api/members/invitations")).json()).toContainEqual(expect.objectContaining({ id: invitation.id, status: "pending" }));
    expect((await call("GET", "/api/members")).json()).toContainEqual(expect.objectContaining({ sub: admin.sub, role: "administrator" }));
  });

  it("bad input answers 400 with a readable message", async () => {
    const cases: [string, string, unknown, RegExp][] = [
      ["POST", "/api/members/invitations", { email: "not-an-address", role: "viewer" }, /valid e-mail address/],
      ["POST", "/api/members/invitations", { email: "a@example.test" }, /Give either "role"/],
      ["POST", "/api/members/invitations", { email: "a@example.test", role: "owner" }, /role must be one of/i],
      ["POST", "/api/members/invitations", { email: "a@example.test", role: "viewer", permissions: {} }, /not both/],
      ["PUT", `/api/members/${admin.sub}`, { permissions: { spaceship: ["read"] } }, /Modules are/],
      ["PUT", `/api/members/${admin.sub}`, { permissions: { users: ["fly"] } }, /Permissions are/],
      ["DELETE", "/api/members/invitations/not-a-uuid", undefined, /must be a UUID/],
      ["POST", "/api/invitations/accept", { token: "short" }, /not complete/],
    ];
    for (const [method, url, payload, message] of cases) {
      const res = await call(method as "POST", url, payload, method === "POST" && url.includes("accept") ? apiHeaders(await tokens.mint(admin)) : headers);
      expect(res.statusCode, `${method} ${url}`).toBe(400);
      expect(res.json().message, `${method} ${url}`).toMatch(message);
    }
  });
});

describeDb("invitations without SMTP: the outbox, and SIGN_UP=off", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  beforeAll(async () => {
    t = await createTestApp({ SIGN_UP: "off" });
    tokens = await tokenFactory(t.ctx);
  });
  afterAll(() => t?.close());

  it("shows the link once and puts the message, without the link, in the outbox, encrypted at rest; members:write reads it", async () => {
    const admin = newPerson("Olive Outbox");
    const org = await signUp(t, tokens, admin);
    const headers = apiHeaders(await tokens.mint(admin), org);
    const email = `outbox-${Date.now().toString(36)}@example.test`;
    const sent = await t.app.inject({ method: "POST", url: "/api/members/invitations", headers, payload: { email, role: "riskManager" } });
    expect(sent.statusCode).toBe(201);
    expect(sent.json()).toMatchObject({ delivery: "outbox", invitation: { role: "riskManager" } });
    const link = sent.json().link as string;
    expect(link).toMatch(/^http:\/\/localhost:3000\/settings\/organizations#invitation=[A-Za-z0-9_-]{43}$/);

    const outbox = await t.app.inject({ url: "/api/members/outbox", headers });
    expect(outbox.json()).toEqual([expect.objectContaining({ to: email, subject: expect.stringContaining("You are invited") })]);
    expect(outbox.json()[0].text).not.toContain(tokenOf(link));
    expect(outbox.json()[0].text).toContain("(the link was shown once to the person who sent this invitation; it is not kept here)");
    const stored = await t.ctx.database.db.execute(`select body from mail_outbox`);
    expect(JSON.stringify(stored)).not.toContain(tokenOf(link));

    const viewer = newPerson("Val");
    await addMember(t.ctx, org, viewer, { [`Module.members.${org}`]: "read" });
    expect((await t.app.inject({ url: "/api/members/outbox", headers: apiHeaders(await tokens.mint(viewer), org) })).statusCode).toBe(403);
  });

  it("limits invitation sending per organization, with a readable 429", async () => {
    const admin = newPerson("Rex Rate");
    const org = await signUp(t, tokens, admin);
    const headers = apiHeaders(await tokens.mint(admin), org);
    const send = (i: number) =>
      t.app.inject({ method: "POST", url: "/api/members/invitations", headers, payload: { email: `r${i}-${org}@example.test`, role: "viewer" } });
    for (let i = 0; i < INVITATION_SEND_LIMIT.max; i++) expect((await send(i)).statusCode).toBe(201);
    const over = await send(INVITATION_SEND_LIMIT.max);
    expect(over.statusCode).toBe(429);
    expect(over.json().message).toBe(
      `This organization has sent ${INVITATION_SEND_LIMIT.max} invitations in the last hour, the most allowed. Try again later.`,
    );
    // Another organization is not held up.
    const other = newPerson("Other");
    const otherOrg = await signUp(t, tokens, other);
    const fine = await t.app.inject({
      method: "POST",
      url: "/api/members/invitations",
      headers: apiHeaders(await tokens.mint(other), otherOrg),
      payload: { email: `fine-${otherOrg}@example.test`, role: "viewer" },
    });
    expect(fine.statusCode).toBe(201);
  });

  it("SIGN_UP=off: no sign-up page and no link to it", async () => {
    await expect(signUpThroughPages(t.app, { name: "Nope", email: `off-${Date.now()}@example.test`, password: PASSWORD })).rejects.toThrow(
      /sign-up answered 403/,
    );
    const { flow, response } = await authorize(t.app);
    const page = await browse(t.app, flow.jar, "GET", pathOf(String(response.headers.location), flow.publicUrl));
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("Sign in to Toolbox");
    expect(page.body).not.toContain("Create an account");
  });
});

describeDb("invitations when the SMTP server does not answer", () => {
  let t: TestApp;
  let tokens: TokenFactory;
  beforeAll(async () => {
    // A port nothing listens on: the SMTP server of this test, closed before the app uses it.
    const gone = await startSmtpServer();
    await gone.close();
    t = await createTestApp({ SMTP_URL: gone.url });
    tokens = await tokenFactory(t.ctx);
  });
  afterAll(() => t?.close());

  it("answers 503 with what to do, keeps the invitation (to resend), and leaks no link", async () => {
    const admin = newPerson("Sam Smtp");
    const org = await signUp(t, tokens, admin);
    const headers = apiHeaders(await tokens.mint(admin), org);
    const email = `unsent-${Date.now().toString(36)}@example.test`;
    const res = await t.app.inject({ method: "POST", url: "/api/members/invitations", headers, payload: { email, role: "viewer" } });
    expect(res.statusCode).toBe(503);
    expect(res.json().message).toBe("The invitation is saved, but the e-mail server did not take the message. Try Resend in a moment.");
    expect(res.body).not.toContain("#invitation=");
    const pending = (await t.app.inject({ url: "/api/members/invitations", headers })).json();
    expect(pending).toEqual([expect.objectContaining({ email, status: "pending" })]);
    expect((await t.app.inject({ url: "/api/members/outbox", headers })).json()).toEqual([]);
  });
});
