/**
 * A full sync of one platform into the mirror: every account, page by page (the next page is
 * read while the previous one is written), writing only the rows whose content changed; then
 * the rows of accounts the platform no longer lists are removed. A row written after its page
 * was read (a live event, a balance operation) is left alone. The first sync, the periodic one
 * and the one after missed events are this same pass.
 */
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { TradePlatformConnector } from "../../../connectors/connector.ts";
import type { Db } from "../../../db/client.ts";
import type { MirroredPlatform } from "../platformPort.ts";
import { columnsOf } from "./rows.ts";
import { analyzeAccounts, nextGeneration, removeAccountsNotListed, upsertAccounts } from "./writeRepository.ts";

/** After a large load the planner needs statistics before autovacuum would gather them. */
const ANALYZE_AFTER = 10_000;

export interface SyncTarget {
  db: Db;
  platform: MirroredPlatform;
  connector: TradePlatformConnector;
  pageSize: number;
  /** Checked between pages: a stopped mirror abandons the sync (and removes nothing). */
  stopped: () => boolean;
}

export interface SyncResult {
  /** Accounts the platform listed. */
  listed: number;
  /** Rows inserted or changed (0 when nothing changed on the platform). */
  written: number;
  /** Rows of accounts the platform no longer has. */
  removed: number;
}

/** Answers null when the mirror stopped meanwhile. */
export async function fullSync({ db, platform, connector, pageSize, stopped }: SyncTarget): Promise<SyncResult | null> {
  const listed = new Set<string>();
  let written = 0;
  const startedAt = await nextGeneration(db);
  let readAt = startedAt;
  let page = await connector.listAccounts({ limit: pageSize });
  for (;;) {
    if (stopped()) return null;
    const nextReadAt = page.nextCursor ? await nextGeneration(db) : null;
    const next = page.nextCursor ? connector.listAccounts({ cursor: page.nextCursor, limit: pageSize }) : null;
    // A failed read of the next page must not go unhandled while this one is written.
    next?.catch(() => undefined);
    for (const account of page.items) listed.add(account.login);
    written += await upsertAccounts(db, platform, page.items.map(columnsOf), { readAt });
    if (!next || nextReadAt === null) break;
    page = await next;
    readAt = nextReadAt;
    // Whatever else the server does (requests, other platforms) gets its turn between pages.
    await yieldToEventLoop();
  }
  if (stopped()) return null;
  const removed = await removeAccountsNotListed(db, platform.id, { writtenBefore: startedAt, listed });
  if (written >= ANALYZE_AFTER) await analyzeAccounts(db);
  return { listed: listed.size, written, removed };
}
