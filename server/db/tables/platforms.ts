import { TRADE_PLATFORM_TYPES } from "../../../core/trading/platform.ts";
import { PLATFORM_APPS, type ConnectionKind, type PlatformApp, type StoredConnection } from "../../../core/schemas/platform.ts";
import { sql } from "drizzle-orm";
import { boolean, index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { organizations } from "./organizations.ts";

export const TRADE_PLATFORM_TYPE_VALUES = TRADE_PLATFORM_TYPES;
export const PLATFORM_APP_VALUES = PLATFORM_APPS;
/**
 * `connection`: how Toolbox reaches a platform, without its secret (core/schemas/platform.ts,
 * StoredConnectionSchema): the manager password or API key lives only in `secret_ciphertext`,
 * encrypted (server/secrets/cipher.ts, the platform id as associated data). Validated where it
 * enters (the API); the runtime reads it back as is.
 */
export type { ConnectionKind, PlatformApp, StoredConnection };

/** A connected trading server (MT4, MT5, Match-Trader; real or simulated) of one organization. */
export const tradePlatforms = pgTable(
  "trade_platforms",
  {
    id: uuid("id")
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    type: text("type", { enum: TRADE_PLATFORM_TYPE_VALUES }).notNull(),
    name: text("name").notNull(),
    enable: boolean("enable").notNull().default(true),
    /** IANA name of the server's time zone (MetaTrader servers usually run on broker time). */
    timeZone: text("time_zone").notNull().default("UTC"),
    connection: jsonb("connection")
      .$type<StoredConnection>()
      .notNull()
      .default(sql`'{"kind":"simulated","accounts":300,"tradeRate":3,"seed":1}'::jsonb`),
    /** `v1:<iv>:<tag>:<data>` (AES-256-GCM) of the password or API key; null when the connection has none. */
    secretCiphertext: text("secret_ciphertext"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("trade_platforms_org_idx").on(t.organizationId), uniqueIndex("trade_platforms_org_name_idx").on(t.organizationId, t.name)],
);

/** Which applications (Trades Blotter, Trades Copier, Quotes Monitor) work on which platform. */
export const tradePlatformApps = pgTable(
  "trade_platform_apps",
  {
    platformId: uuid("platform_id")
      .notNull()
      .references(() => tradePlatforms.id, { onDelete: "cascade" }),
    app: text("app", { enum: PLATFORM_APP_VALUES }).notNull(),
    enabled: boolean("enabled").notNull().default(true),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.platformId, t.app] })],
);
