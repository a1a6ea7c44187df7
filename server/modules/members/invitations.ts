/**
 * Invitations to one organization (docs/administration.md, decision 0038): invite, resend, revoke,
 * accept, and the outbox that holds the messages when no SMTP_URL is set. Each change runs in one
 * transaction with its audit row, under a lock on the organization's row; the access rules are the
 * members' (server/modules/members/service.ts).
 */
import crypto from "node:crypto";
import { claimsOfAccess, type MemberAccess } from "../../../core/roles.ts";
import { canGrant, canManage } from "../../../core/grants.ts";
import { INVITATION_LINK_HASH, INVITATION_LINK_PATH, type AccessInput } from "../../../core/schemas/members.ts";
import type { DbOrTx } from "../../db/client.ts";
import { ConflictError, NotFoundError, RefusedError, UnavailableError } from "../../errors.ts";
import type { MailMessage } from "../../mail/mailer.ts";
import { recordAudit, type Actor } from "../audit/record.ts";
import { isMember, upsertUser } from "../organizations/repository.ts";
import * as repo from "./repository.ts";
import { accessOfInput, accessView, callerAccess, enforce, UNVERIFIED_EMAIL_MESSAGE, type MembersDeps } from "./service.ts";

/** An invitation link is valid this long after it was (last) sent. */
export const INVITATION_VALID_DAYS = 7;
const INVITATION_VALID_MS = INVITATION_VALID_DAYS * 24 * 3600 * 1000;

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
  await repo.insertOutboxMessage(tx, { id, organizationId, recipient: [message.to].flat().join(", "), subject: message.subject, body });
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
    const row = await repo.insertInvitation(tx, {
      organizationId,
      email: input.email,
      tokenHash: hash,
      access,
      invitedBy: actor.name ?? actor.sub,
      expiresAt: new Date(Date.now() + INVITATION_VALID_MS),
    });
    await recordAudit(tx, actor, {
      action: "invitation.created",
      targetType: "invitation",
      targetId: row.id,
      after: { email: input.email, ...accessView(access) },
    });
    const message = invitationMessage(deps.publicUrl, org.name, actor.name ?? "An administrator", row, token);
    await queueIfNoMailer(deps, tx, organizationId, invitationMessage(deps.publicUrl, org.name, actor.name ?? "An administrator", row, null));
    return { row: row, message };
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
    const row = await repo.renewInvitation(tx, id, hash, new Date(Date.now() + INVITATION_VALID_MS));
    await recordAudit(tx, actor, {
      action: "invitation.resent",
      targetType: "invitation",
      targetId: id,
      // The old link stops working: what changed is when the invitation expires and how often it went out.
      before: { email: existing.email, expiresAt: existing.expiresAt.toISOString(), sendCount: existing.sendCount },
      after: { email: row.email, expiresAt: row.expiresAt.toISOString(), sendCount: row.sendCount },
    });
    const message = invitationMessage(deps.publicUrl, org.name, actor.name ?? "An administrator", row, token);
    await queueIfNoMailer(deps, tx, organizationId, invitationMessage(deps.publicUrl, org.name, actor.name ?? "An administrator", row, null));
    return { row: row, message };
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
    const row = await repo.revokeOpenInvitation(tx, actor.organizationId, id);
    if (!row) throw new NotFoundError("This invitation does not exist, or was already accepted or revoked.");
    await recordAudit(tx, actor, { action: "invitation.revoked", targetType: "invitation", targetId: id, before: { email: row.email } });
  });
}

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
    const row = await repo.findInvitation(tx, found.id);
    if (!row || row.tokenHash !== found.tokenHash) throw new NotFoundError(notValid);
    if (row.revokedAt) throw new RefusedError("This invitation was withdrawn. Ask the organization's administrator for a new one.");
    if (row.acceptedAt) throw new RefusedError("This invitation has already been used.");
    if (row.expiresAt.getTime() <= Date.now()) throw new RefusedError("This invitation has expired. Ask the organization's administrator to send it again.");
    if (!user.email || user.email.trim().toLowerCase() !== row.email) {
      throw new RefusedError(`This invitation is for ${row.email}. Sign in with that e-mail address to accept it.`);
    }
    if (caller.emailVerified !== true) throw new RefusedError(UNVERIFIED_EMAIL_MESSAGE);
    if (await isMember(tx, row.organizationId, user.sub)) throw new ConflictError(`You are already a member of ${org.name}.`);
    await repo.markInvitationAccepted(tx, row.id, user.sub);
    await repo.insertMembership(tx, row.organizationId, user.sub);
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
