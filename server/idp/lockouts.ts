/**
 * What happens when wrong two-factor codes lock a person's second step (server/idp/twoFactor.ts
 * counts them): a `session.lockedOut` record in each of the person's organizations and an e-mail
 * to the person (docs/security.md, "Attempts"). Wrong codes at sign-in come after a right
 * password, so a lockout there means someone else may know it: the person must hear of it.
 */
import type { FastifyBaseLogger } from "fastify";
import type { Db } from "../db/client.ts";
import type { Mailer } from "../mail/mailer.ts";
import { recordSignInStep } from "../modules/audit/signIns.ts";
import { LOCKOUT_MAX_SECONDS, MAX_FAILED_ATTEMPTS, waitText } from "./twoFactor.ts";

export interface LockoutDeps {
  db: Db;
  /** Undefined without SMTP_URL: the lockout is audited and logged, not mailed. */
  mailer?: Mailer;
  log: FastifyBaseLogger;
  publicUrl: string;
}

export interface Lockout {
  account: { id: string; name: string; email: string };
  /** The n-th lockout in a row, and until when codes are refused. */
  lockouts: number;
  until: Date;
  retryAfterSeconds: number;
  /** Where the wrong codes were typed: the sign-in page, or turning two-factor off in the app. */
  where: "signIn" | "turnOff";
  sourceIp: string | null;
}

/**
 * Audits one lockout (awaited) and mails it (not awaited: a slow SMTP server must not hold up the
 * page). Never throws: the page answers the same whether or not these worked.
 */
export async function reportLockout(deps: LockoutDeps, lockout: Lockout): Promise<void> {
  const { account } = lockout;
  deps.log.warn({ accountId: account.id, lockouts: lockout.lockouts, until: lockout.until.toISOString() }, "two-factor codes locked after wrong codes");
  await recordSignInStep(deps.db, deps.log, {
    action: "session.lockedOut",
    account,
    sourceIp: lockout.sourceIp,
    detail: { lockedUntil: lockout.until.toISOString(), lockoutsInARow: lockout.lockouts, where: lockout.where },
  });
  if (!deps.mailer) return;
  const wait = waitText(lockout.retryAfterSeconds);
  const what =
    lockout.where === "signIn"
      ? `Someone signed in to Toolbox with your password (${account.email}) and then entered ${MAX_FAILED_ATTEMPTS} wrong two-factor codes in a row`
      : `${MAX_FAILED_ATTEMPTS} wrong two-factor codes in a row were entered to turn off two-factor sign-in for your Toolbox account (${account.email})`;
  deps.mailer
    .send({
      to: account.email,
      subject: `Your Toolbox two-factor sign-in is locked for ${wait}`,
      text: [
        `${what}, from the address ${lockout.sourceIp ?? "(unknown)"}.`,
        "",
        `Two-factor codes for your account are refused until ${lockout.until.toISOString().replace("T", " ").slice(0, 16)} UTC (${wait}).` +
          ` This is lockout number ${lockout.lockouts} in a row: each one that follows within a day lasts twice as long, up to ${waitText(LOCKOUT_MAX_SECONDS)}.`,
        "",
        "If this was you, wait, then use the current code from your authenticator app or one of your recovery codes.",
        "If it was not you, someone knows your password: change it at once and tell your administrator.",
        `${deps.publicUrl}/settings/security`,
      ].join("\n"),
    })
    .catch((err: unknown) => {
      deps.log.warn({ err: { message: (err as Error).message, code: (err as { code?: string }).code } }, "two-factor lockout e-mail not sent");
    });
}
