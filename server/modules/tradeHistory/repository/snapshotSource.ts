/**
 * The live blotter's snapshots from the trade history store (server/modules/tradesBlotter/snapshotSource.ts,
 * `BlotterSnapshotSource`): open positions and recent deals as the database holds them, so a
 * snapshot after a restart, or on another node than the one that saw the trades, has them too.
 *  - The store's live writes may lag the bus by up to a writer's queue (seconds under a flood),
 *    on this node or another (the nodes' writers share the bus's events). A snapshot does not wait
 *    for them: the stream lays over the store's open positions the latest state of each position
 *    this node saw change lately, and adds the deals it saw (tradesBlotter/snapshots.ts); every node
 *    sees every event. The stream completes it with the events it handles while it is read, which
 *    also repair a position an event older than the database's would set back.
 *  - It waits for a backfill catching the platform up after a gap: the snapshot a `tradeGap`
 *    brings then holds the deals made while nothing was published (a crash, a feed takeover).
 *    This node's own passes it waits for in memory (`whenCaughtUp`). On several nodes the gap goes
 *    to one node's store (the writers share one durable consumer), so the stream tells this source
 *    of every gap it sees (`gap`), and a snapshot after one also waits until the platform's sync
 *    row (`trade_history_sync`, which every node's passes write) shows a pass begun at or after the
 *    gap's `resumedAt` and ended: at most `GAP_CATCH_UP_WAIT_MS`, after which it reads what there
 *    is (clocks of different machines may disagree; a first backfill of a long window may take
 *    longer). While such a pass runs the sync status is `backfilling`, so positions come from the
 *    platform's connector meanwhile anyway.
 *  - Open positions only once the platform's backfill is complete (sync status `live`) and no event
 *    the writer dropped (a full queue) waits to be read again (`positionsBehind`); otherwise the
 *    store's are partial or behind and the stream asks the platform's connector instead (null).
 *    Deals the writer dropped are not waited for: they were on the bus, and the stream adds the
 *    node's own recent deals to the store's.
 */
import { setTimeout as delay } from "node:timers/promises";
import { and, desc, eq } from "drizzle-orm";
import type { Deal, NativeDealRef, NativePositionRef, Position, TradeReason } from "../../../../core/trading/index.ts";
import { lotsToVolume, moneyFromDecimal } from "../../../../core/trading/index.ts";
import type { Db } from "../../../db/client.ts";
import { tradeDeals, tradePositions } from "../../../db/schema.ts";
import type { BlotterSnapshotSource } from "../../tradesBlotter/snapshotSource.ts";
import type { TradeHistoryStore } from "../store.ts";
import { getSync, readsWholeWindow } from "./syncState.ts";

const volume = (lots: string) => lotsToVolume(Number(lots));
const reason = (value: string) => value as TradeReason;

/** The longest a snapshot after a gap waits for a pass (of any node) to catch the platform up. */
export const GAP_CATCH_UP_WAIT_MS = 10_000;
/** How often it looks at the platform's sync row meanwhile. */
const GAP_POLL_MS = 50;

type SyncRow = Awaited<ReturnType<typeof getSync>>;

/**
 * Nothing more to wait for: the row shows a pass begun at or after the gap that has ended; or a
 * first backfill running, which reads the whole window (not waited for, as on the node that runs
 * it: its positions are not used until it is done); or no store follows the platform.
 */
function caughtUpIn(row: SyncRow, resumedAt: number, backfillDays: number): boolean {
  if (row === undefined) return true;
  if (row.status === "backfilling") {
    return row.windowFrom !== null && row.windowTo !== null && readsWholeWindow({ from: row.windowFrom, to: row.windowTo }, backfillDays);
  }
  return row.startedAt !== null && row.finishedAt !== null && row.startedAt.getTime() >= resumedAt;
}

export function storeSnapshotSource(
  db: Db,
  store: () => TradeHistoryStore | undefined,
  options: { gapWaitMs?: number; backfillDays: number },
): BlotterSnapshotSource {
  const { gapWaitMs = GAP_CATCH_UP_WAIT_MS, backfillDays } = options;
  /** Per platform, the newest gap seen and not yet known to be covered, and when it was seen. */
  const gaps = new Map<string, { resumedAt: number; seenAt: number }>();
  /** Per platform, the one look at its sync row that every read waiting on its gaps shares. */
  const watching = new Map<string, Promise<void>>();

  /** Until no gap of the platform waits: each is covered by a pass (of any node) or waited for long enough. */
  async function gapsCovered(platformId: string): Promise<void> {
    for (;;) {
      const gap = gaps.get(platformId);
      if (!gap) return;
      if (caughtUpIn(await getSync(db, platformId), gap.resumedAt, backfillDays) || Date.now() - gap.seenAt >= gapWaitMs) {
        if (gaps.get(platformId) === gap) gaps.delete(platformId);
        continue;
      }
      await delay(GAP_POLL_MS);
    }
  }

  /** This node's passes, then (after a gap) any node's, as the sync row shows them. */
  async function caughtUp(history: TradeHistoryStore, platformId: string): Promise<void> {
    await history.whenCaughtUp(platformId);
    if (!gaps.has(platformId)) return;
    let shared = watching.get(platformId);
    if (!shared) {
      shared = gapsCovered(platformId).finally(() => watching.delete(platformId));
      watching.set(platformId, shared);
    }
    await shared;
  }

  return {
    gap(platformId, resumedAt) {
      const known = gaps.get(platformId);
      if (!known || resumedAt > known.resumedAt) gaps.set(platformId, { resumedAt, seenAt: Date.now() });
    },

    async openPositions(organizationId, platformId, limit) {
      const history = store();
      if (!history) return null;
      await caughtUp(history, platformId);
      if (history.positionsBehind(platformId) || (await getSync(db, platformId))?.status !== "live") return null;
      const rows = await db
        .select()
        .from(tradePositions)
        .where(and(eq(tradePositions.organizationId, organizationId), eq(tradePositions.platformId, platformId)))
        .orderBy(desc(tradePositions.openTime))
        .limit(limit);
      return rows.map(positionOf);
    },

    async recentDeals(organizationId, platformId, limit) {
      const history = store();
      if (!history) return null;
      await caughtUp(history, platformId);
      const rows = await db
        .select()
        .from(tradeDeals)
        .where(and(eq(tradeDeals.organizationId, organizationId), eq(tradeDeals.platformId, platformId)))
        .orderBy(desc(tradeDeals.time), desc(tradeDeals.seq))
        .limit(limit);
      return rows.reverse().map(dealOf);
    },
  };
}

type PositionRow = typeof tradePositions.$inferSelect;
type DealRow = typeof tradeDeals.$inferSelect;

const positionOf = (r: PositionRow): Position => ({
  id: r.positionId,
  login: r.login,
  symbol: r.symbol,
  side: r.side,
  volume: volume(r.volume),
  openTime: r.openTime.getTime(),
  openPrice: r.openPrice,
  currentPrice: r.currentPrice,
  sl: r.sl,
  tp: r.tp,
  profit: moneyFromDecimal(r.profit),
  swap: moneyFromDecimal(r.swap),
  comment: r.comment,
  reason: reason(r.reason),
  previousId: null,
  native: r.native as NativePositionRef,
});

const dealOf = (r: DealRow): Deal => ({
  id: r.dealId,
  login: r.login,
  time: r.time.getTime(),
  action: r.action,
  entry: r.entry,
  positionId: r.positionId,
  symbol: r.symbol,
  volume: volume(r.volume),
  price: r.price,
  profit: moneyFromDecimal(r.profit),
  commission: moneyFromDecimal(r.commission),
  swap: moneyFromDecimal(r.swap),
  comment: r.comment,
  reason: reason(r.reason),
  native: r.native as NativeDealRef,
});
