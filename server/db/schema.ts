import { sql } from "drizzle-orm";
import {
  foreignKey,
  index,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";

const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();

/** A broker's workspace; everything else hangs off one. */
export const organizations = pgTable("organizations", {
  id: uuid("id").primaryKey().default(sql`gen_random_uuid()`),
  name: text("name").notNull(),
  createdAt: createdAt(),
});

/** A person as the identity provider knows them (`sub`), mirrored at first API call. */
export const users = pgTable("users", {
  sub: text("sub").primaryKey(),
  email: text("email"),
  name: text("name"),
  /** Set once the first-sign-in organization has been created, so it is created once. */
  provisionedAt: timestamp("provisioned_at", { withTimezone: true }),
  createdAt: createdAt(),
});

export const memberships = pgTable(
  "memberships",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    userSub: text("user_sub")
      .notNull()
      .references(() => users.sub, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.userSub] }), index("memberships_user_idx").on(t.userSub)],
);

/**
 * Claims of SPEC §6, stored per member and organization: `organization:admin` = org id,
 * or `Module.{module}.{orgId}` = comma-separated permissions.
 */
export const memberClaims = pgTable(
  "member_claims",
  {
    organizationId: uuid("organization_id").notNull(),
    userSub: text("user_sub").notNull(),
    type: text("type").notNull(),
    value: text("value").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.userSub, t.type] }),
    index("member_claims_user_idx").on(t.userSub),
    foreignKey({
      columns: [t.organizationId, t.userSub],
      foreignColumns: [memberships.organizationId, memberships.userSub],
    }).onDelete("cascade"),
  ],
);

/** Accounts of the embedded identity provider (not used with an external provider). */
export const idpAccounts = pgTable(
  "idp_accounts",
  {
    id: uuid("id").primaryKey().default(sql`gen_random_uuid()`),
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
  (t) => [
    primaryKey({ columns: [t.model, t.id] }),
    index("idp_records_grant_idx").on(t.grantId),
    index("idp_records_uid_idx").on(t.uid),
  ],
);

/** Secrets generated once and kept (signing keys, cookie keys), so restarts keep sessions. */
export const appSecrets = pgTable("app_secrets", {
  name: text("name").primaryKey(),
  value: jsonb("value").notNull(),
  createdAt: createdAt(),
});

// Tables of later capabilities live beside their owners' concerns; this file stays the one schema.
export * from "./tables/audit.ts";
export * from "./tables/platforms.ts";
export * from "./tables/accounts.ts";
