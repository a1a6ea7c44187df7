/**
 * The members area's SQL (docs/architecture.md "Where SQL lives"): members and their claims,
 * invitations, and the outbox of messages kept when no SMTP_URL is set. The services
 * (./service.ts, ./invitations.ts) call these inside their transactions.
 */
import { and, asc, eq, gt, isNull, sql } from "drizzle-orm";
import { ADMIN_CLAIM, type Claim } from "../../../core/access.ts";
import type { Db, DbOrTx } from "../../db/client.ts";
import { invitations, mailOutbox, memberClaims, memberships, organizations, users } from "../../db/schema.ts";

export interface Member {
  sub: string;
  email: string | null;
  name: string | null;
  joinedAt: Date;
  lastSignInAt: Date | null;
  claims: Claim[];
}

/** Members of one organization with their claims there: one query, grouped here. */
export async function listMembers(db: DbOrTx, organizationId: string, sub?: string): Promise<Member[]> {
  const rows = await db
    .select({
      sub: memberships.userSub,
      email: users.email,
      name: users.name,
      joinedAt: memberships.createdAt,
      lastSignInAt: users.lastSignInAt,
      type: memberClaims.type,
      value: memberClaims.value,
    })
    .from(memberships)
    .innerJoin(users, eq(users.sub, memberships.userSub))
    .leftJoin(memberClaims, and(eq(memberClaims.organizationId, memberships.organizationId), eq(memberClaims.userSub, memberships.userSub)))
    .where(and(eq(memberships.organizationId, organizationId), sub === undefined ? undefined : eq(memberships.userSub, sub)))
    .orderBy(asc(memberships.createdAt), asc(memberships.userSub), asc(memberClaims.type));

  const bySub = new Map<string, Member>();
  for (const r of rows) {
    let member = bySub.get(r.sub);
    if (!member) {
      member = { sub: r.sub, email: r.email, name: r.name, joinedAt: r.joinedAt, lastSignInAt: r.lastSignInAt, claims: [] };
      bySub.set(r.sub, member);
    }
    if (r.type !== null && r.value !== null) member.claims.push({ type: r.type, value: r.value });
  }
  return [...bySub.values()];
}

/** Locks the organization's row: member and invitation changes of one organization go one at a time (the last-administrator rule). */
export async function lockOrganization(tx: DbOrTx, organizationId: string): Promise<{ id: string; name: string } | undefined> {
  const [row] = await tx
    .select({ id: organizations.id, name: organizations.name })
    .from(organizations)
    .where(eq(organizations.id, organizationId))
    .for("update");
  return row;
}

/** Replaces a member's claims in one organization. */
export async function replaceClaims(tx: DbOrTx, organizationId: string, sub: string, claims: Claim[]): Promise<void> {
  await tx.delete(memberClaims).where(and(eq(memberClaims.organizationId, organizationId), eq(memberClaims.userSub, sub)));
  if (claims.length > 0) await tx.insert(memberClaims).values(claims.map((c) => ({ organizationId, userSub: sub, type: c.type, value: c.value })));
}

/** How many administrators the organization has (the last-administrator rule). */
export async function countAdmins(tx: DbOrTx, organizationId: string): Promise<number> {
  const [row] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(memberClaims)
    .where(and(eq(memberClaims.organizationId, organizationId), eq(memberClaims.type, ADMIN_CLAIM), eq(memberClaims.value, organizationId)));
  return row?.n ?? 0;
}

/** Every organization the person is a member of, with its name. */
export async function organizationsOfPerson(tx: DbOrTx, sub: string): Promise<{ id: string; name: string }[]> {
  return tx
    .select({ id: memberships.organizationId, name: organizations.name })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
    .where(eq(memberships.userSub, sub));
}

export async function insertMembership(tx: DbOrTx, organizationId: string, sub: string): Promise<void> {
  await tx.insert(memberships).values({ organizationId, userSub: sub });
}

export async function deleteMembership(tx: DbOrTx, organizationId: string, sub: string): Promise<void> {
  await tx.delete(memberships).where(and(eq(memberships.organizationId, organizationId), eq(memberships.userSub, sub)));
}

export async function isMemberByEmail(tx: DbOrTx, organizationId: string, email: string): Promise<boolean> {
  const rows = await tx
    .select({ sub: memberships.userSub })
    .from(memberships)
    .innerJoin(users, eq(users.sub, memberships.userSub))
    .where(and(eq(memberships.organizationId, organizationId), eq(sql`lower(${users.email})`, email)))
    .limit(1);
  return rows.length > 0;
}

export type InvitationRow = typeof invitations.$inferSelect;

const open = and(isNull(invitations.acceptedAt), isNull(invitations.revokedAt));

/** Invitations not yet accepted nor revoked (expired ones included: they can be resent). */
export async function listOpenInvitations(db: DbOrTx, organizationId: string): Promise<InvitationRow[]> {
  return db
    .select()
    .from(invitations)
    .where(and(eq(invitations.organizationId, organizationId), open))
    .orderBy(asc(invitations.createdAt));
}

export async function findOpenInvitation(tx: DbOrTx, organizationId: string, id: string): Promise<InvitationRow | undefined> {
  const [row] = await tx
    .select()
    .from(invitations)
    .where(and(eq(invitations.organizationId, organizationId), eq(invitations.id, id), open));
  return row;
}

export async function findOpenInvitationByEmail(tx: DbOrTx, organizationId: string, email: string): Promise<InvitationRow | undefined> {
  const [row] = await tx
    .select()
    .from(invitations)
    .where(and(eq(invitations.organizationId, organizationId), eq(invitations.email, email), open));
  return row;
}

export async function insertInvitation(tx: DbOrTx, values: typeof invitations.$inferInsert): Promise<InvitationRow> {
  const [row] = await tx.insert(invitations).values(values).returning();
  return row!;
}

/** A new link for the invitation, valid until `expiresAt`, counted as sent once more. */
export async function renewInvitation(tx: DbOrTx, id: string, tokenHash: string, expiresAt: Date): Promise<InvitationRow> {
  const [row] = await tx
    .update(invitations)
    .set({ tokenHash, sentAt: new Date(), sendCount: sql`${invitations.sendCount} + 1`, expiresAt })
    .where(eq(invitations.id, id))
    .returning();
  return row!;
}

/** Revokes the invitation if it is still open; undefined when it was not. */
export async function revokeOpenInvitation(tx: DbOrTx, organizationId: string, id: string): Promise<InvitationRow | undefined> {
  const [row] = await tx
    .update(invitations)
    .set({ revokedAt: new Date() })
    .where(and(eq(invitations.organizationId, organizationId), eq(invitations.id, id), open))
    .returning();
  return row;
}

export async function findInvitation(tx: DbOrTx, id: string): Promise<InvitationRow | undefined> {
  const [row] = await tx.select().from(invitations).where(eq(invitations.id, id));
  return row;
}

export async function markInvitationAccepted(tx: DbOrTx, id: string, sub: string): Promise<void> {
  await tx.update(invitations).set({ acceptedAt: new Date(), acceptedBy: sub }).where(eq(invitations.id, id));
}

export async function findInvitationByTokenHash(db: DbOrTx, tokenHash: string): Promise<InvitationRow | undefined> {
  const [row] = await db.select().from(invitations).where(eq(invitations.tokenHash, tokenHash));
  return row;
}

/** Is there an invitation to this e-mail address, anywhere, still to be accepted (and not expired)? */
export async function hasPendingInvitation(db: Db, email: string): Promise<boolean> {
  const rows = await db
    .select({ id: invitations.id })
    .from(invitations)
    .where(and(eq(invitations.email, email.trim().toLowerCase()), open, gt(invitations.expiresAt, sql`now()`)))
    .limit(1);
  return rows.length > 0;
}

export type OutboxRow = typeof mailOutbox.$inferSelect;

/** Keeps a message in the organization's outbox; `body` is already encrypted. */
export async function insertOutboxMessage(
  tx: DbOrTx,
  message: { id: string; organizationId: string; recipient: string; subject: string; body: string },
): Promise<void> {
  await tx.insert(mailOutbox).values(message);
}

export async function listOutbox(db: Db, organizationId: string, limit: number): Promise<OutboxRow[]> {
  return db
    .select()
    .from(mailOutbox)
    .where(eq(mailOutbox.organizationId, organizationId))
    .orderBy(sql`${mailOutbox.createdAt} desc`)
    .limit(limit);
}

/** The person started the app signed in (the preflight): their "last sign-in" on the members list. */
export async function recordSignIn(db: Db, sub: string): Promise<void> {
  await db
    .update(users)
    .set({ lastSignInAt: sql`now()` })
    .where(eq(users.sub, sub));
}
