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
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "copy_followers_pk", columns: [t.linkId, t.platformId, t.login] }),
    index("copy_followers_account_idx").on(t.platformId, t.login),
    index("copy_followers_org_idx").on(t.organizationId),
  ],
);
