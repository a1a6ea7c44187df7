/**
 * A customer's notes timeline (docs/customers.md, "Notes"): the latest 500, newest first, and
 * adding one with its author, audited in the same transaction.
 */
import type { CustomerNote } from "../../../core/schemas/customers.ts";
import type { Db } from "../../db/client.ts";
import { recordAudit, type Actor } from "../audit/record.ts";
import { loadCustomer } from "./customerViews.ts";
import { insertNote, noteRows, type NoteRow } from "./notesRepository.ts";

const LATEST_NOTES = 500;

const noteView = (n: NoteRow): CustomerNote => ({
  id: n.id,
  authorSub: n.authorSub,
  authorName: n.authorName,
  text: n.text,
  createdAt: n.createdAt.toISOString(),
});

export async function listNotes(db: Db, organizationId: string, customerId: string): Promise<CustomerNote[]> {
  await loadCustomer(db, organizationId, customerId);
  return (await noteRows(db, organizationId, customerId, LATEST_NOTES)).map(noteView);
}

export async function addNote(db: Db, actor: Actor, customerId: string, text: string): Promise<CustomerNote> {
  return db.transaction(async (tx) => {
    await loadCustomer(tx, actor.organizationId, customerId);
    const note = await insertNote(tx, { organizationId: actor.organizationId, customerId, authorSub: actor.sub, authorName: actor.name, text });
    await recordAudit(tx, actor, { action: "customer.noteAdded", targetType: "customer", targetId: customerId, after: { noteId: note.id, text } });
    return noteView(note);
  });
}
