import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { memberPreferences } from "../../db/schema.ts";
import { lockForQuota, requirePreferenceQuota, type Quotas } from "../../quotas.ts";

export interface PreferenceOwner {
  organizationId: string;
  userSub: string;
}

export async function getPreference(db: Db, owner: PreferenceOwner, key: string) {
  const [row] = await db
    .select({ value: memberPreferences.value, updatedAt: memberPreferences.updatedAt })
    .from(memberPreferences)
    .where(and(eq(memberPreferences.organizationId, owner.organizationId), eq(memberPreferences.userSub, owner.userSub), eq(memberPreferences.key, key)))
    .limit(1);
  return row;
}

/**
 * Stores one preference; null clears it (the row goes, so it no longer counts). A new key past
 * the member's quota is refused (422), counted under a lock on the membership so concurrent
 * requests cannot both take the last place; changing a key already kept is always possible.
 */
export async function putPreference(db: Db, owner: PreferenceOwner, key: string, value: unknown, quotas: Quotas) {
  const mine = and(eq(memberPreferences.organizationId, owner.organizationId), eq(memberPreferences.userSub, owner.userSub));
  return db.transaction(async (tx) => {
    if (value === null) {
      await tx.delete(memberPreferences).where(and(mine, eq(memberPreferences.key, key)));
      return { value: null, updatedAt: new Date() };
    }
    await lockForQuota(tx, owner);
    const kept = await tx.select({ key: memberPreferences.key }).from(memberPreferences).where(mine);
    if (!kept.some((k) => k.key === key)) requirePreferenceQuota(quotas, kept.length);
    const [row] = await tx
      .insert(memberPreferences)
      .values({ organizationId: owner.organizationId, userSub: owner.userSub, key, value })
      .onConflictDoUpdate({
        target: [memberPreferences.organizationId, memberPreferences.userSub, memberPreferences.key],
        set: { value, updatedAt: sql`now()` },
      })
      .returning({ value: memberPreferences.value, updatedAt: memberPreferences.updatedAt });
    return row!;
  });
}
