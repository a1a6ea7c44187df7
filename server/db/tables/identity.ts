import { sql } from "drizzle-orm";
import { index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
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
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("idp_accounts_email_idx").on(sql`lower(${t.email})`)],
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
