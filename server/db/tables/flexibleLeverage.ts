import { bigint, index, integer, jsonb, pgTable, text, timestamp, unique, uuid } from "drizzle-orm/pg-core";
import type { PluginParameter } from "../../../core/trading/plugin.ts";
import { organizations } from "./organizations.ts";
import { tradePlatforms } from "./platforms.ts";

/**
 * Flexible Leverage rules kept by Toolbox for a platform whose server has no Flexible Leverage
 * plugin (docs/flexible-leverage.md "Where the engine runs"): the plugin's own parameter layout
 * (`Managers`, `Rules.1…N`, core/flexibleLeverage/parameters.ts), run by Toolbox's runner
 * (server/modules/flexibleLeverage/runner.ts). The runner's lease is on the same row: one node at a
 * time evaluates and applies the platform's rules (holder, epoch growing at every takeover, expiry
 * on the database's clock).
 */
export const flexibleLeverageRules = pgTable("flexible_leverage_rules", {
  platformId: uuid("platform_id")
    .primaryKey()
    .references(() => tradePlatforms.id, { onDelete: "cascade" }),
  organizationId: uuid("organization_id")
    .notNull()
    .references(() => organizations.id, { onDelete: "cascade" }),
  parameters: jsonb("parameters").$type<PluginParameter[]>().notNull(),
  /** When the rules last changed: positions opened before count only in rules that count existing positions. */
  rulesChangedAt: timestamp("rules_changed_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  leaseNode: text("lease_node"),
  leaseEpoch: bigint("lease_epoch", { mode: "number" }).notNull().default(0),
  leaseExpiresAt: timestamp("lease_expires_at", { withTimezone: true }),
});

/**
 * Every leverage change made by Flexible Leverage, wherever its engine ran (`source`: the server's
 * plugin, or Toolbox's runner), recorded once: `key` is unique per platform (the plugin's change:
 * its login and the server's instant; the runner's: its intent, written before the change is sent).
 * `status` is the runner's: `pending` (intent written, not yet settled), `applied`, `failed`; a
 * plugin's change is `applied` when recorded.
 */
export const leverageChanges = pgTable(
  "leverage_changes",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    platformId: uuid("platform_id")
      .notNull()
      .references(() => tradePlatforms.id, { onDelete: "cascade" }),
    login: text("login").notNull(),
    key: text("key").notNull(),
    fromLeverage: integer("from_leverage").notNull(),
    toLeverage: integer("to_leverage").notNull(),
    ruleName: text("rule_name"),
    tierIndex: integer("tier_index"),
    windowKind: text("window_kind").$type<"weekend" | "news">(),
    reason: text("reason").notNull(),
    source: text("source").$type<"plugin" | "toolbox">().notNull(),
    status: text("status").$type<"pending" | "applied" | "failed">().notNull(),
    error: text("error"),
    /** When the change was made (the server's instant for the plugin's, the decision's for the runner's). */
    changedAt: timestamp("changed_at", { withTimezone: true }).notNull(),
    recordedAt: timestamp("recorded_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    unique("leverage_changes_platform_key").on(t.platformId, t.key),
    index("leverage_changes_account_idx").on(t.platformId, t.login, t.changedAt),
    index("leverage_changes_org_idx").on(t.organizationId),
  ],
);
