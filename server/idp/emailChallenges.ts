/**
 * Secrets mailed to a person of the embedded provider (docs/security.md "E-mail verification" and
 * "Password reset"): a 6-digit code that confirms their address, or a link that lets them choose a
 * new password. Only a SHA-256 hash is stored (`idp_email_challenges`). A challenge counts only
 * for the address it was sent to, once, before it expires; a newer one of the same purpose
 * replaces the older; a code is void after EMAIL_CODE_MAX_ATTEMPTS wrong tries.
 */
import crypto from "node:crypto";
import { and, desc, eq, gt, isNull, lt, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "../db/client.ts";
import { idpEmailChallenges } from "../db/schema.ts";
import { markEmailVerified, normalizeEmail } from "./people.ts";

type Purpose = "emailVerification" | "passwordReset";

/** A confirmation code works this long (the sign-in page it belongs to lives 30 minutes too). */
export const EMAIL_CODE_TTL_SECONDS = 30 * 60;
/** Wrong codes before a code is void (a new one must be sent): 5 guesses in a million. */
export const EMAIL_CODE_MAX_ATTEMPTS = 5;
/** A password-reset link works once, this long. */
export const RESET_LINK_TTL_SECONDS = 60 * 60;

const sha256 = (text: string) => crypto.createHash("sha256").update(text, "utf8").digest("hex");
/** The code is short, so its hash is bound to its challenge: one table of 10^6 hashes does not fit every row. */
const codeHash = (challengeId: string, code: string) => sha256(`${challengeId}:${code}`);

async function replaceChallenge(db: DbOrTx, purpose: Purpose, account: { id: string; email: string }, id: string, secretHash: string, ttlSeconds: number) {
  // Only the newest counts; spent and expired ones of this person go too.
  await db.delete(idpEmailChallenges).where(and(eq(idpEmailChallenges.accountId, account.id), eq(idpEmailChallenges.purpose, purpose)));
  await db.insert(idpEmailChallenges).values({
    id,
    accountId: account.id,
    purpose,
    email: normalizeEmail(account.email),
    secretHash,
    expiresAt: new Date(Date.now() + ttlSeconds * 1000),
  });
}

/** A new confirmation code for the account's address (the previous one stops working). */
export async function newEmailCode(db: Db, account: { id: string; email: string }): Promise<string> {
  const code = crypto.randomInt(0, 1_000_000).toString().padStart(6, "0");
  const id = crypto.randomUUID();
  await db.transaction((tx) => replaceChallenge(tx, "emailVerification", account, id, codeHash(id, code), EMAIL_CODE_TTL_SECONDS));
  return code;
}

export type CodeResult = "confirmed" | "wrong" | "spent";

/**
 * Checks a typed confirmation code. `confirmed`: the address is verified now. `wrong`: try again.
 * `spent`: there is no live code (expired, tried too often, or never sent): send a new one.
 */
export async function confirmEmailCode(db: Db, accountId: string, typed: string): Promise<CodeResult> {
  const code = typed.replace(/\s/g, "");
  return db.transaction(async (tx) => {
    const [challenge] = await tx
      .select()
      .from(idpEmailChallenges)
      .where(
        and(
          eq(idpEmailChallenges.accountId, accountId),
          eq(idpEmailChallenges.purpose, "emailVerification"),
          isNull(idpEmailChallenges.usedAt),
          gt(idpEmailChallenges.expiresAt, new Date()),
          lt(idpEmailChallenges.attempts, EMAIL_CODE_MAX_ATTEMPTS),
        ),
      )
      .orderBy(desc(idpEmailChallenges.createdAt))
      .limit(1)
      // Two tries of the same code at once are counted one after the other.
      .for("update");
    if (!challenge) return "spent";
    const expected = Buffer.from(challenge.secretHash, "utf8");
    const actual = Buffer.from(codeHash(challenge.id, code), "utf8");
    if (!/^\d{6}$/.test(code) || !crypto.timingSafeEqual(expected, actual)) {
      const [after] = await tx
        .update(idpEmailChallenges)
        .set({ attempts: sql`${idpEmailChallenges.attempts} + 1` })
        .where(eq(idpEmailChallenges.id, challenge.id))
        .returning({ attempts: idpEmailChallenges.attempts });
      return (after?.attempts ?? EMAIL_CODE_MAX_ATTEMPTS) >= EMAIL_CODE_MAX_ATTEMPTS ? "spent" : "wrong";
    }
    await tx.update(idpEmailChallenges).set({ usedAt: new Date() }).where(eq(idpEmailChallenges.id, challenge.id));
    // The address the code went to must still be the account's.
    return (await markEmailVerified(tx, accountId, challenge.email)) ? "confirmed" : "spent";
  });
}

/** A new password-reset token for the account (the previous link stops working); only its hash is kept. */
export async function newResetToken(db: Db, account: { id: string; email: string }): Promise<string> {
  const token = crypto.randomBytes(32).toString("base64url");
  await db.transaction((tx) => replaceChallenge(tx, "passwordReset", account, crypto.randomUUID(), sha256(token), RESET_LINK_TTL_SECONDS));
  return token;
}

const liveReset = (token: string) =>
  and(
    eq(idpEmailChallenges.secretHash, sha256(token)),
    eq(idpEmailChallenges.purpose, "passwordReset"),
    isNull(idpEmailChallenges.usedAt),
    gt(idpEmailChallenges.expiresAt, new Date()),
  );

/** The account and address a live reset token belongs to, or undefined (unknown, used or expired). */
export async function findResetToken(db: DbOrTx, token: string): Promise<{ accountId: string; email: string } | undefined> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const [row] = await db
    .select({ accountId: idpEmailChallenges.accountId, email: idpEmailChallenges.email })
    .from(idpEmailChallenges)
    .where(liveReset(token))
    .limit(1);
  return row;
}

/** Uses a reset token up, in the caller's transaction; undefined when it is no longer live (a second use, or expired). */
export async function consumeResetToken(tx: DbOrTx, token: string): Promise<{ accountId: string; email: string } | undefined> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const [row] = await tx
    .update(idpEmailChallenges)
    .set({ usedAt: new Date() })
    .where(liveReset(token))
    .returning({ accountId: idpEmailChallenges.accountId, email: idpEmailChallenges.email });
  return row;
}

/** After a password change: reset links sent before it stop working. */
export async function dropResetTokens(tx: DbOrTx, accountId: string): Promise<void> {
  await tx.delete(idpEmailChallenges).where(and(eq(idpEmailChallenges.accountId, accountId), eq(idpEmailChallenges.purpose, "passwordReset")));
}
