/**
 * The SQL of the audit log's writes: rows of `audit_events` (./record.ts and ./signIns.ts say when
 * and with what), and the lookups a sign-in's record needs.
 */
import { eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { auditEvents, idpAccounts, memberships } from "../../db/schema.ts";
import type { DbOrTx } from "../../db/client.ts";

export async function insertAuditEvent(db: DbOrTx, values: typeof auditEvents.$inferInsert): Promise<void> {
  await db.insert(auditEvents).values(values);
}

export async function insertAuditEvents(db: DbOrTx, values: (typeof auditEvents.$inferInsert)[]): Promise<void> {
  await db.insert(auditEvents).values(values);
}

/** The person an e-mail belongs to, for a failed sign-in (verifyCredentials does not say). */
export async function accountIdOfEmail(db: Db, email: string): Promise<{ id: string; name: string } | undefined> {
  const [row] = await db
    .select({ id: idpAccounts.id, name: idpAccounts.name })
    .from(idpAccounts)
    .where(eq(sql`lower(${idpAccounts.email})`, email.trim().toLowerCase()))
    .limit(1);
  return row;
}

/** The ids of the organizations a person is a member of now. */
export async function organizationsOfPerson(db: Db, userSub: string): Promise<string[]> {
  const rows = await db.select({ id: memberships.organizationId }).from(memberships).where(eq(memberships.userSub, userSub));
  return rows.map((r) => r.id);
}
