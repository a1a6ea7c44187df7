import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { memberPreferences } from "../../db/schema.ts";

export interface PreferenceOwner {
  organizationId: string;
  userSub: string;
}

export async function getPreference(db: Db, owner: PreferenceOwner, key: string) {
  const [row] = await db
    .select({ value: memberPreferences.value, updatedAt: memberPreferences.updatedAt })
    .from(memberPreferences)
    .where(
      and(
        eq(memberPreferences.organizationId, owner.organizationId),
        eq(memberPreferences.userSub, owner.userSub),
        eq(memberPreferences.key, key),
      ),
    )
    .limit(1);
  return row;
}

export async function putPreference(db: Db, owner: PreferenceOwner, key: string, value: unknown) {
  const [row] = await db
    .insert(memberPreferences)
    .values({ organizationId: owner.organizationId, userSub: owner.userSub, key, value })
    .onConflictDoUpdate({
      target: [memberPreferences.organizationId, memberPreferences.userSub, memberPreferences.key],
      set: { value, updatedAt: sql`now()` },
    })
    .returning({ value: memberPreferences.value, updatedAt: memberPreferences.updatedAt });
  return row!;
}
