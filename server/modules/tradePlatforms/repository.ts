import { asc, eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { memberships, tradePlatforms } from "../../db/schema.ts";

/** Trade platforms of every organization the person belongs to, in one query. */
export async function listTradePlatformsOf(db: Db, sub: string) {
  return db
    .select({
      id: tradePlatforms.id,
      organizationId: tradePlatforms.organizationId,
      type: tradePlatforms.type,
      name: tradePlatforms.name,
      enable: tradePlatforms.enable,
    })
    .from(tradePlatforms)
    .innerJoin(memberships, eq(memberships.organizationId, tradePlatforms.organizationId))
    .where(eq(memberships.userSub, sub))
    .orderBy(asc(tradePlatforms.organizationId), asc(tradePlatforms.name), asc(tradePlatforms.id));
}
