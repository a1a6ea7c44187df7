import { sql } from "drizzle-orm";
import { foreignKey, index, integer, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
// The one schema re-exports every table; the references below are read lazily, so the cycle is harmless.
import { organizations } from "./organizations.ts";
import { tradePlatforms } from "./platforms.ts";
import { CUSTOMER_KINDS, CUSTOMER_STATUSES, KYC_STATES } from "../../../core/schemas/customers.ts";

/**
 * The broker's clients (docs/customers.md). Every query is scoped by organization; the list's
 * indexes lead with it and end with the id, the tiebreaker of every sort
 * (docs/decisions/0052-customers.md).
 */
export const customers = pgTable(
  "customers",
  {
    id: uuid("id")
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: CUSTOMER_KINDS }).notNull(),
    name: text("name").notNull(),
    email: text("email").notNull().default(""),
    phone: text("phone").notNull().default(""),
    /** ISO 3166-1 alpha-2, upper case; empty when unknown. */
    country: text("country").notNull().default(""),
    status: text("status", { enum: CUSTOMER_STATUSES }).notNull(),
    kyc: text("kyc", { enum: KYC_STATES }).notNull(),
    tags: text("tags")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** A member's sub; null when nobody owns the customer. */
    ownerSub: text("owner_sub"),
    /**
     * The import that wrote the row (null: created one by one). While that import is staged (its
     * `customer_import_staging` row exists) the row is invisible to every read (docs/customers.md,
     * "Import"); the import makes its rows visible at once by deleting that one row.
     */
    importId: uuid("import_id"),
    /** Optimistic concurrency: every change adds one; an edit names the version it started from. */
    version: integer("version").notNull().default(1),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => {
    const sortIndex = (name: string, ...columns: Parameters<ReturnType<typeof index>["on"]>) =>
      index(`customers_org_${name}_idx`).on(t.organizationId, ...columns, t.id);
    return [
      sortIndex("name", sql`lower(${t.name})`),
      sortIndex("email", sql`lower(${t.email})`),
      sortIndex("country", t.country),
      sortIndex("status", t.status),
      sortIndex("kyc", t.kyc),
      sortIndex("owner", t.ownerSub),
      sortIndex("created", t.createdAt),
      sortIndex("updated", t.updatedAt),
      index("customers_tags_idx").using("gin", t.tags),
      // "Contains" search on name and e-mail (pg_trgm, loaded on PGlite as on PostgreSQL).
      index("customers_name_trgm_idx").using("gin", t.name.op("gin_trgm_ops")),
      index("customers_email_trgm_idx").using("gin", t.email.op("gin_trgm_ops")),
      // Removing a failed or abandoned import's staged rows, a chunk at a time.
      index("customers_import_idx")
        .on(t.importId)
        .where(sql`${t.importId} is not null`),
    ];
  },
);

/**
 * Which customer a trading account belongs to. The key is the account (platform, login), so an
 * account belongs to at most one customer, whatever two requests do at once. Deleting a customer
 * deletes its links, never the accounts; the link survives the mirror dropping and re-adding the
 * account's row (no foreign key to the mirror), and goes with its platform.
 */
export const customerAccounts = pgTable(
  "customer_accounts",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    platformId: uuid("platform_id")
      .notNull()
      .references(() => tradePlatforms.id, { onDelete: "cascade" }),
    login: text("login").notNull(),
    customerId: uuid("customer_id").notNull(),
    linkedAt: timestamp("linked_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.platformId, t.login] }),
    index("customer_accounts_customer_idx").on(t.customerId),
    foreignKey({ columns: [t.customerId], foreignColumns: [customers.id] }).onDelete("cascade"),
  ],
);

/** A customer's notes timeline, newest first. */
export const customerNotes = pgTable(
  "customer_notes",
  {
    id: uuid("id")
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    customerId: uuid("customer_id")
      .notNull()
      .references(() => customers.id, { onDelete: "cascade" }),
    authorSub: text("author_sub").notNull(),
    authorName: text("author_name"),
    text: text("text").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("customer_notes_customer_idx").on(t.customerId, t.createdAt.desc())],
);

/**
 * The import running in an organization, if any: one at a time per organization, on every node
 * (the row is the lock; docs/customers.md, "Import"). A row older than the import's longest run
 * is a node that stopped mid-import, and the next import takes it over.
 */
export const customerImports = pgTable("customer_imports", {
  organizationId: uuid("organization_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  startedBy: text("started_by").notNull(),
  startedAt: timestamp("started_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * The imports whose rows are written but not yet visible (docs/customers.md, "Import"). An import
 * writes its rows in short transactions, each tagged with its id, so other requests interleave
 * with it even on the embedded database's single connection; every read of customers skips the
 * rows of an import listed here. Deleting the import's row here makes all of them visible in one
 * short transaction; a failed import deletes its rows, then this row. A row left by a node that
 * stopped mid-import is removed, with its rows, by the organization's next import.
 */
export const customerImportStaging = pgTable("customer_import_staging", {
  id: uuid("id")
    .primaryKey()
    .default(sql`gen_random_uuid()`),
  organizationId: uuid("organization_id")
    .notNull()
    .references(() => organizations.id, { onDelete: "cascade" }),
  startedAt: timestamp("started_at", { withTimezone: true }).notNull().defaultNow(),
});
