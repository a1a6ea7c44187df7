/**
 * Nobody grants more than they hold (core/grants.ts, docs/security.md "Who may grant what"),
 * through the real API on both databases: for callers that can reach the members routes (an
 * administrator, and each preset that was also given members:write), every access asked for
 * (each preset, each single module permission) is given to a member exactly when the pure rule
 * allows it, and a representative subset as an invitation; nobody changes their own access; a
 * member manager cannot demote or remove an administrator, nor resend or revoke an invitation that
 * gives more than they may give; and the outbox holds no invitation link.
 */
import crypto from "node:crypto";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { canGrant } from "../../core/grants.ts";
import { MODULE_PERMISSIONS } from "../../core/grants.ts";
import { claimsOfAccess, PRESET_ACCESS, ROLE_PRESETS, type MemberAccess, type ModulePermissions } from "../../core/roles.ts";
import { mailOutbox, memberClaims } from "../../server/db/schema.ts";
import { secretCipherOf } from "../../server/secrets/context.ts";
import { describeDb } from "../helpers/db.ts";
import { createTestApp, type TestApp } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type Person, type TokenFactory } from "../helpers/tokens.ts";
import { addMember, signUp } from "./support/fixtures.ts";

type Asked = { name: string; access: MemberAccess; body: Record<string, unknown> };

const ASKED: Asked[] = [
  ...ROLE_PRESETS.map((r) => ({ name: r, access: PRESET_ACCESS[r], body: { role: r } })),
  ...MODULE_PERMISSIONS.map(({ module, permission }) => {
    const permissions: ModulePermissions = { [module]: [permission] };
    return { name: `${module}:${permission}`, access: { admin: false, permissions }, body: { permissions } };
  }),
];

/** Callers that reach the members routes: the administrator, each other preset with members:write added, and a members+settings manager. */
const CALLERS: { name: string; access: MemberAccess }[] = [
  { name: "administrator", access: PRESET_ACCESS.administrator },
  ...ROLE_PRESETS.filter((r) => r !== "administrator").map((r): { name: string; access: MemberAccess } => ({
    name: `${r}+members:write`,
    access: { admin: false, permissions: { ...PRESET_ACCESS[r].permissions, members: ["read", "write"] } },
  })),
  { name: "members+settings", access: { admin: false, permissions: { members: ["read", "write"], settings: ["read", "write"] } } },
];

/** Invitations count against a limit of 30 an hour per organization: this subset covers each branch of the rule. */
const INVITED = ["administrator", "viewer", "support", "members:write", "settings:read", "users:money", "customers:read", "inbox:write"];

const tokenOf = (link: string) => new URL(link).hash.replace(/^#invitation=/, "");

describeDb("nobody grants more than they hold", () => {
  let t: TestApp;
  let tokens: TokenFactory;

  beforeAll(async () => {
    t = await createTestApp();
    tokens = await tokenFactory(t.ctx);
  });
  afterAll(() => t?.close());

  /** An organization with its owner (administrator), `caller` with `access`, and a member with nothing. */
  async function organizationWith(access: MemberAccess) {
    const owner = newPerson("Olga Owner");
    const org = await signUp(t, tokens, owner);
    const caller = newPerson("Carl Caller");
    await addMember(t.ctx, org, caller, Object.fromEntries(claimsOfAccess(access, org).map((c) => [c.type, c.value])));
    const target = newPerson("Tess Target");
    await addMember(t.ctx, org, target);
    const as = async (person: Person, method: "GET" | "POST" | "PUT" | "DELETE", url: string, payload?: unknown) =>
      t.app.inject({ method, url, headers: apiHeaders(await tokens.mint(person), org), ...(payload === undefined ? {} : { payload: payload as object }) });
    return { org, owner, caller, target, as };
  }

  const claimsOf = (org: string, sub: string) =>
    t.ctx.database.db
      .select({ type: memberClaims.type, value: memberClaims.value })
      .from(memberClaims)
      .where(and(eq(memberClaims.organizationId, org), eq(memberClaims.userSub, sub)));

  it("every (caller, asked) pair: a member gets the access exactly when the rule allows it; refused is 403 with the reason, and nothing changes", async () => {
    let allowed = 0;
    let refused = 0;
    for (const c of CALLERS) {
      const { org, caller, target, as } = await organizationWith(c.access);
      for (const asked of ASKED) {
        await t.ctx.database.db.delete(memberClaims).where(and(eq(memberClaims.organizationId, org), eq(memberClaims.userSub, target.sub)));
        const res = await as(caller, "PUT", `/api/members/${target.sub}`, asked.body);
        const verdict = canGrant(c.access, asked.access);
        const label = `${c.name} gives ${asked.name}`;
        if (verdict.allowed) {
          allowed++;
          expect(res.statusCode, `${label}: ${res.body}`).toBe(200);
          expect(await claimsOf(org, target.sub), label).toEqual(expect.arrayContaining(claimsOfAccess(asked.access, org)));
        } else {
          refused++;
          expect(res.statusCode, `${label}: ${res.body}`).toBe(403);
          expect(res.json().message, label).toBe(verdict.reason);
          expect(await claimsOf(org, target.sub), label).toEqual([]);
        }
      }
      for (const name of INVITED) {
        const asked = ASKED.find((a) => a.name === name)!;
        const email = `${name.replace(":", "-")}-${org}@example.test`;
        const res = await as(caller, "POST", "/api/members/invitations", { email, ...asked.body });
        const verdict = canGrant(c.access, asked.access);
        expect(res.statusCode, `${c.name} invites as ${name}: ${res.body}`).toBe(verdict.allowed ? 201 : 403);
        if (!verdict.allowed) expect(res.json().message).toBe(verdict.reason);
      }
      const invited = (await as(caller, "GET", "/api/members/invitations")).json<{ email: string }[]>();
      expect(invited.length, c.name).toBe(INVITED.filter((n) => canGrant(c.access, ASKED.find((a) => a.name === n)!.access).allowed).length);
    }
    expect(allowed).toBeGreaterThan(ASKED.length);
    expect(refused).toBeGreaterThan(ASKED.length);
  });

  it("nobody changes or removes their own access, not even an administrator", async () => {
    const { org, owner, caller, as } = await organizationWith({ admin: false, permissions: { members: ["read", "write"], users: ["read", "write"] } });
    const own = await as(caller, "PUT", `/api/members/${caller.sub}`, { permissions: { users: ["read"] } });
    expect(own.statusCode).toBe(403);
    expect(own.json().message).toBe("You cannot change your own role or permissions. Ask an administrator.");
    const promote = await as(caller, "PUT", `/api/members/${caller.sub}`, { role: "administrator" });
    expect(promote.statusCode).toBe(403);
    const ownerSelf = await as(owner, "PUT", `/api/members/${owner.sub}`, { role: "viewer" });
    expect(ownerSelf.statusCode).toBe(403);
    expect(ownerSelf.json().message).toBe("You cannot change your own role or permissions. Ask an administrator.");
    const leave = await as(owner, "DELETE", `/api/members/${owner.sub}`);
    expect(leave.statusCode).toBe(403);
    expect(leave.json().message).toBe("You cannot remove Olga Owner: nobody changes their own access. Ask an administrator.");
    expect(await claimsOf(org, caller.sub)).toHaveLength(2);
  });

  it("a member manager cannot demote or remove an administrator, or a member holding what they lack; they can manage one within their own access", async () => {
    const { org, owner, caller, as } = await organizationWith({
      admin: false,
      permissions: { ...PRESET_ACCESS.support.permissions, members: ["read", "write"] },
    });
    const demote = await as(caller, "PUT", `/api/members/${owner.sub}`, { permissions: { customers: ["read"] } });
    expect(demote.statusCode).toBe(403);
    expect(demote.json().message).toBe("Only an administrator can change the access of Olga Owner: they have administrator access.");
    const remove = await as(caller, "DELETE", `/api/members/${owner.sub}`);
    expect(remove.statusCode).toBe(403);
    expect(remove.json().message).toBe("Only an administrator can remove Olga Owner: they have administrator access.");

    const dealer = newPerson("Dee Dealer");
    await addMember(t.ctx, org, dealer, Object.fromEntries(claimsOfAccess(PRESET_ACCESS.dealer, org).map((c) => [c.type, c.value])));
    const removeDealer = await as(caller, "DELETE", `/api/members/${dealer.sub}`);
    expect(removeDealer.statusCode).toBe(403);
    expect(removeDealer.json().message).toMatch(/^You cannot remove Dee Dealer: they have permissions you do not have yourself \(users: write, users: money/);
    const demoteDealer = await as(caller, "PUT", `/api/members/${dealer.sub}`, { permissions: { customers: ["read"] } });
    expect(demoteDealer.statusCode).toBe(403);

    const colleague = newPerson("Cole Colleague");
    await addMember(t.ctx, org, colleague, { [`Module.customers.${org}`]: "read" });
    expect((await as(caller, "PUT", `/api/members/${colleague.sub}`, { role: "support" })).statusCode).toBe(200);
    expect((await as(caller, "DELETE", `/api/members/${colleague.sub}`)).statusCode).toBe(204);

    // The administrator still can.
    expect((await as(owner, "DELETE", `/api/members/${dealer.sub}`)).statusCode).toBe(204);
  });

  it("a member manager cannot reset an administrator's two-factor, nor anyone their own through the members routes", async () => {
    const { org, owner, caller, as } = await organizationWith({
      admin: false,
      permissions: { ...PRESET_ACCESS.support.permissions, members: ["read", "write"] },
    });
    const boss = await as(caller, "POST", `/api/members/${owner.sub}/two-factor/reset`);
    expect(boss.statusCode).toBe(403);
    expect(boss.json().message).toBe("Only an administrator can reset the two-factor sign-in of Olga Owner: they have administrator access.");
    const own = await as(owner, "POST", `/api/members/${owner.sub}/two-factor/reset`);
    expect(own.statusCode).toBe(403);
    expect(own.json().message).toMatch(/nobody changes their own access/);
    // Within the manager's own access the reset goes ahead (here: nothing to reset, 409).
    const colleague = newPerson("Cole Colleague");
    await addMember(t.ctx, org, colleague, { [`Module.customers.${org}`]: "read" });
    expect((await as(caller, "POST", `/api/members/${colleague.sub}/two-factor/reset`)).statusCode).toBe(409);
    expect((await as(owner, "POST", `/api/members/${caller.sub}/two-factor/reset`)).statusCode).toBe(409);
  });

  it("a member manager cannot resend or revoke an invitation that gives more than they may give", async () => {
    const { owner, caller, as } = await organizationWith({ admin: false, permissions: { ...PRESET_ACCESS.support.permissions, members: ["read", "write"] } });
    const adminInvite = (await as(owner, "POST", "/api/members/invitations", { email: `boss-${Date.now()}@example.test`, role: "administrator" })).json();
    const resend = await as(caller, "POST", `/api/members/invitations/${adminInvite.invitation.id}/resend`);
    expect(resend.statusCode).toBe(403);
    expect(resend.json().message).toBe(`Only an administrator can resend the invitation to ${adminInvite.invitation.email}: it gives administrator access.`);
    expect(resend.body).not.toContain("#invitation=");
    const revoke = await as(caller, "DELETE", `/api/members/invitations/${adminInvite.invitation.id}`);
    expect(revoke.statusCode).toBe(403);
    expect(revoke.json().message).toBe(`Only an administrator can revoke the invitation to ${adminInvite.invitation.email}: it gives administrator access.`);

    const own = (await as(caller, "POST", "/api/members/invitations", { email: `helper-${Date.now()}@example.test`, role: "support" })).json();
    expect((await as(caller, "POST", `/api/members/invitations/${own.invitation.id}/resend`)).statusCode).toBe(200);
    expect((await as(caller, "DELETE", `/api/members/invitations/${own.invitation.id}`)).statusCode).toBe(204);
    expect((await as(owner, "POST", `/api/members/invitations/${adminInvite.invitation.id}/resend`)).statusCode).toBe(200);
  });

  it("the outbox holds no usable invitation link, not even one kept before", async () => {
    const { org, owner, caller, as } = await organizationWith({ admin: false, permissions: { members: ["read", "write"] } });
    const sent = await as(owner, "POST", "/api/members/invitations", { email: `chief-${Date.now()}@example.test`, role: "administrator" });
    expect(sent.statusCode).toBe(201);
    const link = sent.json().link as string;
    expect(link).toContain("#invitation=");
    const resent = await as(owner, "POST", `/api/members/invitations/${sent.json().invitation.id}/resend`);
    const second = resent.json().link as string;

    // A message kept before links left the outbox (written as the old code did).
    const cipher = secretCipherOf(t.ctx);
    const id = crypto.randomUUID();
    const old = `Open this link to accept:\n${link}\n`;
    await t.ctx.database.db
      .insert(mailOutbox)
      .values({ id, organizationId: org, recipient: "old@example.test", subject: "old", body: cipher.encrypt(old, `mail_outbox:${id}`) });

    const outbox = await as(caller, "GET", "/api/members/outbox");
    expect(outbox.statusCode).toBe(200);
    const messages = outbox.json<{ subject: string; text: string }[]>();
    expect(messages).toHaveLength(3);
    for (const m of messages) {
      expect(m.text).not.toContain(tokenOf(link));
      expect(m.text).not.toContain(tokenOf(second));
      expect(m.text).not.toContain("#invitation=");
      expect(m.text).toContain("(the link was shown once to the person who sent this invitation; it is not kept here)");
    }
    // At rest too: the stored messages, decrypted, hold no link.
    const stored = await t.ctx.database.db.select().from(mailOutbox).where(eq(mailOutbox.organizationId, org));
    const texts = stored.filter((r) => r.id !== id).map((r) => cipher.decrypt(r.body, `mail_outbox:${r.id}`));
    expect(texts).toHaveLength(2);
    for (const text of texts) expect(text).not.toContain("#invitation=");
  });
});
