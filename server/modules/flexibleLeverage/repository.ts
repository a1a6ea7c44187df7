/** What the Flexible Leverage preview reads of Toolbox's accounts mirror (server/modules/accounts/mirror/). */
import { and, asc, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { tradingAccounts } from "../../db/schema.ts";

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
