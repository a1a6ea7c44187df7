/** The live stream's reads: which platforms carry the blotter, and each account's group (the accounts mirror). */
import { and, asc, eq } from "drizzle-orm";
import type { BlotterPlatform } from "../../../core/schemas/blotterLive.ts";
import type { Db } from "../../db/client.ts";
import { tradePlatformApps, tradePlatforms, tradingAccounts } from "../../db/schema.ts";

/** The organization's platforms with the Trades Blotter app assigned and enabled, by name. */
export async function blotterPlatformsOf(db: Db, organizationId: string): Promise<BlotterPlatform[]> {
  return db
    .select({ id: tradePlatforms.id, name: tradePlatforms.name, type: tradePlatforms.type, timeZone: tradePlatforms.timeZone })
    .from(tradePlatforms)
    .innerJoin(tradePlatformApps, eq(tradePlatformApps.platformId, tradePlatforms.id))
    .where(and(eq(tradePlatforms.organizationId, organizationId), eq(tradePlatformApps.app, "tradesBlotter"), eq(tradePlatformApps.enabled, true)))
    .orderBy(asc(tradePlatforms.name), asc(tradePlatforms.id));
}

/** login → group of one platform's mirrored accounts. */
export async function groupsOf(db: Db, platformId: string): Promise<Map<string, string>> {
  const rows = await db
    .select({ login: tradingAccounts.login, group: tradingAccounts.group })
    .from(tradingAccounts)
    .where(eq(tradingAccounts.platformId, platformId));
  return new Map(rows.map((r) => [r.login, r.group]));
}
