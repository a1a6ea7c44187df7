import { bigint, jsonb, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import type { DealingOverride, DealingSettings } from "../../../core/dealing/schema.ts";
import { organizations } from "./organizations.ts";
import { tradePlatforms } from "./platforms.ts";

/**
 * Dealing settings of a trade platform (docs/dealing.md): its execution profiles, weekly schedule
 * and holidays (core/dealing/schema.ts), and the manual override in force, if any. One row per
 * platform, written on the first change; a platform without a row has the default settings.
 */
export const dealingSettings = pgTable("dealing_settings", {
  platformId: uuid("platform_id")
    .primaryKey()
    .references(() => tradePlatforms.id, { onDelete: "cascade" }),
  organizationId: uuid("organization_id")
    .notNull()
    .references(() => organizations.id, { onDelete: "cascade" }),
  settings: jsonb("settings").$type<DealingSettings>().notNull(),
  override: jsonb("override").$type<DealingOverride | null>(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Every switch of a platform's active profile, recorded once across nodes: the primary key
 * (platform, instant of the switch) lets one node's insert win; only that node audits it and
 * sends the notification.
 */
export const dealingSwitches = pgTable(
  "dealing_switches",
  {
    platformId: uuid("platform_id")
      .notNull()
      .references(() => tradePlatforms.id, { onDelete: "cascade" }),
    /** Epoch ms of the switch (the schedule's instant, or the override's start or end). */
    at: bigint("at", { mode: "number" }).notNull(),
    profile: text("profile").notNull(),
    reason: text("reason").notNull(),
    recordedAt: timestamp("recorded_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.platformId, t.at] })],
);
