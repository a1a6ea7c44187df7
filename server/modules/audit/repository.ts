/** The SQL of the audit log's writes: one row of `audit_events` (./record.ts says when and with what). */
import { auditEvents } from "../../db/schema.ts";
import type { DbOrTx } from "./record.ts";

export async function insertAuditEvent(db: DbOrTx, values: typeof auditEvents.$inferInsert): Promise<void> {
  await db.insert(auditEvents).values(values);
}
