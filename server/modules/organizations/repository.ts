import { and, asc, eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { memberClaims, memberships, organizations, users } from "../../db/schema.ts";
import { ADMIN_CLAIM } from "../../../core/access.ts";

export interface OrganizationRow {
  id: string;
  name: string;
  createdAt: Date;
}

/** Make sure the person exists locally (the identity provider owns them; we mirror sub, email, name). */
export async function upsertUser(db: Db, user: { sub: string; email?: string | null; name?: string | null }) {
  await db
    .insert(users)
    .values({ sub: user.sub, email: user.email ?? null, name: user.name ?? null })
    .onConflictDoUpdate({
      target: users.sub,
      set: { email: user.email ?? null, name: user.name ?? null },
    });
}

/** A new organization with `adminSub` as its administrator (claim `organization:admin` = its id), in one transaction. */
export async function createOrganizationWithAdmin(db: Db, input: { name: string; adminSub: string }): Promise<OrganizationRow> {
  return db.transaction(async (tx) => {
    const [org] = await tx.insert(organizations).values({ name: input.name }).returning();
    await tx.insert(memberships).values({ organizationId: org.id, userSub: input.adminSub });
    await tx.insert(memberClaims).values({ organizationId: org.id, userSub: input.adminSub, type: ADMIN_CLAIM, value: org.id });
    return org;
  });
}

export async function listOrganizationsOf(db: Db, sub: string): Promise<OrganizationRow[]> {
  return db
    .select({ id: organizations.id, name: organizations.name, createdAt: organizations.createdAt })
    .from(organizations)
    .innerJoin(memberships, eq(memberships.organizationId, organizations.id))
    .where(eq(memberships.userSub, sub))
    .orderBy(asc(organizations.createdAt), asc(organizations.name));
}

export async function isMember(db: Db, organizationId: string, sub: string): Promise<boolean> {
  const rows = await db
    .select({ one: memberships.userSub })
    .from(memberships)
    .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userSub, sub)))
    .limit(1);
  return rows.length > 0;
}
