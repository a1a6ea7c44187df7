/**
 * Two-factor sign-in with TOTP (RFC 6238) for accounts of the embedded provider (docs/security.md
 * "Two-factor sign-in", decision 0049). The `otpauth` library computes and checks codes; `qrcode`
 * draws the enrolment QR code. Secrets are encrypted at rest with the account id as associated
 * data; recovery codes are kept as SHA-256 hashes. A code is accepted for the current 30-second
 * step or one step either side, and never twice: the step of the last accepted code is kept and
 * only a later step passes (one atomic UPDATE, so two nodes cannot both take the same code).
 * Wrong codes count per person: after MAX_FAILED_ATTEMPTS in a row, every code is refused for a
 * while, and each lockout that follows another within LOCKOUT_MEMORY_SECONDS lasts twice as long
 * (LOCKOUT_BASE_SECONDS, doubling up to LOCKOUT_MAX_SECONDS). The counts live in the database, so
 * a restart or another node does not forget them.
 *
 * One idea: the person's second factor itself (secret, codes, recovery codes, lockout); the
 * sign-in and enrolment screens that ask for it are the interactions'.
 */
import crypto from "node:crypto";
import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import { Secret, TOTP } from "otpauth";
import QRCode from "qrcode";
import type { Db, DbOrTx } from "../db/client.ts";
import { idpRecoveryCodes, idpTwoFactor } from "../db/schema.ts";
import type { SecretCipher } from "../secrets/cipher.ts";

export const TOTP_ISSUER = "Toolbox";
export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Steps either side of the current one that are still accepted (clock drift). */
export const TOTP_WINDOW = 1;
export const RECOVERY_CODE_COUNT = 10;
/** Wrong codes in a row before codes are refused for a while. */
export const MAX_FAILED_ATTEMPTS = 5;
/** The first lockout; each one within a day of the previous lockout's end lasts twice as long, up to a day. */
export const LOCKOUT_BASE_SECONDS = 15 * 60;
export const LOCKOUT_MAX_SECONDS = 24 * 3600;
/** A lockout that begins this long after the previous one ended starts again at LOCKOUT_BASE_SECONDS. */
export const LOCKOUT_MEMORY_SECONDS = 24 * 3600;

/** How long the n-th lockout in a row lasts (n ≥ 1): 15 min, 30 min, 1 h, … 24 h. */
export function lockoutSeconds(n: number): number {
  return Math.min(LOCKOUT_BASE_SECONDS * 2 ** Math.min(Math.max(n, 1) - 1, 16), LOCKOUT_MAX_SECONDS);
}

export interface TwoFactorDeps {
  db: Db;
  cipher: SecretCipher;
}

export interface TwoFactorStatus {
  enabled: boolean;
  enabledAt: Date | null;
  recoveryCodesLeft: number;
}

/** Associated data of an account's secret: a ciphertext copied onto another account does not decrypt. */
const secretAad = (accountId: string) => `idp_two_factor:${accountId}`;

const totpOf = (base32: string, label = "") =>
  new TOTP({ issuer: TOTP_ISSUER, label, secret: Secret.fromBase32(base32), algorithm: "SHA1", digits: TOTP_DIGITS, period: TOTP_PERIOD_SECONDS });

const hashRecoveryCode = (code: string) => crypto.createHash("sha256").update(normalizeRecoveryCode(code)).digest("base64url");

/** Recovery codes are read without spaces or dashes and in any letter case. */
export function normalizeRecoveryCode(code: string): string {
  return code.replace(/[\s-]/g, "").toUpperCase();
}

/** A recovery code: 80 random bits in base32, shown as four groups of four (ABCD-EFGH-…). */
function newRecoveryCode(): string {
  return (new Secret({ size: 10 }).base32.match(/.{4}/g) ?? []).join("-");
}

export async function twoFactorStatus(db: DbOrTx, accountId: string): Promise<TwoFactorStatus> {
  const [row] = await db.select({ enabledAt: idpTwoFactor.enabledAt }).from(idpTwoFactor).where(eq(idpTwoFactor.accountId, accountId));
  if (!row?.enabledAt) return { enabled: false, enabledAt: null, recoveryCodesLeft: 0 };
  const [left] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(idpRecoveryCodes)
    .where(and(eq(idpRecoveryCodes.accountId, accountId), isNull(idpRecoveryCodes.usedAt)));
  return { enabled: true, enabledAt: row.enabledAt, recoveryCodesLeft: left?.n ?? 0 };
}

export async function hasTwoFactor(db: Db, accountId: string): Promise<boolean> {
  return (await twoFactorStatus(db, accountId)).enabled;
}

/** An administrator reset the person's two-factor: their next sign-in enrols a new device before it completes. */
export async function enrolmentRequired(db: DbOrTx, accountId: string): Promise<boolean> {
  const [row] = await db
    .select({ required: idpTwoFactor.enrolmentRequiredAt, enabledAt: idpTwoFactor.enabledAt })
    .from(idpTwoFactor)
    .where(eq(idpTwoFactor.accountId, accountId));
  return Boolean(row?.required && !row.enabledAt);
}

/**
 * An administrator's reset (a lost device): the secret and the recovery codes go, and the person
 * must enrol a new device at their next sign-in; the password alone never completes one. Says
 * whether two-factor was on ("reset"), or a reset already waits for the enrolment. Give it the
 * transaction that writes the audit rows.
 */
export async function requireReenrolment(db: DbOrTx, accountId: string): Promise<"reset" | "alreadyRequired" | "notOn"> {
  const [row] = await db
    .select({ enabledAt: idpTwoFactor.enabledAt, required: idpTwoFactor.enrolmentRequiredAt })
    .from(idpTwoFactor)
    .where(eq(idpTwoFactor.accountId, accountId))
    .for("update");
  if (!row?.enabledAt) return row?.required ? "alreadyRequired" : "notOn";
  await db.delete(idpRecoveryCodes).where(eq(idpRecoveryCodes.accountId, accountId));
  await db
    .update(idpTwoFactor)
    .set({
      secretEncrypted: null,
      pendingSecretEncrypted: null,
      enabledAt: null,
      lastUsedStep: null,
      failedAttempts: 0,
      lockedUntil: null,
      lockouts: 0,
      enrolmentRequiredAt: new Date(),
    })
    .where(eq(idpTwoFactor.accountId, accountId));
  return "reset";
}

export interface Enrolment {
  /** The secret in base32, for typing into an authenticator app by hand. */
  secret: string;
  /** The otpauth:// URI (what the QR code holds). */
  uri: string;
  /** The QR code of the URI, as an SVG document. */
  qrSvg: string;
}

/** The person has two-factor sign-in already: they turn it off first (with a code). */
export class AlreadyEnrolled extends Error {}

/**
 * Starts an enrolment: a new secret, kept (encrypted) as pending until a code from it confirms it.
 * Starting again replaces a pending secret.
 */
export async function startEnrolment(deps: TwoFactorDeps, account: { id: string; email: string }): Promise<Enrolment> {
  if (await hasTwoFactor(deps.db, account.id)) throw new AlreadyEnrolled();
  const secret = new Secret({ size: 20 }).base32;
  const pendingSecretEncrypted = deps.cipher.encrypt(secret, secretAad(account.id));
  await deps.db
    .insert(idpTwoFactor)
    .values({ accountId: account.id, pendingSecretEncrypted })
    .onConflictDoUpdate({ target: idpTwoFactor.accountId, set: { pendingSecretEncrypted } });
  const uri = totpOf(secret, account.email).toString();
  const qrSvg = await QRCode.toString(uri, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
  return { secret, uri, qrSvg };
}

/**
 * The enrolment waiting for its first code, or a new one: a page shown again (a reload) keeps the
 * secret the person may have scanned already.
 */
export async function pendingEnrolment(deps: TwoFactorDeps, account: { id: string; email: string }): Promise<Enrolment> {
  const [row] = await deps.db
    .select({ pending: idpTwoFactor.pendingSecretEncrypted, enabledAt: idpTwoFactor.enabledAt })
    .from(idpTwoFactor)
    .where(eq(idpTwoFactor.accountId, account.id));
  if (!row?.pending || row.enabledAt) return startEnrolment(deps, account);
  const secret = deps.cipher.decrypt(row.pending, secretAad(account.id));
  const uri = totpOf(secret, account.email).toString();
  const qrSvg = await QRCode.toString(uri, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
  return { secret, uri, qrSvg };
}

/** The step (counter) a code belongs to, when it is valid now within the window; otherwise null. */
function matchingStep(secretBase32: string, code: string, now = Date.now()): number | null {
  const delta = totpOf(secretBase32).validate({ token: code, timestamp: now, window: TOTP_WINDOW });
  if (delta === null) return null;
  return TOTP.counter({ period: TOTP_PERIOD_SECONDS, timestamp: now }) + delta;
}

const TOTP_CODE = /^\d{6}$/;
const cleanCode = (code: string) => code.replace(/\s/g, "");

/**
 * Confirms a pending enrolment with a code from the new secret. Returns the recovery codes (shown
 * once), or null when there is no pending enrolment or the code does not match.
 */
export async function confirmEnrolment(deps: TwoFactorDeps, accountId: string, code: string): Promise<string[] | null> {
  const [row] = await deps.db.select().from(idpTwoFactor).where(eq(idpTwoFactor.accountId, accountId));
  if (!row?.pendingSecretEncrypted || row.enabledAt) return null;
  const secret = deps.cipher.decrypt(row.pendingSecretEncrypted, secretAad(accountId));
  const step = TOTP_CODE.test(cleanCode(code)) ? matchingStep(secret, cleanCode(code)) : null;
  if (step === null) return null;
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  const confirmed = await deps.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(idpTwoFactor)
      .set({
        secretEncrypted: row.pendingSecretEncrypted,
        pendingSecretEncrypted: null,
        enabledAt: new Date(),
        lastUsedStep: step,
        failedAttempts: 0,
        lockedUntil: null,
        lockouts: 0,
        enrolmentRequiredAt: null,
      })
      // Only the pending secret that was checked, and only once.
      .where(and(eq(idpTwoFactor.accountId, accountId), eq(idpTwoFactor.pendingSecretEncrypted, row.pendingSecretEncrypted!), isNull(idpTwoFactor.enabledAt)))
      .returning({ accountId: idpTwoFactor.accountId });
    if (!updated) return false;
    await tx.delete(idpRecoveryCodes).where(eq(idpRecoveryCodes.accountId, accountId));
    await tx.insert(idpRecoveryCodes).values(codes.map((c) => ({ accountId, codeHash: hashRecoveryCode(c) })));
    return true;
  });
  return confirmed ? codes : null;
}

export type CodeCheck =
  | { ok: true; method: "totp" | "recovery" }
  | { ok: false; reason: "wrong" }
  | {
      ok: false;
      reason: "locked";
      retryAfterSeconds: number;
      /** Set when this very code began the lockout (the n-th in a row): the person is told, and it is audited. */
      started?: { lockouts: number; until: Date };
    }
  | { ok: false; reason: "notEnrolled" };

/**
 * Checks a code of an enrolled person: a TOTP code (six digits) or one of their recovery codes
 * (used up by this). Counts wrong codes; refuses every code while locked out.
 */
export async function checkCode(deps: TwoFactorDeps, accountId: string, code: string, now = new Date()): Promise<CodeCheck> {
  const [row] = await deps.db.select().from(idpTwoFactor).where(eq(idpTwoFactor.accountId, accountId));
  if (!row?.enabledAt || !row.secretEncrypted) return { ok: false, reason: "notEnrolled" };
  if (row.lockedUntil && row.lockedUntil > now) {
    return { ok: false, reason: "locked", retryAfterSeconds: Math.ceil((row.lockedUntil.getTime() - now.getTime()) / 1000) };
  }
  const cleaned = cleanCode(code);
  if (TOTP_CODE.test(cleaned)) {
    const step = matchingStep(deps.cipher.decrypt(row.secretEncrypted, secretAad(accountId)), cleaned, now.getTime());
    if (step !== null) {
      const [taken] = await deps.db
        .update(idpTwoFactor)
        .set({ lastUsedStep: step, failedAttempts: 0, lockedUntil: null, lockouts: 0 })
        .where(and(eq(idpTwoFactor.accountId, accountId), or(isNull(idpTwoFactor.lastUsedStep), lt(idpTwoFactor.lastUsedStep, step))))
        .returning({ accountId: idpTwoFactor.accountId });
      if (taken) return { ok: true, method: "totp" };
    }
  } else if (cleaned.length > 0 && cleaned.length <= 64) {
    const [used] = await deps.db
      .update(idpRecoveryCodes)
      .set({ usedAt: now })
      .where(and(eq(idpRecoveryCodes.accountId, accountId), eq(idpRecoveryCodes.codeHash, hashRecoveryCode(cleaned)), isNull(idpRecoveryCodes.usedAt)))
      .returning({ id: idpRecoveryCodes.id });
    if (used) {
      await deps.db.update(idpTwoFactor).set({ failedAttempts: 0, lockedUntil: null, lockouts: 0 }).where(eq(idpTwoFactor.accountId, accountId));
      return { ok: true, method: "recovery" };
    }
  }
  return recordFailure(deps.db, accountId, now);
}

/**
 * One wrong code, counted in one UPDATE (two nodes cannot lose a count). The MAX_FAILED_ATTEMPTS-th
 * in a row locks: the lockout is the first (LOCKOUT_BASE_SECONDS) unless the previous one ended
 * less than LOCKOUT_MEMORY_SECONDS ago, then twice as long as that one, up to LOCKOUT_MAX_SECONDS.
 * Without the doubling, 5 guesses every 15 minutes would be 480 a day, for ever.
 */
async function recordFailure(db: Db, accountId: string, now: Date): Promise<CodeCheck> {
  const t = idpTwoFactor;
  const nowSql = sql`${now.toISOString()}::timestamptz`;
  const locks = sql`${t.failedAttempts} + 1 >= ${MAX_FAILED_ATTEMPTS}`;
  const repeated = sql`(${t.lockedUntil} is not null and ${t.lockedUntil} > ${nowSql} - make_interval(secs => ${LOCKOUT_MEMORY_SECONDS}))`;
  const nextLockouts = sql`(case when ${repeated} then ${t.lockouts} + 1 else 1 end)`;
  const seconds = sql`least(${LOCKOUT_BASE_SECONDS}::float8 * power(2, least(${nextLockouts} - 1, 16)), ${LOCKOUT_MAX_SECONDS})`;
  const [row] = await db
    .update(t)
    .set({
      failedAttempts: sql`case when ${locks} then 0 else ${t.failedAttempts} + 1 end`,
      lockouts: sql`case when ${locks} then ${nextLockouts} else ${t.lockouts} end`,
      lockedUntil: sql`case when ${locks} then ${nowSql} + make_interval(secs => ${seconds}) else ${t.lockedUntil} end`,
    })
    .where(eq(t.accountId, accountId))
    .returning({ lockedUntil: t.lockedUntil, failedAttempts: t.failedAttempts, lockouts: t.lockouts });
  if (row?.lockedUntil && row.lockedUntil > now) {
    const retryAfterSeconds = Math.ceil((row.lockedUntil.getTime() - now.getTime()) / 1000);
    // The count went back to 0 with a lockout in the future: this code is the one that locked.
    const started = row.failedAttempts === 0 ? { lockouts: row.lockouts, until: row.lockedUntil } : undefined;
    return { ok: false, reason: "locked", retryAfterSeconds, ...(started ? { started } : {}) };
  }
  return { ok: false, reason: "wrong" };
}

/**
 * Turns two-factor sign-in off: the secret, a pending enrolment and the recovery codes go. True
 * when it was on. Give it a transaction to keep the two deletes together.
 */
export async function removeTwoFactor(db: DbOrTx, accountId: string): Promise<boolean> {
  await db.delete(idpRecoveryCodes).where(eq(idpRecoveryCodes.accountId, accountId));
  const removed = await db.delete(idpTwoFactor).where(eq(idpTwoFactor.accountId, accountId)).returning({ enabledAt: idpTwoFactor.enabledAt });
  return Boolean(removed[0]?.enabledAt);
}

/** Readable "wait" for a lockout: "4 hours", "15 minutes", "1 minute", "40 seconds". */
export function waitText(seconds: number): string {
  if (seconds > 90 * 60) {
    const hours = Math.ceil(seconds / 3600);
    return `${hours} hour${hours === 1 ? "" : "s"}`;
  }
  if (seconds >= 60) {
    const minutes = Math.ceil(seconds / 60);
    return `${minutes} minute${minutes === 1 ? "" : "s"}`;
  }
  return `${seconds} second${seconds === 1 ? "" : "s"}`;
}
