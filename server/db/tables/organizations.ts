import { sql } from "drizzle-orm";
import { check, foreignKey, index, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns.ts";

/** A broker's workspace; everything else hangs off one. */
export const organizations = pgTable(
  "organizations",
  {
    id: uuid("id")
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    name: text("name").notNull(),
    /** The person who created it (`sub`), for the quota of organizations per person; null for those made before it was kept. */
    createdBy: text("created_by"),
    /**
     * The currency the organization's cross-platform figures are stated in (ISO 4217, e.g. the
     * blotter's net exposure, docs/trades-blotter.md#net-exposure); USD unless set.
     */
    currency: text("currency").notNull().default("USD"),
    /**
     * The organization's default time zone (IANA name): what times are shown in for a member who
     * has not chosen a zone of their own (docs/decisions/0078-organization-time-zone.md); UTC unless set.
     */
    timeZone: text("time_zone").notNull().default("UTC"),
    createdAt: createdAt(),
  },
  (t) => [index("organizations_created_by_idx").on(t.createdBy), check("organizations_currency_iso", sql`${t.currency} ~ '^[A-Z]{3}$'`)],
);

/** A person as the identity provider knows them (`sub`), mirrored at first API call. */
export const users = pgTable("users", {
  sub: text("sub").primaryKey(),
  email: text("email"),
  name: text("name"),
  /** Set once the first-sign-in organization has been created, so it is created once. */
  provisionedAt: timestamp("provisioned_at", { withTimezone: true }),
  /** Their last sign-in to the app (the preflight each time the app starts signed in). */
  lastSignInAt: timestamp("last_sign_in_at", { withTimezone: true }),
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
 * Claims of docs/requirements.md#r-access, stored per member and organization: `organization:admin` = org id,
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
