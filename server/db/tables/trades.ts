import { sql } from "drizzle-orm";
import { bigint, doublePrecision, index, integer, jsonb, numeric, pgSequence, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
// The one schema re-exports every table; the references below are read lazily, so the cycle is harmless.
import { organizations } from "./organizations.ts";
import { tradePlatforms } from "./platforms.ts";

/** Money as decision 0019: exact decimals with two digits, decimal strings in the API. */
const money = (name: string) => numeric(name, { precision: 20, scale: 2 });
/** Volume in lots with MetaTrader 5's precision (1/10000 lot, core/trading/volume.ts). */
const lots = (name: string) => numeric(name, { precision: 20, scale: 4 });
const time = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

/**
 * The store's ingest counter: every deal row takes the next value when it is first written, so
 * (time, seq) is a total order for keyset paging (two deals in one millisecond still come in a
 * fixed order) and a row inserted later never lands between two pages already read with the same
 * time. Read as a JS number: exact up to 2^53.
 */
export const tradeDealsSeq = pgSequence("trade_deals_seq");

/**
 * Every deal of every connected platform, mirrored (server/modules/tradeHistory/): a backfill on
 * connect, then the live stream; one row per platform and native deal id, so a replay or an
 * overlapping backfill writes nothing twice (docs/decisions/0039-trade-history-store.md).
 */
export const tradeDeals = pgTable(
  "trade_deals",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    platformId: uuid("platform_id")
      .notNull()
      .references(() => tradePlatforms.id, { onDelete: "cascade" }),
    /** The connector's `Deal.id` (the platform's own deal, ticket or UUID). */
    dealId: text("deal_id").notNull(),
    seq: bigint("seq", { mode: "number" })
      .notNull()
      .default(sql`nextval('trade_deals_seq')`),
    login: text("login").notNull(),
    time: time("time").notNull(),
    action: text("action", { enum: ["buy", "sell", "balance", "credit"] }).notNull(),
    entry: text("entry", { enum: ["in", "out"] }),
    positionId: text("position_id"),
    symbol: text("symbol"),
    volume: lots("volume").notNull(),
    price: doublePrecision("price").notNull(),
    sl: doublePrecision("sl"),
    tp: doublePrecision("tp"),
    profit: money("profit").notNull(),
    commission: money("commission").notNull(),
    swap: money("swap").notNull(),
    reason: text("reason").notNull(),
    comment: text("comment").notNull(),
    /** The platform's own ids (core/trading/native.ts), for display. */
    native: jsonb("native").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.platformId, t.dealId] }),
    // The organization's time range, newest first, and the keyset (time, seq) of its pages.
    index("trade_deals_org_time_idx").on(t.organizationId, t.time.desc(), t.seq.desc()),
    // One account's history, newest first (login exact; a prefix `1002*` is a range of it: pattern ops
    // make LIKE 'x%' an index range whatever the database's collation).
    index("trade_deals_org_login_time_idx").on(t.organizationId, t.login.op("text_pattern_ops"), t.time.desc(), t.seq.desc()),
  ],
);

/** The open positions of every connected platform as the store last saw them (deleted when closed). */
export const tradePositions = pgTable(
  "trade_positions",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    platformId: uuid("platform_id")
      .notNull()
      .references(() => tradePlatforms.id, { onDelete: "cascade" }),
    positionId: text("position_id").notNull(),
    login: text("login").notNull(),
    symbol: text("symbol").notNull(),
    side: text("side", { enum: ["buy", "sell"] }).notNull(),
    volume: lots("volume").notNull(),
    openTime: time("open_time").notNull(),
    openPrice: doublePrecision("open_price").notNull(),
    currentPrice: doublePrecision("current_price").notNull(),
    sl: doublePrecision("sl"),
    tp: doublePrecision("tp"),
    profit: money("profit").notNull(),
    swap: money("swap").notNull(),
    reason: text("reason").notNull(),
    comment: text("comment").notNull(),
    native: jsonb("native").notNull(),
    updatedAt: time("updated_at").notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.platformId, t.positionId] }),
    index("trade_positions_org_open_time_idx").on(t.organizationId, t.openTime.desc(), t.platformId.desc(), t.positionId.desc()),
  ],
);

/**
 * Pending orders of every connected platform, from the live stream: a row per platform and order,
 * kept with its history (placed, then filled into `position_id`, cancelled or expired at
 * `done_time`). Decision 0068.
 */
export const tradeOrders = pgTable(
  "trade_orders",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    platformId: uuid("platform_id")
      .notNull()
      .references(() => tradePlatforms.id, { onDelete: "cascade" }),
    orderId: text("order_id").notNull(),
    login: text("login").notNull(),
    symbol: text("symbol").notNull(),
    type: text("type", { enum: ["buyLimit", "sellLimit", "buyStop", "sellStop"] }).notNull(),
    volume: lots("volume").notNull(),
    price: doublePrecision("price").notNull(),
    sl: doublePrecision("sl"),
    tp: doublePrecision("tp"),
    expiration: time("expiration"),
    placedTime: time("placed_time").notNull(),
    state: text("state", { enum: ["placed", "filled", "cancelled", "expired", "ended"] }).notNull(),
    /** The position a fill opened. */
    positionId: text("position_id"),
    /** When it filled, was cancelled or expired. */
    doneTime: time("done_time"),
    reason: text("reason").notNull(),
    comment: text("comment").notNull(),
    native: jsonb("native").notNull(),
    updatedAt: time("updated_at").notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.platformId, t.orderId] }),
    index("trade_orders_org_placed_idx").on(t.organizationId, t.placedTime.desc(), t.platformId.desc(), t.orderId.desc()),
  ],
);

/** Per platform: the last backfill (window, progress, outcome) and the last live event applied. */
export const tradeHistorySync = pgTable("trade_history_sync", {
  platformId: uuid("platform_id")
    .primaryKey()
    .references(() => tradePlatforms.id, { onDelete: "cascade" }),
  organizationId: uuid("organization_id")
    .notNull()
    .references(() => organizations.id, { onDelete: "cascade" }),
  status: text("status", { enum: ["idle", "backfilling", "live", "failed"] })
    .notNull()
    .default("idle"),
  windowFrom: time("window_from"),
  windowTo: time("window_to"),
  accountsDone: integer("accounts_done").notNull().default(0),
  accountsTotal: integer("accounts_total").notNull().default(0),
  deals: integer("deals").notNull().default(0),
  lastError: text("last_error"),
  /** The connector's sequence of the last live trade event applied. */
  lastSequence: bigint("last_sequence", { mode: "number" }).notNull().default(0),
  startedAt: time("started_at"),
  finishedAt: time("finished_at"),
  updatedAt: time("updated_at").notNull().defaultNow(),
});
