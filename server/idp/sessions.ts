import { and, eq, inArray, or, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "../db/client.ts";
import { auditEvents, idpRecords, memberships } from "../db/schema.ts";

/**
 * Ends every sign-in of a person at the embedded provider (after their password changed or was
 * reset; docs/security.md "Password change and reset"): their provider sessions (the browser's
 * cookie no longer signs them in), every grant with its refresh tokens and codes, and sign-in
 * pages still waiting on a step of theirs (a confirmation code, a second factor). Each grant is
 * recorded as revoked first, so the API refuses its access tokens at once, on every node, as at
 * sign-out. Returns how many grants ended.
 */
export async function endAllSessions(db: Db, accountId: string, revocations?: { revoke(grantId: string): Promise<void> }): Promise<number> {
  const ofAccount = sql`${idpRecords.payload}->>'accountId' = ${accountId}`;
  const grants = await db
    .select({ id: idpRecords.id })
    .from(idpRecords)
    .where(and(eq(idpRecords.model, "Grant"), ofAccount));
  const grantIds = grants.map((g) => g.id);
  for (const grantId of grantIds) await revocations?.revoke(grantId);
  await db.delete(idpRecords).where(
    or(
      and(inArray(idpRecords.model, ["Session", "Grant"]), ofAccount),
      grantIds.length > 0 ? inArray(idpRecords.grantId, grantIds) : undefined,
      // An interaction that remembers this person (a password accepted, waiting for another step)
      // names their account id somewhere in its record; ids are random UUIDs.
      and(eq(idpRecords.model, "Interaction"), sql`strpos(${idpRecords.payload}::text, ${accountId}) > 0`),
    ),
  );
  return grantIds.length;
}

/**
 * A change to the person's own sign-in, in the audit log of every organization they are a member
 * of (like sign-ins: docs/logs.md), in the caller's transaction.
 */
export async function recordPersonEvent(
  tx: DbOrTx,
  person: { id: string; name: string; email: string },
  action: "person.passwordChanged" | "person.passwordReset",
  sourceIp: string | null,
): Promise<void> {
  const organizations = await tx.select({ id: memberships.organizationId }).from(memberships).where(eq(memberships.userSub, person.id));
  if (organizations.length === 0) return;
  await tx.insert(auditEvents).values(
    organizations.map(({ id }) => ({
      organizationId: id,
      actorSub: person.id,
      actorName: person.name,
      action,
      targetType: "person",
      targetId: person.id,
      after: { email: person.email },
      sourceIp,
    })),
  );
}
