import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text, timestamp, uuid, type AnyPgColumn } from "drizzle-orm/pg-core";
import { organizations } from "./organizations.ts";

/**
 * The audit log's free text (`q`): action, actor, target, source address, before and after as one
 * text, fields separated by a line break (which a search never holds, so a match never spans two
 * fields). The list's search and the trigram index below use this very expression, so PostgreSQL
 * (and PGlite, with pg_trgm loaded) answers `ILIKE '%…%'` from the index (decision 0054).
 */
export function auditSearchText(t: {
  action: AnyPgColumn;
  actorName: AnyPgColumn;
  targetType: AnyPgColumn;
  targetId: AnyPgColumn;
  sourceIp: AnyPgColumn;
  before: AnyPgColumn;
  after: AnyPgColumn;
}) {
  const nl = sql.raw("chr(10)");
  return sql`(${t.action} || ${nl} || coalesce(${t.actorName}, '') || ${nl} || ${t.targetType} || ${nl} || ${t.targetId} || ${nl} || coalesce(${t.sourceIp}, '') || ${nl} || coalesce(${t.before}::text, '') || ${nl} || coalesce(${t.after}::text, ''))`;
}

/**
 * Who did what in Toolbox: one row per change, written in the same transaction as the change
 * (server/modules/audit/record.ts). Read by the /logs screen.
 */
export const auditEvents = pgTable(
  "audit_events",
  {
    id: uuid("id")
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    organizationId: uuid("organization_id").notNull(),
    actorSub: text("actor_sub").notNull(),
    actorName: text("actor_name"),
    /** Dotted verb, e.g. `tradePlatform.created`, `account.balance.deposit`. */
    action: text("action").notNull(),
    targetType: text("target_type").notNull(),
    targetId: text("target_id").notNull(),
    before: jsonb("before"),
    after: jsonb("after"),
    sourceIp: text("source_ip"),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("audit_events_org_at_idx").on(t.organizationId, t.at),
    index("audit_events_target_idx").on(t.targetType, t.targetId),
    // The retention sweep deletes by time across organizations.
    index("audit_events_at_idx").on(t.at),
    index("audit_events_search_trgm_idx").using("gin", sql`${auditSearchText(t)} gin_trgm_ops`),
  ],
);

/** Default audit retention when an organization has not chosen one (docs/logs.md). */
export const DEFAULT_AUDIT_RETENTION_DAYS = 365;

/**
 * Per organization: how long its audit records are kept. The server journals are the platforms'
 * own and are not stored by Toolbox, so they have no retention here.
 */
export const logSettings = pgTable("log_settings", {
  organizationId: uuid("organization_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  auditRetentionDays: integer("audit_retention_days").notNull().default(DEFAULT_AUDIT_RETENTION_DAYS),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});
