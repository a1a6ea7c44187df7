/** What the Flexible Leverage preview reads of Toolbox's accounts mirror (server/modules/accounts/mirror/). */
import { and, asc, desc, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { auditEvents, tradingAccounts } from "../../db/schema.ts";

/** A platform's mirrored accounts, in login order: what the engine reads of each. */
export async function mirroredAccounts(db: DbOrTx, organizationId: string, platformId: string) {
  return db
    .select({
      login: tradingAccounts.login,
      group: tradingAccounts.group,
      currency: tradingAccounts.currency,
      equity: tradingAccounts.equity,
      leverage: tradingAccounts.leverage,
    })
    .from(tradingAccounts)
    .where(and(eq(tradingAccounts.organizationId, organizationId), eq(tradingAccounts.platformId, platformId)))
    .orderBy(sql`length(${tradingAccounts.login})`, asc(tradingAccounts.login));
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
