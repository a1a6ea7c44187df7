/**
 * Sign-ins at the embedded identity provider, in the audit log (docs/logs.md, decision 0053).
 * A person belongs to no organization when they sign in, so the record is written once in each
 * organization the person is a member of at that moment (target: the person):
 * `session.signedIn` when the sign-in completes (after the second factor, if the person has one),
 * `session.signInFailed` for a wrong password, `session.secondFactorFailed` for a refused
 * two-factor code and `session.lockedOut` when wrong codes lock the second step. A failed sign-in
 * with an e-mail no one has is no organization's business: only the server log has it.
 */
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../../db/client.ts";
import { accountIdOfEmail, insertAuditEvents, organizationsOfPerson } from "./repository.ts";

export interface SignInAttempt {
  email: string;
  /** The person who signed in; looked up by e-mail for a failed attempt. */
  account: { id: string; name: string } | null;
  succeeded: boolean;
  sourceIp: string | null;
  /** More for `after` (how the sign-in completed), besides the e-mail. */
  detail?: Record<string, unknown>;
}

export type SignInStepAction = "session.secondFactorFailed" | "session.lockedOut";

export interface SignInStepEvent {
  action: SignInStepAction;
  account: { id: string; name: string; email: string };
  sourceIp: string | null;
  detail?: Record<string, unknown>;
}

/** Never throws: a sign-in is not refused because its record could not be written (it is logged). */
export async function recordSignIn(db: Db, log: FastifyBaseLogger, attempt: SignInAttempt): Promise<void> {
  try {
    const person = attempt.account ?? (await accountIdOfEmail(db, attempt.email));
    if (!person) {
      log.info({ email: attempt.email, sourceIp: attempt.sourceIp }, "failed sign-in with an unknown e-mail");
      return;
    }
    await recordInEveryOrganization(db, person, attempt.succeeded ? "session.signedIn" : "session.signInFailed", attempt.sourceIp, {
      email: attempt.email.trim().toLowerCase(),
      ...attempt.detail,
    });
  } catch (err) {
    log.warn({ err }, "could not record a sign-in in the audit log");
  }
}

/** A refused second factor or a lockout, in each organization of the person. Never throws (logged). */
export async function recordSignInStep(db: Db, log: FastifyBaseLogger, event: SignInStepEvent): Promise<void> {
  try {
    await recordInEveryOrganization(db, event.account, event.action, event.sourceIp, { email: event.account.email.trim().toLowerCase(), ...event.detail });
  } catch (err) {
    log.warn({ err, action: event.action }, "could not record a sign-in step in the audit log");
  }
}

async function recordInEveryOrganization(db: Db, person: { id: string; name: string }, action: string, sourceIp: string | null, after: object): Promise<void> {
  const organizations = await organizationsOfPerson(db, person.id);
  if (organizations.length === 0) return;
  await insertAuditEvents(
    db,
    organizations.map((id) => ({
      organizationId: id,
      actorSub: person.id,
      actorName: person.name,
      action,
      targetType: "person",
      targetId: person.id,
      after,
      sourceIp,
    })),
  );
}
