/** Rows of leverage_changes (server/db/tables/flexibleLeverage.ts): Flexible Leverage's changes, recorded once per key. */
import { and, desc, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { flexibleLeverageRules, leverageChanges, tradePlatforms } from "../../db/schema.ts";

export type LeverageChangeRow = typeof leverageChanges.$inferSelect;
export type NewLeverageChange = typeof leverageChanges.$inferInsert;

/** Inserts a change unless its key is already recorded; the row for the one caller whose insert landed. */
export async function insertChange(db: DbOrTx, change: NewLeverageChange): Promise<LeverageChangeRow | undefined> {
  const [row] = await db.insert(leverageChanges).values(change).onConflictDoNothing().returning();
  return row;
}

/** One account's changes, newest first (as recorded: a server's clock moved back by a demo must not reorder them). */
export async function changesOfAccount(db: DbOrTx, organizationId: string, platformId: string, login: string, limit: number) {
  return db
    .select()
    .from(leverageChanges)
    .where(and(eq(leverageChanges.organizationId, organizationId), eq(leverageChanges.platformId, platformId), eq(leverageChanges.login, login)))
    .orderBy(desc(leverageChanges.recordedAt), desc(leverageChanges.changedAt))
    .limit(limit);
}

/** The organization of a platform (any organization's: the plugin's changes are heard by platform id). */
export async function organizationOfPlatform(db: DbOrTx, platformId: string): Promise<string | undefined> {
  const [row] = await db.select({ organizationId: tradePlatforms.organizationId }).from(tradePlatforms).where(eq(tradePlatforms.id, platformId));
  return row?.organizationId;
}

/** A platform's row, whatever its organization (the runner works for every organization). */
export async function platformById(db: DbOrTx, platformId: string) {
  const [row] = await db.select().from(tradePlatforms).where(eq(tradePlatforms.id, platformId));
  return row;
}

/** Every platform whose rules Toolbox keeps. */
export async function platformsWithRules(db: DbOrTx): Promise<string[]> {
  return (await db.select({ platformId: flexibleLeverageRules.platformId }).from(flexibleLeverageRules)).map((r) => r.platformId);
}

/** The runner's intents not settled yet. */
export async function pendingIntents(db: DbOrTx, platformId: string): Promise<LeverageChangeRow[]> {
  return db
    .select()
    .from(leverageChanges)
    .where(and(eq(leverageChanges.platformId, platformId), eq(leverageChanges.source, "toolbox"), eq(leverageChanges.status, "pending")));
}

/** How many changes Toolbox's runner recorded per account of a platform (the next one's key). */
export async function runnerChangeCounts(db: DbOrTx, platformId: string): Promise<Map<string, number>> {
  const rows = await db
    .select({ login: leverageChanges.login, n: sql<number>`count(*)::int` })
    .from(leverageChanges)
    .where(and(eq(leverageChanges.platformId, platformId), eq(leverageChanges.source, "toolbox")))
    .groupBy(leverageChanges.login);
  return new Map(rows.map((r) => [r.login, Number(r.n)]));
}

/** Settles a pending intent; the row for the one caller that settled it (undefined: already settled). */
export async function settleIntent(db: DbOrTx, id: string, status: "applied" | "failed", error: string | null = null): Promise<LeverageChangeRow | undefined> {
  const [row] = await db
    .update(leverageChanges)
    .set({ status, error })
    .where(and(eq(leverageChanges.id, id), eq(leverageChanges.status, "pending")))
    .returning();
  return row;
}

/** For tests: every change of a platform, oldest first. */
export async function changesOfPlatform(db: DbOrTx, platformId: string) {
  return db.select().from(leverageChanges).where(eq(leverageChanges.platformId, platformId)).orderBy(leverageChanges.recordedAt);
}
