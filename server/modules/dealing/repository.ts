/** Rows of dealing_settings and dealing_switches (server/db/tables/dealing.ts). */
import { and, desc, eq, sql } from "drizzle-orm";
import type { DealingOverride, DealingSettings } from "../../../core/dealing/schema.ts";
import type { DbOrTx } from "../../db/client.ts";
import { dealingSettings, dealingSwitches, tradePlatforms } from "../../db/schema.ts";

export type DealingRow = typeof dealingSettings.$inferSelect;

export async function findDealing(db: DbOrTx, platformId: string, opts: { forUpdate?: boolean } = {}): Promise<DealingRow | undefined> {
  const query = db.select().from(dealingSettings).where(eq(dealingSettings.platformId, platformId));
  const [row] = await (opts.forUpdate ? query.for("update") : query);
  return row;
}

export async function saveDealing(
  db: DbOrTx,
  organizationId: string,
  platformId: string,
  values: { settings: DealingSettings; override: DealingOverride | null },
): Promise<DealingRow> {
  const [row] = await db
    .insert(dealingSettings)
    .values({ platformId, organizationId, settings: values.settings, override: values.override })
    .onConflictDoUpdate({ target: dealingSettings.platformId, set: { settings: values.settings, override: values.override, updatedAt: sql`now()` } })
    .returning();
  return row!;
}

/** Every platform that has dealing settings, with what the scheduler needs. */
export async function allDealing(db: DbOrTx) {
  return db
    .select({
      platformId: dealingSettings.platformId,
      organizationId: dealingSettings.organizationId,
      settings: dealingSettings.settings,
      override: dealingSettings.override,
      updatedAt: dealingSettings.updatedAt,
      timeZone: tradePlatforms.timeZone,
      name: tradePlatforms.name,
    })
    .from(dealingSettings)
    .innerJoin(tradePlatforms, eq(tradePlatforms.id, dealingSettings.platformId));
}

/** Records a switch; true for the one caller whose insert landed (every node may try the same switch). */
export async function recordSwitch(db: DbOrTx, platformId: string, at: number, profile: string, reason: string): Promise<boolean> {
  const rows = await db.insert(dealingSwitches).values({ platformId, at, profile, reason }).onConflictDoNothing().returning({ at: dealingSwitches.at });
  return rows.length === 1;
}

export async function switchesOf(db: DbOrTx, platformId: string, limit = 20) {
  return db
    .select()
    .from(dealingSwitches)
    .where(and(eq(dealingSwitches.platformId, platformId)))
    .orderBy(desc(dealingSwitches.at))
    .limit(limit);
}
