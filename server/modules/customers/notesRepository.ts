/** The SQL of a customer's notes timeline (docs/customers.md, "Notes"): newest first, and a new note. */
import { and, desc, eq } from "drizzle-orm";
import { onlyRow } from "../../db/rows.ts";
import { customerNotes } from "../../db/schema.ts";
import type { DbOrTx } from "../../db/client.ts";

export type NoteRow = typeof customerNotes.$inferSelect;

/** The customer's latest `limit` notes, newest first. */
export async function noteRows(db: DbOrTx, organizationId: string, customerId: string, limit: number): Promise<NoteRow[]> {
  return db
    .select()
    .from(customerNotes)
    .where(and(eq(customerNotes.organizationId, organizationId), eq(customerNotes.customerId, customerId)))
    .orderBy(desc(customerNotes.createdAt))
    .limit(limit);
}

export async function insertNote(
  db: DbOrTx,
  note: { organizationId: string; customerId: string; authorSub: string; authorName: string | null; text: string },
): Promise<NoteRow> {
  return onlyRow(await db.insert(customerNotes).values(note).returning(), "the new note");
}
