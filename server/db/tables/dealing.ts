import { bigint, jsonb, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import type { DealingOriginals } from "../../../core/dealing/serverWrite.ts";
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

/**
 * What Toolbox last wrote of a profile to a real (non-simulated) server (docs/dealing.md "Real
 * servers"), one row per platform. A node claims a write by moving `profileHash` to the profile in
 * force (a conditional update: one node wins); `originals` are each changed symbol's own values,
 * kept before anything is written, so the profile without markups or limits writes them back.
 */
export const dealingServerWrites = pgTable("dealing_server_writes", {
  platformId: uuid("platform_id")
    .primaryKey()
    .references(() => tradePlatforms.id, { onDelete: "cascade" }),
  organizationId: uuid("organization_id")
    .notNull()
    .references(() => organizations.id, { onDelete: "cascade" }),
  profile: text("profile").notNull(),
  /** configVersion of the profile written (its content: a profile edited while in force is written again). */
  profileHash: text("profile_hash").notNull(),
  status: text("status", { enum: ["writing", "applied", "refused", "failed"] }).notNull(),
  /** Epoch ms at which the write was claimed (a claim left `writing` for two minutes is taken over). */
  claimedAt: bigint("claimed_at", { mode: "number" }).notNull(),
  result: jsonb("result").$type<Record<string, unknown> | null>(),
  originals: jsonb("originals").$type<DealingOriginals>().notNull().default({}),
});
