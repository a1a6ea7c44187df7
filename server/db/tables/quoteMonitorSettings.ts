import { jsonb, pgTable, timestamp, uuid } from "drizzle-orm/pg-core";
import type { Holiday } from "../../../core/schemas/quoteHolidays.ts";
import type { SymbolMap } from "../../../core/schemas/quoteComparison.ts";
import { organizations } from "./organizations.ts";

/**
 * The Quotes Monitor's settings of an organization (docs/quotes-monitor.md): its symbol map for
 * the comparison and the cross-server rule (core/schemas/quoteComparison.ts), and its market
 * holidays (core/schemas/quoteHolidays.ts). One row per organization, written on the first change.
 */
export const quoteMonitorSettings = pgTable("quote_monitor_settings", {
  organizationId: uuid("organization_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  symbolMap: jsonb("symbol_map").$type<SymbolMap | null>(),
  holidays: jsonb("holidays").$type<Holiday[]>().notNull().default([]),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});
