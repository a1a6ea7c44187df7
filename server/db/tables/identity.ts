import { sql } from "drizzle-orm";
import { bigint, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns.ts";

/** Accounts of the embedded identity provider (not used with an external provider). */
export const idpAccounts = pgTable(
  "idp_accounts",
  {
    id: uuid("id")
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    email: text("email").notNull(),
    name: text("name").notNull(),
    passwordHash: text("password_hash").notNull(),
    /**
     * When the person proved they receive mail at `email` (a code mailed at sign-up or sign-in, or
     * a password-reset link they followed); null until then. Only a verified address may accept
     * an invitation (docs/security.md "E-mail verification").
     */
    emailVerifiedAt: timestamp("email_verified_at", { withTimezone: true }),
    /** The last change or reset of the password (null: never changed since sign-up). */
    passwordChangedAt: timestamp("password_changed_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("idp_accounts_email_idx").on(sql`lower(${t.email})`)],
);

/**
 * Secrets mailed to a person of the embedded provider (server/idp/emailChallenges.ts): a code
 * confirming their e-mail address, or a password-reset link. Only a hash is kept. A challenge
 * counts only for the address it was sent to, once, before it expires and within its attempts;
 * a newer one of the same purpose replaces it.
 */
export const idpEmailChallenges = pgTable(
  "idp_email_challenges",
  {
    id: uuid("id")
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    accountId: uuid("account_id")
      .notNull()
      .references(() => idpAccounts.id, { onDelete: "cascade" }),
    /** `emailVerification` (a 6-digit code) or `passwordReset` (a link's 256-bit token). */
    purpose: text("purpose").notNull(),
    /** The address it was sent to, lower case. */
    email: text("email").notNull(),
    secretHash: text("secret_hash").notNull(),
    /** Wrong codes typed against it; past the limit it is void. */
    attempts: integer("attempts").notNull().default(0),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [index("idp_email_challenges_account_idx").on(t.accountId, t.purpose), index("idp_email_challenges_secret_idx").on(t.secretHash)],
);

/**
 * Two-factor sign-in (TOTP) of an embedded-provider account (server/idp/twoFactor.ts). The secret
 * is encrypted at rest (server/secrets) with the account id as associated data. While an
 * enrolment waits for its first code, `pendingSecretEncrypted` holds the new secret and
 * `enabledAt` stays null (or keeps the previous enrolment's, until the new one is confirmed).
 * After an administrator's reset the secret is gone and `enrolmentRequiredAt` is set: the next
 * sign-in enrols a new device before it completes (docs/security.md, "Reset by an administrator").
 */
export const idpTwoFactor = pgTable("idp_two_factor", {
  accountId: uuid("account_id")
    .primaryKey()
    .references(() => idpAccounts.id, { onDelete: "cascade" }),
  secretEncrypted: text("secret_encrypted"),
  pendingSecretEncrypted: text("pending_secret_encrypted"),
  enabledAt: timestamp("enabled_at", { withTimezone: true }),
  /** The last 30-second step a code was accepted for: a code (or an older one) is never taken twice. */
  lastUsedStep: bigint("last_used_step", { mode: "number" }),
  /** Wrong codes in a row, and until when codes are refused after too many. */
  failedAttempts: integer("failed_attempts").notNull().default(0),
  lockedUntil: timestamp("locked_until", { withTimezone: true }),
  /**
   * Lockouts in a row, each begun within a day of the previous one's end: the next lasts twice as
   * long as the last (server/idp/twoFactor.ts). A right code sets it back to 0.
   */
  lockouts: integer("lockouts").notNull().default(0),
  /** Set by an administrator's reset: the person must enrol a new device at their next sign-in. */
  enrolmentRequiredAt: timestamp("enrolment_required_at", { withTimezone: true }),
  createdAt: createdAt(),
});

/** Single-use recovery codes of a two-factor enrolment, stored as SHA-256 hashes (they are random, 80 bits). */
export const idpRecoveryCodes = pgTable(
  "idp_recovery_codes",
  {
    id: uuid("id")
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    accountId: uuid("account_id")
      .notNull()
      .references(() => idpAccounts.id, { onDelete: "cascade" }),
    codeHash: text("code_hash").notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("idp_recovery_codes_account_hash_idx").on(t.accountId, t.codeHash)],
);

/** oidc-provider's storage (sessions, grants, codes, refresh tokens …), one row per model instance. */
export const idpRecords = pgTable(
  "idp_records",
  {
    model: text("model").notNull(),
    id: text("id").notNull(),
    payload: jsonb("payload").notNull(),
    grantId: text("grant_id"),
    userCode: text("user_code"),
    uid: text("uid"),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    consumedAt: timestamp("consumed_at", { withTimezone: true }),
  },
  (t) => [primaryKey({ columns: [t.model, t.id] }), index("idp_records_grant_idx").on(t.grantId), index("idp_records_uid_idx").on(t.uid)],
);

/**
 * Grants of the embedded identity provider that ended (sign-out, a revoked or reused refresh
 * token), each kept until the access tokens it issued have expired: the API guard refuses their
 * tokens at once (server/http/auth/revocations.ts). A trigger announces every new row on the
 * `toolbox_access` channel (its migration), and every node also polls recent rows.
 */
export const revokedGrants = pgTable(
  "revoked_grants",
  {
    grantId: text("grant_id").primaryKey(),
    revokedAt: timestamp("revoked_at", { withTimezone: true }).notNull().defaultNow(),
    /** When the last access token of the grant expires (plus the API's clock tolerance): the row may go then. */
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("revoked_grants_revoked_at_idx").on(t.revokedAt), index("revoked_grants_expires_at_idx").on(t.expiresAt)],
);

/** Secrets generated once and kept (signing keys, cookie keys), so restarts keep sessions. */
export const appSecrets = pgTable("app_secrets", {
  name: text("name").primaryKey(),
  value: jsonb("value").notNull(),
  createdAt: createdAt(),
});
