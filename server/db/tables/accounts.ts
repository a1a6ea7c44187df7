import { sql } from "drizzle-orm";
import {
  boolean,
  foreignKey,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
// The one schema re-exports every table; the references below are read lazily, so the cycle is harmless.
import { memberships, organizations, tradePlatforms } from "../schema.ts";

/**
 * Money columns: exact decimals with the two digits every account currency uses here
 * (core/trading/money.ts). The API reads and writes them as decimal strings ("1250.50"), never
 * as floats.
 */
const money = (name: string) => numeric(name, { precision: 20, scale: 2 });

/**
 * The trading accounts of every platform, mirrored from the platforms (server/accounts/): an
 * initial sync, then the live stream. Every query is scoped by organization; the indexes lead
 * with it and follow the list's filters and sorts.
 */
export const tradingAccounts = pgTable(
  "trading_accounts",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    platformId: uuid("platform_id")
      .notNull()
      .references(() => tradePlatforms.id, { onDelete: "cascade" }),
    login: text("login").notNull(),
    group: text("group").notNull(),
    name: text("name").notNull(),
    email: text("email").notNull(),
    phone: text("phone").notNull().default(""),
    country: text("country").notNull().default(""),
    city: text("city").notNull().default(""),
    address: text("address").notNull().default(""),
    comment: text("comment").notNull().default(""),
    leverage: integer("leverage").notNull(),
    currency: text("currency").notNull(),
    balance: money("balance").notNull(),
    credit: money("credit").notNull(),
    equity: money("equity").notNull(),
    margin: money("margin").notNull(),
    freeMargin: money("free_margin").notNull(),
    /** Percent with two decimals; null while no margin is in use. */
    marginLevel: money("margin_level"),
    marginState: text("margin_state", { enum: ["ok", "marginCall", "stopOut"] }).notNull(),
    enabled: boolean("enabled").notNull(),
    readOnly: boolean("read_only").notNull(),
    registration: timestamp("registration", { withTimezone: true }).notNull(),
    lastAccess: timestamp("last_access", { withTimezone: true }),
    /** When the mirror last wrote the row (a full resync removes rows it did not touch). */
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.platformId, t.login] }),
    // Numeric logins sort as numbers: shorter first, then by text.
    index("trading_accounts_org_login_idx").on(t.organizationId, sql`length(${t.login})`, t.login),
    index("trading_accounts_org_group_idx").on(t.organizationId, t.group),
    index("trading_accounts_org_name_idx").on(t.organizationId, t.name),
    index("trading_accounts_org_balance_idx").on(t.organizationId, t.balance),
    index("trading_accounts_org_equity_idx").on(t.organizationId, t.equity),
  ],
);

/**
 * One row per Idempotency-Key and organization: the unique index decides which of concurrent
 * retries runs the operation; the others get its outcome. `attempt` grows when a retry follows a
 * definite rejection, so the platform sees a fresh operation id then, and the same one otherwise.
 */
export const balanceOperations = pgTable(
  "balance_operations",
  {
    id: uuid("id").primaryKey().default(sql`gen_random_uuid()`),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    platformId: uuid("platform_id").notNull(),
    login: text("login").notNull(),
    idempotencyKey: text("idempotency_key").notNull(),
    /** SHA-256 of the canonical request {platformId, login, type, amount, comment}. */
    requestHash: text("request_hash").notNull(),
    type: text("type", { enum: ["deposit", "withdrawal", "creditIn", "creditOut"] }).notNull(),
    amount: money("amount").notNull(),
    comment: text("comment").notNull(),
    status: text("status", { enum: ["pending", "done", "rejected"] }).notNull(),
    attempt: integer("attempt").notNull().default(1),
    /** While pending, nobody else calls the platform before this time; after it, a retry takes over. */
    leaseUntil: timestamp("lease_until", { withTimezone: true }).notNull(),
    /** The answer once done; the platform's reason once rejected. */
    result: jsonb("result"),
    actorSub: text("actor_sub").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("balance_operations_org_key_idx").on(t.organizationId, t.idempotencyKey),
    index("balance_operations_account_idx").on(t.platformId, t.login, t.createdAt),
  ],
);

/** Per member and organization: UI state such as the accounts grid's columns. */
export const memberPreferences = pgTable(
  "member_preferences",
  {
    organizationId: uuid("organization_id").notNull(),
    userSub: text("user_sub").notNull(),
    key: text("key").notNull(),
    value: jsonb("value"),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.userSub, t.key] }),
    foreignKey({
      columns: [t.organizationId, t.userSub],
      foreignColumns: [memberships.organizationId, memberships.userSub],
    }).onDelete("cascade"),
  ],
);
