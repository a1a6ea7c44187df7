/** Which platforms a blotter query may read: the organization's, with the Trades Blotter app assigned and enabled. */
import { sql } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { rowsOf } from "../../../db/rows.ts";

/**
 * The organization's blotter platforms, narrowed to `requested` when given. An id outside them
 * (another organization's, or without the app) is dropped silently: the answer is the same as for
 * an id that does not exist, so nothing tells them apart.
 */
export async function blotterPlatformIds(db: Db, organizationId: string, requested: readonly string[] | undefined): Promise<string[]> {
  const result = await db.execute(sql`
    select p.id from trade_platforms p
    join trade_platform_apps a on a.platform_id = p.id and a.app = 'tradesBlotter' and a.enabled
    where p.organization_id = ${organizationId}::uuid`);
  const allowed = rowsOf<{ id: string }>(result).map((r) => r.id);
  if (!requested) return allowed;
  const wanted = new Set(requested.map((id) => id.toLowerCase()));
  return allowed.filter((id) => wanted.has(id));
}
