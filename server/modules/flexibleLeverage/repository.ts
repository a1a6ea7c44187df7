/**
 * What the Flexible Leverage preview reads of Toolbox's accounts mirror (server/modules/accounts/mirror/),
 * the saves' audit records, and the rules Toolbox keeps (with the runner's lease) for a server without the plugin.
 */
import { and, desc, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { auditEvents, flexibleLeverageRules, tradingAccounts } from "../../db/schema.ts";

export type RulesRow = typeof flexibleLeverageRules.$inferSelect;

export interface MirroredAccount {
  login: string;
  group: string;
  currency: string;
  /** Decimal text, as the mirror keeps it. */
  equity: string;
  leverage: number;
}

/**
 * A platform's mirrored accounts, in login order: what the engine reads of each. Written by the
 * database as one JSON text of arrays (100,000 accounts: one value to parse instead of 100,000 rows
 * mapped field by field, which was most of a preview's time; decision 0091's approach).
 */
export async function mirroredAccounts(db: DbOrTx, organizationId: string, platformId: string): Promise<MirroredAccount[]> {
  const a = tradingAccounts;
  const [row] = await db
    .select({
      json: sql<
        string | null
      >`json_agg(json_build_array(${a.login}, ${a.group}, ${a.currency}, ${a.equity}::text, ${a.leverage}) order by length(${a.login}), ${a.login})::text`,
    })
    .from(a)
    .where(and(eq(a.organizationId, organizationId), eq(a.platformId, platformId)));
  if (!row?.json) return [];
  return (JSON.parse(row.json) as [string, string, string, string, number][]).map(([login, group, currency, equity, leverage]) => ({
    login,
    group,
    currency,
    equity,
    leverage,
  }));
}

/** The saves of one plugin's settings (audit `flexibleLeverage.changed`), newest first. */
export async function savedSettings(db: DbOrTx, organizationId: string, targetId: string, limit: number) {
  return db
    .select({ at: auditEvents.at, actorName: auditEvents.actorName, after: auditEvents.after })
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.organizationId, organizationId),
        eq(auditEvents.targetType, "plugin"),
        eq(auditEvents.targetId, targetId),
        eq(auditEvents.action, "flexibleLeverage.changed"),
      ),
    )
    .orderBy(desc(auditEvents.at))
    .limit(limit);
}

export async function findRules(db: DbOrTx, platformId: string): Promise<RulesRow | undefined> {
  const [row] = await db.select().from(flexibleLeverageRules).where(eq(flexibleLeverageRules.platformId, platformId));
  return row;
}

/** Writes the rules Toolbox keeps for a platform; `rulesChanged` moves the time positions are counted from. */
export async function saveRules(
  db: DbOrTx,
  organizationId: string,
  platformId: string,
  parameters: RulesRow["parameters"],
  rulesChanged: boolean,
): Promise<RulesRow> {
  const [row] = await db
    .insert(flexibleLeverageRules)
    .values({ platformId, organizationId, parameters })
    .onConflictDoUpdate({
      target: flexibleLeverageRules.platformId,
      set: { parameters, updatedAt: sql`now()`, ...(rulesChanged ? { rulesChangedAt: sql`now()` } : {}) },
    })
    .returning();
  return row!;
}

/**
 * Takes or renews the runner's lease of a platform for `ttlMs` (the database's clock): free,
 * lapsed, or already this node's. The epoch grows at every takeover. Null: another node holds it.
 */
export async function takeLease(db: DbOrTx, platformId: string, nodeId: string, ttlMs: number): Promise<number | null> {
  const rows = await db
    .update(flexibleLeverageRules)
    .set({
      leaseNode: nodeId,
      leaseEpoch: sql`case when ${flexibleLeverageRules.leaseNode} = ${nodeId} and ${flexibleLeverageRules.leaseExpiresAt} > now() then ${flexibleLeverageRules.leaseEpoch} else ${flexibleLeverageRules.leaseEpoch} + 1 end`,
      leaseExpiresAt: sql`now() + ${`${ttlMs} milliseconds`}::interval`,
    })
    .where(
      and(
        eq(flexibleLeverageRules.platformId, platformId),
        sql`(${flexibleLeverageRules.leaseNode} is null or ${flexibleLeverageRules.leaseNode} = ${nodeId} or ${flexibleLeverageRules.leaseExpiresAt} < now())`,
      ),
    )
    .returning({ epoch: flexibleLeverageRules.leaseEpoch });
  return rows[0]?.epoch ?? null;
}

/** Lets another node take the platform's rounds at once (a clean stop). */
export async function releaseLeases(db: DbOrTx, nodeId: string): Promise<void> {
  await db.update(flexibleLeverageRules).set({ leaseNode: null, leaseExpiresAt: null }).where(eq(flexibleLeverageRules.leaseNode, nodeId));
}
