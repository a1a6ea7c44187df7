import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import type { FollowerSettings } from "../../../core/schemas/copier.ts";
import { createdAt } from "./columns.ts";
import { organizations } from "./organizations.ts";
import { tradePlatforms } from "./platforms.ts";

/**
 * The Trades Copier's copy links (core/schemas/copier.ts, docs/trades-copier.md): a source account
 * of one of the organization's platforms, copied to the followers below. `version` is optimistic
 * concurrency: every change adds one, a PUT names the version it read (If-Match).
 */
export const copyLinks = pgTable(
  "copy_links",
  {
    id: uuid("id")
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    enabled: boolean("enabled").notNull().default(true),
    sourcePlatformId: uuid("source_platform_id")
      .notNull()
      .references(() => tradePlatforms.id, { onDelete: "cascade" }),
    sourceLogin: text("source_login").notNull(),
    version: integer("version").notNull().default(1),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("copy_links_org_idx").on(t.organizationId), index("copy_links_source_idx").on(t.sourcePlatformId, t.sourceLogin)],
);

/**
 * One follower of a link: its account as columns (the engine finds a follower's links by them,
 * and keeps per-follower state beside them later) and its settings as the contract's jsonb, in the
 * order the link lists them (`position`).
 */
export const copyFollowers = pgTable(
  "copy_followers",
  {
    linkId: uuid("link_id")
      .notNull()
      .references(() => copyLinks.id, { onDelete: "cascade" }),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    platformId: uuid("platform_id")
      .notNull()
      .references(() => tradePlatforms.id, { onDelete: "cascade" }),
    login: text("login").notNull(),
    position: integer("position").notNull(),
    enabled: boolean("enabled").notNull().default(true),
    /** FollowerSettingsSchema's output; `account` and `enabled` are also the columns above. */
    settings: jsonb("settings").$type<FollowerSettings>().notNull(),
    /**
     * Suspended by a risk stop (engine/riskStops.ts, core/copier/risk.ts): when it tripped, which
     * stop (`equityFloor`, `dailyLossLimit`), its action (`suspend`, `closeAndSuspend`), why in
     * words (the figures), and when it lifts by itself (the daily limit: the organization's next
     * day; null: only a member resumes it). Not part of the settings: an edit keeps it.
     */
    suspendedAt: timestamp("suspended_at", { withTimezone: true }),
    suspendedStop: text("suspended_stop").$type<"equityFloor" | "dailyLossLimit">(),
    suspendedAction: text("suspended_action").$type<"suspend" | "closeAndSuspend">(),
    suspendedReason: text("suspended_reason"),
    suspendedUntil: timestamp("suspended_until", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "copy_followers_pk", columns: [t.linkId, t.platformId, t.login] }),
    index("copy_followers_account_idx").on(t.platformId, t.login),
    index("copy_followers_org_idx").on(t.organizationId),
  ],
);

/**
 * The copier's ledger (docs/trades-copier.md "The engine"): one row per follower action, written
 * before anything is sent, keyed by the action's request id (core/copier/requestId.ts: link,
 * follower, source position or order, action), so a retry after a crash, a restart or a node's
 * death finds the row and sends the same id again (the connector's exactly-once answers with the
 * first result). The engine writes it; the status page reads it.
 *
 *  - state: `pending` (decided and recorded, not yet sent, or being sent under `lease_until`),
 *    `done` (acknowledged by the follower's platform), `failed` (refused: `reason` keeps the
 *    platform's words), `skipped` (the rules skipped it: `reason` is a SKIP_REASONS code).
 *  - times, for the latency of each stage: the source event's time on its server
 *    (`source_time`), when the engine received it (`received_at`), decided (`decided_at`), sent it
 *    (`sent_at`) and had the platform's answer (`acked_at`).
 */
export const copyLedger = pgTable(
  "copy_ledger",
  {
    requestId: text("request_id").primaryKey(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    linkId: uuid("link_id")
      .notNull()
      .references(() => copyLinks.id, { onDelete: "cascade" }),
    followerPlatformId: uuid("follower_platform_id")
      .notNull()
      .references(() => tradePlatforms.id, { onDelete: "cascade" }),
    followerLogin: text("follower_login").notNull(),
    /** `position:<id>` or `order:<id>` on the source (core/copier/requestId.ts sourceIdOf). */
    sourceId: text("source_id").notNull(),
    /** The source action's type (core/copier/types.ts SourceActionType). */
    sourceAction: text("source_action").notNull(),
    /** The follower action's type (FollowerAction["type"]); null when skipped. */
    followerAction: text("follower_action"),
    state: text("state").$type<"pending" | "done" | "failed" | "skipped">().notNull(),
    reason: text("reason"),
    symbol: text("symbol"),
    /** Follower volume in lots, as sent. */
    volume: text("volume"),
    /**
     * The source position's (or order's) volume this action was decided for: at an open, a fill
     * or a resync open, what the source held then (with `volume`, the copy's share of the source:
     * catch-up and resync resize a copy to it); at a partial close, what the source kept.
     */
    sourceVolume: integer("source_volume"),
    /** The follower's position or order the action made or acted on, once known. */
    followerPositionId: text("follower_position_id"),
    /** The whole FollowerAction as decided, so a retry sends exactly what was recorded. */
    action: jsonb("action"),
    attempts: integer("attempts").notNull().default(0),
    leaseHolder: text("lease_holder"),
    leaseUntil: timestamp("lease_until", { withTimezone: true }),
    sourceTime: timestamp("source_time", { withTimezone: true }).notNull(),
    receivedAt: timestamp("received_at", { withTimezone: true }).notNull(),
    decidedAt: timestamp("decided_at", { withTimezone: true }).notNull(),
    sentAt: timestamp("sent_at", { withTimezone: true }),
    ackedAt: timestamp("acked_at", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("copy_ledger_link_idx").on(t.organizationId, t.linkId, t.createdAt),
    // The status page's "today" and "last 24 hours" filter one organization's rows by decision time.
    index("copy_ledger_decided_idx").on(t.organizationId, t.decidedAt),
    index("copy_ledger_follower_idx").on(t.followerPlatformId, t.followerLogin, t.sourceId),
    index("copy_ledger_open_idx")
      .on(t.state)
      .where(sql`state = 'pending'`),
  ],
);

/**
 * Differences between a source and a follower the engine has published (`copierDivergence`), one
 * row per copy that went missing (the copy's open request id: a copy the resync made again, then
 * closed by hand again, is a new divergence): the notice goes out once per divergence, not on
 * every later signal of that position, on whichever node sees it.
 */
export const copyDivergenceNotices = pgTable(
  "copy_divergence_notices",
  {
    linkId: uuid("link_id")
      .notNull()
      .references(() => copyLinks.id, { onDelete: "cascade" }),
    followerPlatformId: uuid("follower_platform_id").notNull(),
    followerLogin: text("follower_login").notNull(),
    /** The open request id of the copy that went missing. */
    copyRequestId: text("copy_request_id").notNull(),
    sourceId: text("source_id").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ name: "copy_divergence_notices_pk", columns: [t.linkId, t.followerPlatformId, t.followerLogin, t.copyRequestId] })],
);

/**
 * Which node works each copy link (the copier engine, docs/trades-copier.md "The engine"): the
 * node that holds the lease until `expires_at` (the database's clock). `epoch` grows at every
 * takeover; a released lease keeps its row with an expiry in the past. As platform_feed_leases,
 * for links (server/modules/tradesCopier/engine/linkLeaseRepository.ts).
 */
export const copyLinkLeases = pgTable("copy_link_leases", {
  linkId: uuid("link_id")
    .primaryKey()
    .references(() => copyLinks.id, { onDelete: "cascade" }),
  nodeId: text("node_id").notNull(),
  epoch: integer("epoch").notNull(),
  expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  acquiredAt: timestamp("acquired_at", { withTimezone: true }).notNull().defaultNow(),
});
