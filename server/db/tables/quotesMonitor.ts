import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns.ts";
import { organizations } from "./organizations.ts";

/**
 * The Quotes Monitor's alert rules, per organization (core/schemas/quotesMonitor.ts,
 * docs/quotes-monitor.md): a kind (staleFeed, spread, crossServer), its thresholds in `settings`,
 * the platforms (null: all) and symbols (a mask) it watches, a severity and a cool-down.
 */
export const quoteAlertRules = pgTable(
  "quote_alert_rules",
  {
    id: uuid("id")
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    kind: text("kind", { enum: ["staleFeed", "spread", "crossServer"] }).notNull(),
    enabled: boolean("enabled").notNull().default(true),
    /** Platform ids; null: every platform of the monitor. */
    platformIds: jsonb("platform_ids").$type<string[] | null>(),
    symbolMask: text("symbol_mask").notNull().default("*"),
    severity: text("severity").notNull(),
    cooldownSeconds: integer("cooldown_seconds").notNull(),
    /** The kind's thresholds: staleSeconds; spreadPoints and spreadTimesAverage; differencePoints. */
    settings: jsonb("settings").$type<Record<string, number | null>>().notNull(),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("quote_alert_rules_org_idx").on(t.organizationId), uniqueIndex("quote_alert_rules_org_name_idx").on(t.organizationId, t.name)],
);
