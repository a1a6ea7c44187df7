import { sql } from "drizzle-orm";
import { index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";

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
  (t) => [index("audit_events_org_at_idx").on(t.organizationId, t.at), index("audit_events_target_idx").on(t.targetType, t.targetId)],
);
