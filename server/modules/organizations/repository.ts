import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { recordAudit, type Actor } from "../audit/record.ts";
import type { Db, DbOrTx } from "../../db/client.ts";
import { onlyRow } from "../../db/rows.ts";
import { memberClaims, memberships, organizations, organizationSecurity, users } from "../../db/schema.ts";
import { ADMIN_CLAIM, type Claim } from "../../../core/access.ts";
import { NO_POLICY, type SecurityPolicy } from "../../../core/securityPolicy.ts";
import { lockForQuota, requireOrganizationQuota, type Quotas } from "../../quotas.ts";

export interface OrganizationRow {
  id: string;
  name: string;
  /** The default time zone its members' screens follow unless they chose their own. */
  timeZone: string;
  createdAt: Date;
}

export interface UserRow {
  sub: string;
  email: string | null;
  name: string | null;
  provisionedAt: Date | null;
}

/**
 * Make sure the person exists locally (the identity provider owns them; we mirror sub, email, name).
 * A token without email or name (many external providers) keeps what we already know.
 */
export async function upsertUser(db: Db, user: { sub: string; email?: string | null; name?: string | null }): Promise<UserRow> {
  const rows = await db
    .insert(users)
    .values({ sub: user.sub, email: user.email ?? null, name: user.name ?? null })
    .onConflictDoUpdate({
      target: users.sub,
      set: {
        email: sql`coalesce(excluded.email, ${users.email})`,
        name: sql`coalesce(excluded.name, ${users.name})`,
      },
    })
    .returning({ sub: users.sub, email: users.email, name: users.name, provisionedAt: users.provisionedAt });
  return onlyRow(rows, "the upserted user");
}

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/** The inserts behind a new organization; the caller provides the transaction. */
async function insertOrganizationWithAdmin(tx: Tx, input: { name: string; adminSub: string }): Promise<OrganizationRow> {
  const org = onlyRow(
    await tx
      .insert(organizations)
      .values({ name: input.name, createdBy: input.adminSub })
      .returning({ id: organizations.id, name: organizations.name, timeZone: organizations.timeZone, createdAt: organizations.createdAt }),
    "the new organization",
  );
  await tx.insert(memberships).values({ organizationId: org.id, userSub: input.adminSub });
  await tx.insert(memberClaims).values({ organizationId: org.id, userSub: input.adminSub, type: ADMIN_CLAIM, value: org.id });
  return org;
}

/**
 * A new organization with `adminSub` as its administrator (claim `organization:admin` = its id),
 * in one transaction. With `quotas`, refused (422) once the person has created as many as
 * allowed — counted under a lock on the person's row, so concurrent requests cannot both pass.
 */
/**
 * A new organization with `adminSub` as its administrator. With `auditAs` (a person creating it
 * through the API), its audit log starts with `organization.created`, in the same transaction.
 */
export async function createOrganizationWithAdmin(
  db: Db,
  input: { name: string; adminSub: string },
  quotas?: Quotas,
  auditAs?: Omit<Actor, "organizationId">,
): Promise<OrganizationRow> {
  return db.transaction(async (tx) => {
    if (quotas) {
      await lockForQuota(tx, { userSub: input.adminSub });
      requireOrganizationQuota(quotas, await countOrganizationsCreatedBy(tx, input.adminSub));
    }
    const organization = await insertOrganizationWithAdmin(tx, input);
    if (auditAs)
      await recordAudit(
        tx,
        { ...auditAs, organizationId: organization.id },
        { action: "organization.created", targetType: "organization", targetId: organization.id, after: { name: organization.name } },
      );
    return organization;
  });
}

async function countOrganizationsCreatedBy(tx: Tx, sub: string): Promise<number> {
  const [row] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(organizations)
    .where(eq(organizations.createdBy, sub));
  return row?.n ?? 0;
}

/**
 * First sign-in of a new person: an empty organization with them as administrator, exactly once.
 * The conditional update of `provisioned_at` is the lock: of concurrent calls only the first
 * finds it null (the others wait on the row, then see it set) — on PostgreSQL and PGlite alike.
 * Someone already a member somewhere (invited before signing in) gets no organization of their own.
 * Returns the new organization, or null when there was nothing to do.
 */
export async function provisionFirstOrganization(db: Db, sub: string, organizationName: string): Promise<OrganizationRow | null> {
  return db.transaction(async (tx) => {
    const claimed = await tx
      .update(users)
      .set({ provisionedAt: sql`now()` })
      .where(and(eq(users.sub, sub), isNull(users.provisionedAt)))
      .returning({ sub: users.sub });
    if (claimed.length === 0) return null;
    const [member] = await tx.select({ sub: memberships.userSub }).from(memberships).where(eq(memberships.userSub, sub)).limit(1);
    if (member) return null;
    return insertOrganizationWithAdmin(tx, { name: organizationName, adminSub: sub });
  });
}

export async function listOrganizationsOf(db: Db, sub: string): Promise<OrganizationRow[]> {
  return db
    .select({ id: organizations.id, name: organizations.name, timeZone: organizations.timeZone, createdAt: organizations.createdAt })
    .from(organizations)
    .innerJoin(memberships, eq(memberships.organizationId, organizations.id))
    .where(eq(memberships.userSub, sub))
    .orderBy(asc(organizations.createdAt), asc(organizations.name));
}

/** The caller's organizations and whether they administer each, in one query. */
export async function listOrganizationsWithRoleOf(db: Db, sub: string): Promise<(OrganizationRow & { isAdmin: boolean })[]> {
  return db
    .select({
      id: organizations.id,
      name: organizations.name,
      timeZone: organizations.timeZone,
      createdAt: organizations.createdAt,
      isAdmin: sql<boolean>`${memberClaims.userSub} is not null`,
    })
    .from(organizations)
    .innerJoin(memberships, eq(memberships.organizationId, organizations.id))
    .leftJoin(
      memberClaims,
      and(
        eq(memberClaims.organizationId, memberships.organizationId),
        eq(memberClaims.userSub, memberships.userSub),
        eq(memberClaims.type, ADMIN_CLAIM),
        eq(memberClaims.value, sql`${organizations.id}::text`),
      ),
    )
    .where(eq(memberships.userSub, sub))
    .orderBy(asc(organizations.createdAt), asc(organizations.name));
}

export async function countOrganizationsOf(db: Db, sub: string): Promise<number> {
  const rows = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(memberships)
    .where(eq(memberships.userSub, sub));
  return onlyRow(rows, "the count of memberships").n;
}

export async function isMember(db: DbOrTx, organizationId: string, sub: string): Promise<boolean> {
  const rows = await db
    .select({ one: memberships.userSub })
    .from(memberships)
    .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userSub, sub)))
    .limit(1);
  return rows.length > 0;
}

/**
 * Membership and the member's claims in one organization, in one query (the guard runs it on
 * every organization-scoped request). null: not a member.
 */
export async function findMemberClaims(db: Db, organizationId: string, sub: string): Promise<Claim[] | null> {
  const rows = await db
    .select({ type: memberClaims.type, value: memberClaims.value })
    .from(memberships)
    .leftJoin(memberClaims, and(eq(memberClaims.organizationId, memberships.organizationId), eq(memberClaims.userSub, memberships.userSub)))
    .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userSub, sub)));
  if (rows.length === 0) return null;
  return rows.flatMap((r) => (r.type === null || r.value === null ? [] : [{ type: r.type, value: r.value }]));
}

/** What the guard needs of a member in one organization: their claims and the organization's policy. */
export interface MemberAccess {
  claims: readonly Claim[];
  policy: SecurityPolicy;
}

/**
 * Membership, the member's claims and the organization's security policy, in one query (the
 * guard runs it for organization-scoped requests, cached in memberCache.ts). null: not a member.
 */
export async function findMemberAccess(db: Db, organizationId: string, sub: string): Promise<MemberAccess | null> {
  const rows = await db
    .select({
      type: memberClaims.type,
      value: memberClaims.value,
      requireTwoFactor: organizationSecurity.requireTwoFactor,
      sessionLifetimeSeconds: organizationSecurity.sessionLifetimeSeconds,
      allowedIpRanges: organizationSecurity.allowedIpRanges,
    })
    .from(memberships)
    .leftJoin(memberClaims, and(eq(memberClaims.organizationId, memberships.organizationId), eq(memberClaims.userSub, memberships.userSub)))
    .leftJoin(organizationSecurity, eq(organizationSecurity.organizationId, memberships.organizationId))
    .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userSub, sub)));
  const first = rows[0];
  if (!first) return null;
  const claims = rows.flatMap((r) => (r.type === null || r.value === null ? [] : [{ type: r.type, value: r.value }]));
  const policy: SecurityPolicy =
    first.requireTwoFactor === null
      ? NO_POLICY
      : { requireTwoFactor: first.requireTwoFactor, sessionLifetimeSeconds: first.sessionLifetimeSeconds, allowedIpRanges: first.allowedIpRanges ?? [] };
  return { claims, policy };
}

/** Every claim of the person across their organizations (GET /api/profile/user-claims). */
export async function listClaimsOf(db: Db, sub: string): Promise<Claim[]> {
  return db
    .select({ type: memberClaims.type, value: memberClaims.value })
    .from(memberClaims)
    .where(eq(memberClaims.userSub, sub))
    .orderBy(asc(memberClaims.organizationId), asc(memberClaims.type));
}
