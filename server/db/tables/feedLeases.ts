import { bigint, index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { tradePlatforms } from "./platforms.ts";

/**
 * Which node publishes each platform's trade feed on the event bus (server/events/feedLeases.ts):
 * the node that holds the lease until `expires_at` (the database's clock). `epoch` grows at every
 * takeover and is never reset while the platform exists (it is part of the NATS message ids of the
 * feed's events), so a released lease keeps its row with `expires_at` in the past.
 */
export const platformFeedLeases = pgTable(
  "platform_feed_leases",
  {
    platformId: uuid("platform_id")
      .primaryKey()
      .references(() => tradePlatforms.id, { onDelete: "cascade" }),
    nodeId: text("node_id").notNull(),
    epoch: bigint("epoch", { mode: "number" }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    acquiredAt: timestamp("acquired_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("platform_feed_leases_node_idx").on(t.nodeId)],
);
