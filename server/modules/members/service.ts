/**
 * Members of one organization (docs/administration.md, decision 0038): changing a member's access,
 * removing a member, resetting a member's two-factor sign-in, and the access rules every change
 * checks (also invitations', server/modules/members/invitations.ts). Every change runs in one
 * transaction with its audit row, under a lock on the organization's row so that the
 * last-administrator rule holds when two administrators act at once.
 */
import crypto from "node:crypto";
import { ADMIN_CLAIM, type Claim } from "../../../core/access.ts";
import { canGrant, canManage, type GrantVerdict } from "../../../core/grants.ts";
import { accessOfClaims, claimsOfAccess, PRESET_ACCESS, roleOfAccess, type MemberAccess } from "../../../core/roles.ts";
import type { AccessInput } from "../../../core/schemas/members.ts";
import type { Db, DbOrTx } from "../../db/client.ts";
import { requireReenrolment } from "../../idp/twoFactor.ts";
import { UUID_PATTERN } from "../../../core/ids.ts";
import { ConflictError, ForbiddenError, NotFoundError, RefusedError } from "../../errors.ts";
import type { Mailer } from "../../mail/mailer.ts";
import type { SecretCipher } from "../../secrets/cipher.ts";
import { recordAudit, type Actor } from "../audit/record.ts";
import * as repo from "./repository.ts";

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
  /** Ends every sign-in of a person at the embedded provider (their access tokens refused at once); how many ended. */
  endSessions(sub: string): Promise<number>;
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
export async function callerAccess(tx: DbOrTx, actor: Actor): Promise<MemberAccess> {
  const [caller] = await repo.listMembers(tx, actor.organizationId, actor.sub);
  if (!caller) throw new ForbiddenError("You are not a member of this organization");
  return accessOfClaims(caller.claims, actor.organizationId);
}

/** Refuses with the rule's reason (403): nobody grants more than they hold (docs/security.md). */
export function enforce(verdict: GrantVerdict): void {
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
    if (before.admin && !access.admin && (await repo.countAdmins(tx, organizationId)) <= 1) {
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
    if (isAdminIn(member.claims, organizationId) && (await repo.countAdmins(tx, organizationId)) <= 1) {
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
 * administrators get an inbox notice, and the member an e-mail when SMTP_URL is set. Every sign-in
 * of the member ends (the lost device's included). Refused
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
    const organizationsOfMember = await repo.organizationsOfPerson(tx, sub);
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
  // The device may be in someone else's hands: whatever it signed in ends now, and the next
  // sign-in (password, then a new device) is the only way back.
  await deps.endSessions(sub);
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

/** Why an invitation for a matching but unverified address is refused; what to do about it. */
export const UNVERIFIED_EMAIL_MESSAGE =
  "Your e-mail address is not confirmed yet, and only a confirmed address can accept an invitation. With a Toolbox account, sign out and sign in again: Toolbox e-mails you a code to confirm it. With your company's sign-in service, have the address verified there. Then open the invitation link again.";
