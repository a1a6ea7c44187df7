/**
 * Members and invitations of one organization (docs/administration.md, decision 0038). Every
 * change runs in one transaction with its audit row, under a lock on the organization's row so
 * that the last-administrator rule holds when two administrators act at once.
 */
import crypto from "node:crypto";
import { and, eq, isNull, sql } from "drizzle-orm";
import { ADMIN_CLAIM, type Claim } from "../../../core/access.ts";
import { canGrant, canManage, type GrantVerdict } from "../../../core/grants.ts";
import { accessOfClaims, claimsOfAccess, PRESET_ACCESS, roleOfAccess, type MemberAccess } from "../../../core/roles.ts";
import { INVITATION_LINK_HASH, INVITATION_LINK_PATH, type AccessInput } from "../../../core/schemas/members.ts";
import type { Db } from "../../db/client.ts";
import { invitations, mailOutbox, memberClaims, memberships, organizations } from "../../db/schema.ts";
import { requireReenrolment } from "../../idp/twoFactor.ts";
import { UUID_PATTERN } from "../../../core/ids.ts";
import { ConflictError, ForbiddenError, NotFoundError, RefusedError, UnavailableError } from "../../errors.ts";
import type { Mailer, MailMessage } from "../../mail/mailer.ts";
import type { SecretCipher } from "../../secrets/cipher.ts";
import { recordAudit, type Actor, type DbOrTx } from "../audit/record.ts";
import { upsertUser } from "../organizations/repository.ts";
import * as repo from "./repository.ts";

/** An invitation link is valid this long after it was (last) sent. */
export const INVITATION_VALID_DAYS = 7;
const INVITATION_VALID_MS = INVITATION_VALID_DAYS * 24 * 3600 * 1000;

export interface MembersDeps {
  db: Db;
  /** Undefined without SMTP_URL: messages go to the organization's outbox. */
  mailer?: Mailer;
  cipher: SecretCipher;
  publicUrl: string;
  /** After a membership or claims change has committed: this node's caches and streams follow at once. */
  accessChanged(organizationId: string): void;
  /** After a member joined or left has committed: the event for notifications (server/events). */
  membershipChanged(event: { type: "memberJoined" | "memberLeft"; organizationId: string; sub: string; name: string | null }): void;
  /** After a two-factor reset has committed: one event per organization of the person, for their administrators' inbox. */
  twoFactorReset(event: TwoFactorResetEvent): void;
  log: { warn(obj: object, msg: string): void };
}

export interface TwoFactorResetEvent {
  organizationId: string;
  sub: string;
  name: string | null;
  actorName: string | null;
  byOrganizationName: string;
  resetId: string;
}

export function accessOfInput(input: AccessInput): MemberAccess {
  return input.role ? PRESET_ACCESS[input.role] : { admin: false, permissions: input.permissions ?? {} };
}

export function accessView(access: MemberAccess) {
  return { role: roleOfAccess(access), admin: access.admin, permissions: access.admin ? {} : access.permissions } as const;
}

const isAdminIn = (claims: readonly Claim[], organizationId: string) => claims.some((c) => c.type === ADMIN_CLAIM && c.value.trim() === organizationId);

async function countAdmins(tx: DbOrTx, organizationId: string): Promise<number> {
  const [row] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(memberClaims)
    .where(and(eq(memberClaims.organizationId, organizationId), eq(memberClaims.type, ADMIN_CLAIM), eq(memberClaims.value, organizationId)));
  return row?.n ?? 0;
}

const nameOf = (m: repo.Member) => m.name ?? m.email ?? m.sub;

async function lockedMember(tx: DbOrTx, organizationId: string, sub: string): Promise<repo.Member> {
  if (!(await repo.lockOrganization(tx, organizationId))) throw new NotFoundError("This organization does not exist.");
  const [member] = await repo.listMembers(tx, organizationId, sub);
  if (!member) throw new NotFoundError("This person is not a member of this organization.");
  return member;
}

/**
 * The caller's own access, read in the transaction (after the organization's lock), not from the
 * guard's cache: a caller demoted a moment ago grants nothing more (core/grants.ts).
 */
async function callerAccess(tx: DbOrTx, actor: Actor): Promise<MemberAccess> {
  const [caller] = await repo.listMembers(tx, actor.organizationId, actor.sub);
  if (!caller) throw new ForbiddenError("You are not a member of this organization");
  return accessOfClaims(caller.claims, actor.organizationId);
}

/** Refuses with the rule's reason (403): nobody grants more than they hold (docs/security.md). */
function enforce(verdict: GrantVerdict): void {
  if (!verdict.allowed) throw new ForbiddenError(verdict.reason);
}

/**
 * Gives a member another role: only what the caller may give, to a member whose access the caller
 * could have given, never to themselves (core/grants.ts). The last administrator cannot be demoted.
 */
export async function changeMemberAccess(deps: MembersDeps, actor: Actor, sub: string, input: AccessInput): Promise<repo.Member> {
  const { organizationId } = actor;
  const access = accessOfInput(input);
  const changed = await deps.db.transaction(async (tx) => {
    const member = await lockedMember(tx, organizationId, sub);
    const before = accessOfClaims(member.claims, organizationId);
    const caller = await callerAccess(tx, actor);
    const self = sub === actor.sub;
    enforce(canGrant(caller, access, { self }));
    enforce(canManage(caller, before, { self, action: `change the access of ${nameOf(member)}`, holds: "they have" }));
    if (before.admin && !access.admin && (await countAdmins(tx, organizationId)) <= 1) {
      throw new RefusedError(`${nameOf(member)} is the last administrator of this organization. Make another member an administrator first.`);
    }
    await repo.replaceClaims(tx, organizationId, sub, claimsOfAccess(access, organizationId));
    await recordAudit(tx, actor, { action: "member.roleChanged", targetType: "member", targetId: sub, before: accessView(before), after: accessView(access) });
    const [after] = await repo.listMembers(tx, organizationId, sub);
    return after!;
  });
  deps.accessChanged(organizationId);
  return changed;
}

/**
 * Removes a member: their API access and live streams in this organization end at once. Only by
 * someone who could have given them their access (an administrator only by an administrator), and
 * not oneself.
 */
export async function removeMember(deps: MembersDeps, actor: Actor, sub: string): Promise<void> {
  const { organizationId } = actor;
  const removed = await deps.db.transaction(async (tx) => {
    const member = await lockedMember(tx, organizationId, sub);
    const access = accessOfClaims(member.claims, organizationId);
    enforce(canManage(await callerAccess(tx, actor), access, { self: sub === actor.sub, action: `remove ${nameOf(member)}`, holds: "they have" }));
    if (isAdminIn(member.claims, organizationId) && (await countAdmins(tx, organizationId)) <= 1) {
      throw new RefusedError(
        `${nameOf(member)} is the last administrator of this organization and cannot be removed. Make another member an administrator first.`,
      );
    }
    await repo.deleteMembership(tx, organizationId, sub);
    await recordAudit(tx, actor, {
      action: "member.removed",
      targetType: "member",
      targetId: sub,
      before: { email: member.email, name: member.name, ...accessView(accessOfClaims(member.claims, organizationId)) },
    });
    return member;
  });
  deps.accessChanged(organizationId);
  deps.membershipChanged({ type: "memberLeft", organizationId, sub, name: removed.name ?? removed.email });
}

/**
 * An administrator resets a member's two-factor sign-in (a lost device). The secret and recovery
 * codes go, and the member must enrol a new device at their next sign-in: the password alone
 * never completes one (docs/security.md, "Reset by an administrator"). Two-factor is the person's
 * sign-in in every organization, so only for a member of this organization (404 otherwise), and
 * the reset is audited in each organization the person belongs to (in one transaction), its
 * administrators get an inbox notice, and the member an e-mail when SMTP_URL is set. Refused
 * (403) for oneself and for a member holding more than the caller could give.
 */
export async function resetMemberTwoFactor(deps: MembersDeps, actor: Actor, sub: string): Promise<void> {
  const { organizationId } = actor;
  const resetId = crypto.randomUUID();
  const { member, organizationsOfMember, byOrganizationName } = await deps.db.transaction(async (tx) => {
    const member = await lockedMember(tx, organizationId, sub);
    // The caller may manage this member (core/grants.ts): a member manager cannot weaken an
    // administrator's sign-in, nor anyone their own (that is Settings → Security).
    enforce(
      canManage(await callerAccess(tx, actor), accessOfClaims(member.claims, organizationId), {
        self: sub === actor.sub,
        action: `reset the two-factor sign-in of ${nameOf(member)}`,
        holds: "they have",
      }),
    );
    const outcome = UUID_PATTERN.test(sub) ? await requireReenrolment(tx, sub) : "notOn";
    if (outcome === "alreadyRequired") {
      throw new ConflictError(`${nameOf(member)}'s two-factor sign-in was reset already: they set up a new device at their next sign-in.`);
    }
    if (outcome === "notOn") throw new ConflictError(`${nameOf(member)} does not sign in with two-factor: there is nothing to reset.`);
    const organizationsOfMember = await tx
      .select({ id: memberships.organizationId, name: organizations.name })
      .from(memberships)
      .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
      .where(eq(memberships.userSub, sub));
    const byOrganization = organizationsOfMember.find((o) => o.id === organizationId) ?? { id: organizationId, name: "" };
    for (const o of organizationsOfMember) {
      // In the other organizations the actor is an administrator of this one: the record says so.
      await recordAudit(
        tx,
        { ...actor, organizationId: o.id },
        {
          action: "member.twoFactorReset",
          targetType: "member",
          targetId: sub,
          before: { twoFactor: true },
          after: { twoFactor: false, enrolAtNextSignIn: true, byOrganization, resetId },
        },
      );
    }
    return { member, organizationsOfMember, byOrganizationName: byOrganization.name };
  });
  for (const o of organizationsOfMember) {
    deps.twoFactorReset({ organizationId: o.id, sub, name: member.name ?? member.email, actorName: actor.name, byOrganizationName, resetId });
  }
  if (deps.mailer && member.email) {
    const by = actor.name ?? "An administrator";
    try {
      await deps.mailer.send({
        to: member.email,
        subject: "Your Toolbox two-factor sign-in was reset",
        text: [
          `${by} of ${byOrganizationName} reset your two-factor sign-in to Toolbox.`,
          "",
          "Your old authenticator app and recovery codes no longer work. At your next sign-in, after your password,",
          "Toolbox asks you to set up your authenticator app again before you can continue.",
          `${deps.publicUrl}/settings/security`,
          "",
          "If you did not ask for this, tell your administrator at once.",
        ].join("\n"),
      });
    } catch (err) {
      deps.log.warn({ err: { message: (err as Error).message, code: (err as { code?: string }).code } }, "two-factor reset e-mail not sent");
    }
  }
}

// ---- invitations ----

/** 32 random bytes for the link; only the SHA-256 is kept. */
function newToken(): { token: string; hash: string } {
  const token = crypto.randomBytes(32).toString("base64url");
  return { token, hash: hashToken(token) };
}

export function hashToken(token: string): string {
  return crypto.createHash("sha256").update(token, "utf8").digest("hex");
}

export function invitationLink(publicUrl: string, token: string): string {
  return `${publicUrl}${INVITATION_LINK_PATH}#${INVITATION_LINK_HASH}=${token}`;
}

export function invitationView(row: repo.InvitationRow, now = new Date()) {
  return {
    id: row.id,
    email: row.email,
    ...accessView(row.access as MemberAccess),
    invitedBy: row.invitedBy,
    createdAt: row.createdAt.toISOString(),
    sentAt: row.sentAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    status: row.expiresAt.getTime() <= now.getTime() ? ("expired" as const) : ("pending" as const),
  };
}

/** What the outbox keeps instead of the link: the link is a live grant of access, so it is never at rest. */
export const OUTBOX_LINK_PLACEHOLDER = "(the link was shown once to the person who sent this invitation; it is not kept here)";

/** `token` null: the outbox's copy, without the link. */
function invitationMessage(publicUrl: string, organizationName: string, inviter: string, row: repo.InvitationRow, token: string | null): MailMessage {
  const link = token === null ? OUTBOX_LINK_PLACEHOLDER : invitationLink(publicUrl, token);
  const role = accessView(row.access as MemberAccess).role;
  return {
    to: row.email,
    // Fixed wording and a reference, never the organization's name: a name is chosen by whoever
    // signs up, and a subject is where phishing text would go (docs/security.md, "Outgoing mail").
    subject: `You are invited to an organization on Toolbox (ref ${row.id.slice(0, 8)})`,
    text: [
      `${inviter} invites you to join ${organizationName} on Toolbox${role === "custom" ? "" : ` as ${roleLabel(role)}`}.`,
      "",
      "Open this link to accept. Sign in, or create your account with this e-mail address first:",
      link,
      "",
      `The link works once and until ${row.expiresAt.toUTCString()}.`,
      "If you did not expect this invitation, ignore this message.",
    ].join("\n"),
  };
}

function roleLabel(role: string): string {
  return { administrator: "Administrator", dealer: "Dealer", riskManager: "Risk manager", support: "Support", viewer: "Viewer" }[role] ?? role;
}

interface Delivery {
  delivery: "email" | "outbox";
  link?: string;
}

/**
 * In the transaction: without a mailer the message goes to the outbox, encrypted, and without the
 * link (`invitationMessage(…, null)`): the outbox is read by anyone with members:write, and a live
 * link there would hand an administrator's invitation to whoever reads it. The inviter gets the link
 * once, in the answer.
 */
async function queueIfNoMailer(deps: MembersDeps, tx: DbOrTx, organizationId: string, message: MailMessage): Promise<void> {
  if (deps.mailer) return;
  const id = crypto.randomUUID();
  const body = deps.cipher.encrypt(message.text, `mail_outbox:${id}`);
  await tx.insert(mailOutbox).values({ id, organizationId, recipient: [message.to].flat().join(", "), subject: message.subject, body });
}

/** After the commit: e-mail it. A failure leaves the invitation in place (Resend tries again). */
async function sendAfterCommit(deps: MembersDeps, message: MailMessage, token: string): Promise<Delivery> {
  if (!deps.mailer) return { delivery: "outbox", link: invitationLink(deps.publicUrl, token) };
  try {
    await deps.mailer.send(message);
  } catch (err) {
    deps.log.warn({ err: { message: (err as Error).message, code: (err as { code?: string }).code } }, "invitation e-mail not sent");
    throw new UnavailableError("The invitation is saved, but the e-mail server did not take the message. Try Resend in a moment.");
  }
  return { delivery: "email" };
}

export async function invite(deps: MembersDeps, actor: Actor, input: { email: string } & AccessInput): Promise<{ row: repo.InvitationRow } & Delivery> {
  const { organizationId } = actor;
  const access = accessOfInput(input);
  const { token, hash } = newToken();
  const { row, message } = await deps.db.transaction(async (tx) => {
    const org = await repo.lockOrganization(tx, organizationId);
    if (!org) throw new NotFoundError("This organization does not exist.");
    enforce(canGrant(await callerAccess(tx, actor), access));
    if (await repo.isMemberByEmail(tx, organizationId, input.email)) throw new ConflictError(`${input.email} is already a member of this organization.`);
    if (await repo.findOpenInvitationByEmail(tx, organizationId, input.email)) {
      throw new ConflictError(`${input.email} has already been invited. Resend that invitation instead.`);
    }
    const [row] = await tx
      .insert(invitations)
      .values({
        organizationId,
        email: input.email,
        tokenHash: hash,
        access,
        invitedBy: actor.name ?? actor.sub,
        expiresAt: new Date(Date.now() + INVITATION_VALID_MS),
      })
      .returning();
    await recordAudit(tx, actor, {
      action: "invitation.created",
      targetType: "invitation",
      targetId: row!.id,
      after: { email: input.email, ...accessView(access) },
    });
    const message = invitationMessage(deps.publicUrl, org.name, actor.name ?? "An administrator", row!, token);
    await queueIfNoMailer(deps, tx, organizationId, invitationMessage(deps.publicUrl, org.name, actor.name ?? "An administrator", row!, null));
    return { row: row!, message };
  });
  return { row, ...(await sendAfterCommit(deps, message, token)) };
}

/** A new link (the old one stops working), valid 7 days from now, sent again. */
export async function resendInvitation(deps: MembersDeps, actor: Actor, id: string): Promise<{ row: repo.InvitationRow } & Delivery> {
  const { organizationId } = actor;
  const { token, hash } = newToken();
  const { row, message } = await deps.db.transaction(async (tx) => {
    const org = await repo.lockOrganization(tx, organizationId);
    const existing = org && (await repo.findOpenInvitation(tx, organizationId, id));
    if (!org || !existing) throw new NotFoundError("This invitation does not exist, or was already accepted or revoked.");
    // A new link to access the caller could not give would be granting it.
    enforce(
      canManage(await callerAccess(tx, actor), existing.access as MemberAccess, { action: `resend the invitation to ${existing.email}`, holds: "it gives" }),
    );
    const [row] = await tx
      .update(invitations)
      .set({ tokenHash: hash, sentAt: new Date(), sendCount: sql`${invitations.sendCount} + 1`, expiresAt: new Date(Date.now() + INVITATION_VALID_MS) })
      .where(eq(invitations.id, id))
      .returning();
    await recordAudit(tx, actor, {
      action: "invitation.resent",
      targetType: "invitation",
      targetId: id,
      // The old link stops working: what changed is when the invitation expires and how often it went out.
      before: { email: existing.email, expiresAt: existing.expiresAt.toISOString(), sendCount: existing.sendCount },
      after: { email: row!.email, expiresAt: row!.expiresAt.toISOString(), sendCount: row!.sendCount },
    });
    const message = invitationMessage(deps.publicUrl, org.name, actor.name ?? "An administrator", row!, token);
    await queueIfNoMailer(deps, tx, organizationId, invitationMessage(deps.publicUrl, org.name, actor.name ?? "An administrator", row!, null));
    return { row: row!, message };
  });
  return { row, ...(await sendAfterCommit(deps, message, token)) };
}

/** Revokes an invitation: only one the caller could have sent (an administrator's only by an administrator). */
export async function revokeInvitation(deps: MembersDeps, actor: Actor, id: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const existing = await repo.findOpenInvitation(tx, actor.organizationId, id);
    if (!existing) throw new NotFoundError("This invitation does not exist, or was already accepted or revoked.");
    enforce(
      canManage(await callerAccess(tx, actor), existing.access as MemberAccess, { action: `revoke the invitation to ${existing.email}`, holds: "it gives" }),
    );
    const [row] = await tx
      .update(invitations)
      .set({ revokedAt: new Date() })
      .where(and(eq(invitations.organizationId, actor.organizationId), eq(invitations.id, id), isNull(invitations.acceptedAt), isNull(invitations.revokedAt)))
      .returning();
    if (!row) throw new NotFoundError("This invitation does not exist, or was already accepted or revoked.");
    await recordAudit(tx, actor, { action: "invitation.revoked", targetType: "invitation", targetId: id, before: { email: row.email } });
  });
}

/** Why an invitation for a matching but unverified address is refused; what to do about it. */
export const UNVERIFIED_EMAIL_MESSAGE =
  "Your e-mail address is not confirmed yet, and only a confirmed address can accept an invitation. With a Toolbox account, sign out and sign in again: Toolbox e-mails you a code to confirm it. With your company's sign-in service, have the address verified there. Then open the invitation link again.";

/**
 * The invitee, signed in, accepts: single use, before it expires, only by the person with the
 * invited e-mail address, and only once that address is verified (the token's `email_verified`):
 * holding the link is not enough, since anyone can sign up with any address. They become a
 * member with the role of the invitation.
 */
export async function acceptInvitation(
  deps: MembersDeps,
  caller: { sub: string; email?: string | null; emailVerified?: boolean; name?: string | null; ip: string | null },
  token: string,
): Promise<{ organizationId: string; organizationName: string }> {
  const user = await upsertUser(deps.db, caller);
  const notValid =
    "This invitation link is not valid. It may have been replaced by a newer one: open the latest invitation e-mail, or ask for a new invitation.";
  const result = await deps.db.transaction(async (tx) => {
    const found = await repo.findInvitationByTokenHash(tx, hashToken(token));
    if (!found) throw new NotFoundError(notValid);
    const org = await repo.lockOrganization(tx, found.organizationId);
    if (!org) throw new NotFoundError(notValid);
    const [row] = await tx.select().from(invitations).where(eq(invitations.id, found.id));
    if (!row || row.tokenHash !== found.tokenHash) throw new NotFoundError(notValid);
    if (row.revokedAt) throw new RefusedError("This invitation was withdrawn. Ask the organization's administrator for a new one.");
    if (row.acceptedAt) throw new RefusedError("This invitation has already been used.");
    if (row.expiresAt.getTime() <= Date.now()) throw new RefusedError("This invitation has expired. Ask the organization's administrator to send it again.");
    if (!user.email || user.email.trim().toLowerCase() !== row.email) {
      throw new RefusedError(`This invitation is for ${row.email}. Sign in with that e-mail address to accept it.`);
    }
    if (caller.emailVerified !== true) throw new RefusedError(UNVERIFIED_EMAIL_MESSAGE);
    const [already] = await tx
      .select({ sub: memberships.userSub })
      .from(memberships)
      .where(and(eq(memberships.organizationId, row.organizationId), eq(memberships.userSub, user.sub)));
    if (already) throw new ConflictError(`You are already a member of ${org.name}.`);
    await tx.update(invitations).set({ acceptedAt: new Date(), acceptedBy: user.sub }).where(eq(invitations.id, row.id));
    await tx.insert(memberships).values({ organizationId: row.organizationId, userSub: user.sub });
    const access = row.access as MemberAccess;
    await repo.replaceClaims(tx, row.organizationId, user.sub, claimsOfAccess(access, row.organizationId));
    const actor: Actor = { organizationId: row.organizationId, sub: user.sub, name: user.name ?? user.email, sourceIp: caller.ip };
    await recordAudit(tx, actor, {
      action: "invitation.accepted",
      targetType: "invitation",
      targetId: row.id,
      after: { sub: user.sub, email: row.email, ...accessView(access) },
    });
    return { organizationId: org.id, organizationName: org.name };
  });
  deps.accessChanged(result.organizationId);
  deps.membershipChanged({ type: "memberJoined", organizationId: result.organizationId, sub: user.sub, name: user.name ?? user.email ?? null });
  return result;
}

const STORED_LINK = new RegExp(`\\S*#${INVITATION_LINK_HASH}=[A-Za-z0-9_-]+`, "g");

export async function readOutbox(deps: MembersDeps, organizationId: string) {
  const rows = await repo.listOutbox(deps.db, organizationId, 100);
  return rows.map((r) => {
    let text: string;
    try {
      // Messages kept before links left the outbox may still hold one: it is never shown.
      text = deps.cipher.decrypt(r.body, `mail_outbox:${r.id}`).replace(STORED_LINK, OUTBOX_LINK_PLACEHOLDER);
    } catch {
      text = "(This message cannot be read: it was encrypted with another SECRETS_KEY.)";
    }
    return { id: r.id, to: r.recipient, subject: r.subject, text, createdAt: r.createdAt.toISOString() };
  });
}
