import { index, jsonb, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { tradePlatforms } from "./platforms.ts";

/**
 * What a connector wrote down before sending an order to a platform whose vendor carries no
 * request id for orders (Match-Trader: server/connectors/matchTraderApi/orderJournal.ts): kept
 * here so a Toolbox that restarted recognises an order its previous process sent. `intent` is the
 * connector's record as it wrote it; `position_id` the position an open made (or the order a
 * pending-order place made), once known.
 */
export const connectorOrderJournal = pgTable(
  "connector_order_journal",
  {
    platformId: uuid("platform_id")
      .notNull()
      .references(() => tradePlatforms.id, { onDelete: "cascade" }),
    requestId: text("request_id").notNull(),
    positionId: text("position_id"),
    intent: jsonb("intent").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.platformId, t.requestId] }), index("connector_order_journal_position_idx").on(t.platformId, t.positionId)],
);
