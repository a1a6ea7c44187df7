import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  foreignKey,
  index,
  integer,
  jsonb,
  numeric,
  pgSequence,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
  type ExtraConfigColumn,
} from "drizzle-orm/pg-core";
// The one schema re-exports every table; the references below are read lazily, so the cycle is harmless.
import { memberships, organizations } from "./organizations.ts";
import { tradePlatforms } from "./platforms.ts";

/**
 * Money columns: exact decimals with the two digits every account currency uses here
 * (core/trading/money.ts). The API reads and writes them as decimal strings ("1250.50"), never
 * as floats.
 */
const money = (name: string) => numeric(name, { precision: 20, scale: 2 });

/**
 * The mirror's write counter. Every write of a `trading_accounts` row takes a new value: inserts
 * by default or from the statement, updates through the trigger of the `mirror_generation` migration (whoever writes
 * them, the mirror or a balance operation). Values only grow, so "written after I read this page
 * from the platform" is `generation > the value taken before reading`, on one counter with no
 * clocks to compare. A bigint read as a JS number: exact up to 2^53, centuries at a million
 * writes a second.
 */
export const tradingAccountsGeneration = pgSequence("trading_accounts_generation");

/**
 * The trading accounts of every platform, mirrored from the platforms (server/modules/accounts/mirror/): an
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
    /** When the row's content last changed (a write that would change nothing is skipped). */
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    /** The write that produced this row version (tradingAccountsGeneration). */
    generation: bigint("generation", { mode: "number" })
      .notNull()
      .default(sql`nextval('trading_accounts_generation')`),
  },
  (t) => {
    // The list's sorts (server/modules/accounts/accountListRepository.ts): each field, then the tiebreaker
    // (platform, then numeric login order: shorter first, then by text), scanned either way.
    const loginLength = sql`length(${t.login})`;
    const tie = [t.platformId, loginLength, t.login];
    const sortIndex = (name: string, column: ExtraConfigColumn) => index(`trading_accounts_org_${name}_idx`).on(t.organizationId, column, ...tie);
    // Nullable fields keep the empty ones last both ways: one index per direction.
    const descNullsLast = (name: string, column: ExtraConfigColumn) =>
      index(`trading_accounts_org_${name}_desc_idx`).on(
        t.organizationId,
        column.desc().nullsLast(),
        t.platformId.desc(),
        sql`length(${t.login}) desc nulls last`,
        t.login.desc(),
      );
    return [
      primaryKey({ columns: [t.platformId, t.login] }),
      index("trading_accounts_org_login_idx").on(t.organizationId, loginLength, t.login, t.platformId),
      index("trading_accounts_org_platform_idx").on(t.organizationId, t.platformId, loginLength, t.login),
      sortIndex("group", t.group),
      sortIndex("name", t.name),
      sortIndex("email", t.email),
      sortIndex("leverage", t.leverage),
      sortIndex("currency", t.currency),
      sortIndex("balance", t.balance),
      sortIndex("credit", t.credit),
      sortIndex("equity", t.equity),
      sortIndex("margin", t.margin),
      sortIndex("free_margin", t.freeMargin),
      sortIndex("margin_level", t.marginLevel),
      descNullsLast("margin_level", t.marginLevel),
      sortIndex("margin_state", t.marginState),
      sortIndex("enabled", t.enabled),
      sortIndex("read_only", t.readOnly),
      sortIndex("registration", t.registration),
      sortIndex("last_access", t.lastAccess),
      descNullsLast("last_access", t.lastAccess),
      // "Name contains" and "e-mail contains" (ILIKE '%…%'): trigram indexes (pg_trgm, loaded on
      // PGlite too). GIN's pending list makes loading 100,000 accounts three times faster than
      // indexing each row's trigrams at once; kept short (256 kB) so a write that flushes it stays
      // short, and flushed after a large load (mirror/writes.ts) so searches are fast at once.
      index("trading_accounts_name_trgm_idx").using("gin", t.name.op("gin_trgm_ops")).with({ gin_pending_list_limit: 256 }),
      index("trading_accounts_email_trgm_idx").using("gin", t.email.op("gin_trgm_ops")).with({ gin_pending_list_limit: 256 }),
    ];
  },
);

/**
 * One row per Idempotency-Key and organization: the unique index decides which of concurrent
 * retries runs the operation; the others get its outcome. The worker that holds the lease
 * (`lease_token`, until `lease_until`) is the only one whose status updates count: every update
 * names the token it was taken with, so a worker whose lease ran out and was taken over changes
 * nothing (server/modules/accounts/balanceOperations.ts).
 */
export const balanceOperations = pgTable(
  "balance_operations",
  {
    id: uuid("id")
      .primaryKey()
      .default(sql`gen_random_uuid()`),
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
    /**
     * pending → done (the platform applied it, audited), rejected (the platform refused it), or
     * unreconciled (the platform answered but Toolbox could not finish recording it: a person
     * checks the account on the platform; `reason` says what failed).
     */
    status: text("status", { enum: ["pending", "done", "rejected", "unreconciled"] }).notNull(),
    /** Who holds the operation: a new token each time a worker takes it. */
    leaseToken: uuid("lease_token")
      .notNull()
      .default(sql`gen_random_uuid()`),
    /** While pending, nobody else calls the platform before this time; after it, a retry takes over. */
    leaseUntil: timestamp("lease_until", { withTimezone: true }).notNull(),
    /** The answer once done (or unreconciled with the platform's figures); the platform's reason once rejected. */
    result: jsonb("result"),
    /** Why it is unreconciled, for the person who reconciles it. */
    reason: text("reason"),
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

/**
 * A dealer's change to an open position (new stops, a close, a partial close), one row per
 * Idempotency-Key and organization, with the same lease as `balance_operations`: the row's id is
 * the order's request id at the platform, so a retry that takes an abandoned row over asks again
 * under the same id and the platform answers with its first result
 * (server/modules/accounts/positionOperations.ts).
 */
export const positionOperations = pgTable(
  "position_operations",
  {
    id: uuid("id")
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    platformId: uuid("platform_id").notNull(),
    login: text("login").notNull(),
    positionId: text("position_id").notNull(),
    idempotencyKey: text("idempotency_key").notNull(),
    /** SHA-256 of the canonical request {platformId, login, positionId, kind, request}. */
    requestHash: text("request_hash").notNull(),
    kind: text("kind", { enum: ["modify", "close", "partialClose"] }).notNull(),
    /** What was asked: `{sl, tp}` or `{volume}` (model units). */
    request: jsonb("request").notNull(),
    /** The position as it stood when the key was first seen: the audit record's "before". */
    before: jsonb("before").notNull(),
    /** pending → done (applied and audited) or rejected (the platform or a rule refused it). */
    status: text("status", { enum: ["pending", "done", "rejected"] }).notNull(),
    leaseToken: uuid("lease_token")
      .notNull()
      .default(sql`gen_random_uuid()`),
    leaseUntil: timestamp("lease_until", { withTimezone: true }).notNull(),
    /** The answer once done; the refusal once rejected. */
    result: jsonb("result"),
    actorSub: text("actor_sub").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("position_operations_org_key_idx").on(t.organizationId, t.idempotencyKey),
    index("position_operations_account_idx").on(t.platformId, t.login, t.createdAt),
  ],
);
