import { and, asc, eq } from "drizzle-orm";
import type { Claim } from "../../../core/access.ts";
import type { Db } from "../../db/client.ts";
import { memberClaims, memberships, users } from "../../db/schema.ts";

export interface Member {
  sub: string;
  email: string | null;
  name: string | null;
  joinedAt: Date;
  claims: Claim[];
}

/** Members of one organization with their claims there: one query, grouped here. */
export async function listMembers(db: Db, organizationId: string): Promise<Member[]> {
  const rows = await db
    .select({
      sub: memberships.userSub,
      email: users.email,
      name: users.name,
      joinedAt: memberships.createdAt,
      type: memberClaims.type,
      value: memberClaims.value,
    })
    .from(memberships)
    .innerJoin(users, eq(users.sub, memberships.userSub))
    .leftJoin(memberClaims, and(eq(memberClaims.organizationId, memberships.organizationId), eq(memberClaims.userSub, memberships.userSub)))
    .where(eq(memberships.organizationId, organizationId))
    .orderBy(asc(memberships.createdAt), asc(memberships.userSub), asc(memberClaims.type));

  const bySub = new Map<string, Member>();
  for (const r of rows) {
    let member = bySub.get(r.sub);
    if (!member) {
      member = { sub: r.sub, email: r.email, name: r.name, joinedAt: r.joinedAt, claims: [] };
      bySub.set(r.sub, member);
    }
    if (r.type !== null && r.value !== null) member.claims.push({ type: r.type, value: r.value });
  }
  return [...bySub.values()];
}
