/**
 * Retention: deals older than the configured number of days are deleted, a few hundred rows per
 * statement (each one short, on the organization's time index), so the event loop and the table's
 * other users never wait long. Positions are not aged: they leave when they close.
 */
import { sql } from "drizzle-orm";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { Db } from "../../../db/client.ts";
import { rowsOf } from "../../../db/rows.ts";
import { affectedRows } from "./writes.ts";

const DELETE_BATCH = 500;

/** Deletes every deal with a time before `cutoff`; answers how many. */
export async function deleteDealsBefore(db: Db, cutoff: Date, shouldStop: () => boolean = () => false): Promise<number> {
  const organizations = rowsOf<{ id: string }>(await db.execute(sql`select id from organizations`)).map((r) => r.id);
  let deleted = 0;
  for (const organizationId of organizations) {
    for (;;) {
      if (shouldStop()) return deleted;
      const result = await db.execute(sql`
        delete from trade_deals where (platform_id, deal_id) in (
          select platform_id, deal_id from trade_deals
          where organization_id = ${organizationId}::uuid and time < ${cutoff.toISOString()}::timestamptz
          limit ${DELETE_BATCH})`);
      const n = affectedRows(result);
      deleted += n;
      if (n < DELETE_BATCH) break;
      await yieldToEventLoop();
    }
  }
  return deleted;
}
