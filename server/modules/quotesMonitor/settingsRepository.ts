/** The Quotes Monitor's settings row of an organization (its symbol map and holidays): read and upserted. */
import { eq, sql } from "drizzle-orm";
import { EMPTY_SYMBOL_MAP, type SymbolMap } from "../../../core/schemas/quoteComparison.ts";
import type { Holiday } from "../../../core/schemas/quoteHolidays.ts";
import type { DbOrTx } from "../../db/client.ts";
import { quoteMonitorSettings } from "../../db/schema.ts";
import type { MonitorSettings } from "./monitor/monitor.ts";

const settingsOf = (row: typeof quoteMonitorSettings.$inferSelect | undefined): MonitorSettings => ({
  symbolMap: row?.symbolMap ?? EMPTY_SYMBOL_MAP,
  holidays: row?.holidays ?? [],
});

export async function readSettings(db: DbOrTx, organizationId: string): Promise<MonitorSettings> {
  const [row] = await db.select().from(quoteMonitorSettings).where(eq(quoteMonitorSettings.organizationId, organizationId));
  return settingsOf(row);
}

/** Locks the organization's row for the transaction (creating it empty first), and reads it. */
export async function lockSettings(tx: DbOrTx, organizationId: string): Promise<MonitorSettings> {
  await tx.insert(quoteMonitorSettings).values({ organizationId }).onConflictDoNothing();
  const [row] = await tx.select().from(quoteMonitorSettings).where(eq(quoteMonitorSettings.organizationId, organizationId)).for("update");
  return settingsOf(row);
}

export async function writeSettings(tx: DbOrTx, organizationId: string, change: { symbolMap?: SymbolMap; holidays?: Holiday[] }): Promise<void> {
  await tx
    .update(quoteMonitorSettings)
    .set({ ...change, updatedAt: sql`now()` })
    .where(eq(quoteMonitorSettings.organizationId, organizationId));
}

/** Every organization's settings, for the monitor (one row per organization that set any). */
export async function allSettings(db: DbOrTx): Promise<Map<string, MonitorSettings>> {
  const rows = await db.select().from(quoteMonitorSettings);
  return new Map(rows.map((r) => [r.organizationId, settingsOf(r)]));
}
