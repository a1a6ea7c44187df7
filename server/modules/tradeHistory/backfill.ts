/**
 * One platform's backfill:
 *  1. note the database time, read the platform's waiting pending orders (`pendingOrders()`, the
 *     whole server), list every account (pages of listAccounts) and read each page's open
 *     positions, write them (a position or order a live event wrote since, or closed meanwhile, is
 *     left as the event left it), then remove the stored positions the platform no longer lists;
 *  2. read each account's deals and order history within the window (`dealHistory`,
 *     `orderHistory`, per login), a few accounts at a time, and write them: an order placed and
 *     ended meanwhile is stored with its end, a stored waiting one that ended gets its real end;
 *  3. end the stored waiting orders the platform no longer lists and whose end the history did not
 *     tell (filled into the open position that names it, expired, else `ended` unseen:
 *     ./repository/orders.ts, `endOrdersNotListed`);
 *  4. record progress (accounts done of total) as it goes, and the outcome.
 * The caller subscribed to the bus before starting, so nothing between is missed; overlap with
 * live events is harmless (idempotent writes; an order is one row per platform and id).
 * The orders are read before the positions: an order that fills between the two reads is listed
 * waiting and its position is listed too (the live `orderFilled` ends it), never missed by both.
 */
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { FinishedPendingOrder } from "../../../core/trading/index.ts";
import type { TradePlatformConnector } from "../../connectors/connector.ts";
import type { Db } from "../../db/client.ts";
import { endOrdersNotListed, upsertOrders } from "./repository/orders.ts";
import { dealColumns, orderColumns, positionColumns } from "./rows.ts";
import { backfillProgress, finishBackfill, startBackfill } from "./repository/syncState.ts";
import { databaseNow, insertDeals, removePositionsNotListed, upsertPositions, type PlatformKey } from "./repository/writes.ts";

export interface BackfillJob {
  db: Db;
  platform: PlatformKey;
  connector: TradePlatformConnector;
  from: Date;
  to: Date;
  /** Accounts read at once. */
  concurrency: number;
  /** Positions closed by live events since the backfill began (filled by the caller). */
  closedMeanwhile: ReadonlySet<string>;
  cancelled: () => boolean;
}

const PROGRESS_EVERY_MS = 250;

/** An order that left the book, as the store keeps it (Match-Trader's history has no end time: null). */
function endedOrderColumns(f: FinishedPendingOrder) {
  return { ...orderColumns(f.order, f.state, null), positionId: f.positionId, doneTime: f.time === null ? null : new Date(f.time).toISOString() };
}
const ACCOUNT_PAGE = 500;

/** Answers the deals stored (new ones); records its outcome, and throws nothing. */
export async function backfill(job: BackfillJob): Promise<{ deals: number; error: string | null }> {
  const { db, platform, connector } = job;
  let deals = 0;
  try {
    await startBackfill(db, platform, { from: job.from, to: job.to });
    const readBefore = await databaseNow(db);
    const waiting = await connector.pendingOrders();
    await upsertOrders(
      db,
      platform,
      waiting.map((o) => orderColumns(o, "placed", null)),
      readBefore,
    );
    const fills = new Map<string, { positionId: string; time: number }>();
    // Positions are read a page of accounts at a time (MT5's position/get_batch), never the whole
    // server at once: 20,000 positions decoded in one go held the event loop for 100–190 ms.
    const listed = new Set<string>();
    const logins: string[] = [];
    for (let cursor: string | null | undefined = undefined; ;) {
      if (job.cancelled()) return { deals, error: null };
      const page = await connector.listAccounts({ cursor, limit: ACCOUNT_PAGE });
      const pageLogins = page.items.map((account) => account.login);
      logins.push(...pageLogins);
      const read = await connector.openPositionsOf(pageLogins);
      // A fill counts even if its position closed since (the order did fill).
      for (const p of read) if (p.orderId !== undefined) fills.set(p.orderId, { positionId: p.id, time: p.openTime });
      // MT4 lists no filled order in its history: the order became the trade under the same ticket.
      if (connector.platform === "MT4") for (const p of read) if (!fills.has(p.id)) fills.set(p.id, { positionId: p.id, time: p.openTime });
      const positions = read.filter((p) => !job.closedMeanwhile.has(p.id));
      for (const position of positions) listed.add(position.id);
      await upsertPositions(db, platform, positions.map(positionColumns), readBefore);
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
      // An in-process connector answers at once (microtasks only): without this, listing 100,000
      // accounts would hold the event loop for a second.
      await yieldToEventLoop();
    }
    await removePositionsNotListed(db, platform.id, listed, readBefore);
    let done = 0;
    let reportedAt = 0;
    const report = async (force = false) => {
      if (!force && Date.now() - reportedAt < PROGRESS_EVERY_MS) return;
      reportedAt = Date.now();
      await backfillProgress(db, platform.id, { accountsDone: done, accountsTotal: logins.length, deals });
    };
    await report(true);
    let next = 0;
    const worker = async () => {
      while (next < logins.length && !job.cancelled()) {
        const login = logins[next++]!;
        const window = { login, from: job.from.getTime(), to: job.to.getTime() };
        const [history, ended] = await Promise.all([connector.dealHistory(window), connector.orderHistory(window)]);
        // Not with `readBefore`: an order's end in the history is final; an end an event already wrote stays (upsertOrders).
        await upsertOrders(db, platform, ended.map(endedOrderColumns));
        // Not `deals += await …`: that reads `deals` before the await and loses the other workers' counts.
        const inserted = await insertDeals(
          db,
          platform,
          history.map((d) => dealColumns(d)),
        );
        deals += inserted;
        done++;
        await report();
        await yieldToEventLoop();
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, job.concurrency) }, worker));
    if (job.cancelled()) return { deals, error: null };
    await endOrdersNotListed(db, platform.id, new Set(waiting.map((o) => o.id)), fills, readBefore);
    await report(true);
    await finishBackfill(db, platform.id, { error: null });
    return { deals, error: null };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await finishBackfill(db, platform.id, { error: message }).catch(() => undefined);
    return { deals, error: message };
  }
}
