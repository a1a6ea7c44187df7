/** The SQL of the platforms runtime (./runtime.ts): the saved platforms it connects, read anew on each change. */
import { and, eq } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { tradePlatforms } from "../../../db/tables/platforms.ts";
import type { PlatformRow } from "./managedPlatform.ts";

/** Every platform of every organization (the runtime's start). */
export async function allPlatformRows(db: Db): Promise<PlatformRow[]> {
  return db.select().from(tradePlatforms);
}

export async function platformRow(db: Db, platformId: string): Promise<PlatformRow | undefined> {
  const [row] = await db.select().from(tradePlatforms).where(eq(tradePlatforms.id, platformId));
  return row;
}

/** The platform's name and whether it is enabled, only if it is the organization's. */
export async function platformSwitchOf(db: Db, organizationId: string, platformId: string): Promise<{ name: string; enable: boolean } | undefined> {
  const [row] = await db
    .select({ name: tradePlatforms.name, enable: tradePlatforms.enable })
    .from(tradePlatforms)
    .where(and(eq(tradePlatforms.id, platformId), eq(tradePlatforms.organizationId, organizationId)));
  return row;
}
