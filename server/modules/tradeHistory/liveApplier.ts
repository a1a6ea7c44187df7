/**
 * Applies the bus's `trade` events to the store as they arrive, in batches: whatever arrived while
 * the last batch was written goes into the next one (at most MAX_BATCH events). A batch that fails
 * is reported with its platforms (`onError`), for the store to read them again from the platform.
 * Per platform and batch: positions opened or modified are upserted first (so the batch's deals
 * find their stops), then deals inserted, then closed positions deleted. Every write is
 * idempotent, so an event seen twice (a redelivery, a backfill that read it too) changes nothing.
 *
 * The queue is bounded (`maxQueued`): when the database falls that far behind, the queued events
 * are dropped and their platforms reported (`onOverflow`), for the store to read them again from
 * the platform (a backfill, as after a `tradeGap`; docs/decisions/0061).
 */
import type { TradeEvent } from "../../../core/trading/index.ts";
import type { Db } from "../../db/client.ts";
import { dealColumns, orderColumns, positionColumns, type DealColumns, type OrderColumns, type PositionColumns, type Stops } from "./rows.ts";
import { upsertOrders } from "./repository/orders.ts";
import { recordSequences } from "./repository/syncState.ts";
import { deletePositions, insertDeals, upsertPositions, type PlatformKey } from "./repository/writes.ts";

/**
 * Events written at once at most. Under a sustained rate the queue is long and batches are full:
 * larger ones mean fewer, larger statements (./writes.ts, WRITE_BATCH), and a position changed
 * several times in one batch is written once.
 */
const MAX_BATCH = 5000;
/** Stops of recently closed positions, for their exit deals when those come in a later batch. */
const RECENT_STOPS = 10_000;

export interface LiveTradeEvent {
  organizationId: string;
  platformId: string;
  event: TradeEvent;
}

export interface LiveApplierHooks {
  /** A position closed: a backfill running for its platform must not write it back from an older snapshot. */
  onClosed?: (platformId: string, positionId: string) => void;
  /** A write failed; `platformIds`: the platforms whose events it held (they are not stored). */
  onError: (error: unknown, platformIds: string[]) => void;
  /** The queue was full: its events (`dropped`) were dropped; these platforms must be read again. */
  onOverflow?: (platformIds: string[], dropped: number) => void;
}

export interface LiveApplierStats {
  /** Events waiting for the database now, and the most there ever were. */
  queued: number;
  maxQueuedSeen: number;
  bound: number;
  /** Events dropped because the queue was full, and how many times it was. */
  dropped: number;
  overflows: number;
}

interface PlatformBatch {
  platform: PlatformKey;
  positions: Map<string, PositionColumns | null>;
  deals: DealColumns[];
  /** Pending orders as the batch's last event on each left them. */
  orders: Map<string, OrderColumns>;
  sequence: number;
}

export class LiveApplier {
  private readonly buffer: LiveTradeEvent[] = [];
  /** The batch being written now. */
  private writing: readonly LiveTradeEvent[] = [];
  private flushing: Promise<void> | null = null;
  private stopped = false;
  private readonly recentStops = new Map<string, Stops>();
  private maxQueuedSeen = 0;
  /** Events taken into the queue, and those done with (written, failed or dropped): `settled` waits on them. */
  private pushed = 0;
  private handled = 0;
  private waiters: { upTo: number; resolve: () => void }[] = [];
  private dropped = 0;
  private overflows = 0;

  constructor(
    private readonly db: Db,
    private readonly hooks: LiveApplierHooks,
    /** Events queued for the database at most. */
    private readonly maxQueued = 50_000,
  ) {}

  push(event: LiveTradeEvent): void {
    if (this.stopped) return;
    if (this.buffer.length >= this.maxQueued) {
      this.overflow(event);
      return;
    }
    this.buffer.push(event);
    this.pushed++;
    if (this.buffer.length > this.maxQueuedSeen) this.maxQueuedSeen = this.buffer.length;
    this.flushing ??= this.startFlush();
  }

  /**
   * Writes until the queue is empty. Events pushed after the last batch was written but before
   * the flush had ended (a `settled()` waiter runs first, and may push) start the next flush, so
   * none is left waiting for a push that may never come.
   */
  private startFlush(): Promise<void> {
    return this.flush().finally(() => {
      this.flushing = null;
      if (this.buffer.length > 0 && !this.stopped) this.flushing = this.startFlush();
    });
  }

  /** The database is this far behind: what waits (and this event) is dropped, and its platforms are read again instead. */
  private overflow(event: LiveTradeEvent): void {
    const platforms = new Set([event.platformId, ...this.buffer.map((e) => e.platformId)]);
    const dropped = this.buffer.length + 1;
    this.done(this.buffer.length);
    this.buffer.length = 0;
    this.dropped += dropped;
    this.overflows++;
    this.hooks.onOverflow?.([...platforms], dropped);
  }

  /**
   * The platform's events taken and not yet written, in the order they came (the batch being
   * written, then the queue): what the database may not hold yet. Some may be written by the time
   * the caller reads it; every write is idempotent, and so is applying them again.
   */
  pendingOf(platformId: string): TradeEvent[] {
    const out: TradeEvent[] = [];
    for (const e of this.writing) if (e.platformId === platformId) out.push(e.event);
    for (const e of this.buffer) if (e.platformId === platformId) out.push(e.event);
    return out;
  }

  stats(): LiveApplierStats {
    return { queued: this.buffer.length, maxQueuedSeen: this.maxQueuedSeen, bound: this.maxQueued, dropped: this.dropped, overflows: this.overflows };
  }

  /**
   * Resolves once every event pushed so far is written (or failed, or dropped for a backfill).
   * Events pushed later are not waited for: under a steady flow the queue is never empty. (Tests
   * and the benchmarks wait here; blotter snapshots do not wait for the writer.)
   */
  settled(): Promise<void> {
    const upTo = this.pushed;
    if (this.handled >= upTo || this.stopped) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ upTo, resolve }));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    while (this.flushing) await this.flushing;
    for (const w of this.waiters) w.resolve();
    this.waiters = [];
  }

  private done(events: number): void {
    this.handled += events;
    if (this.waiters.length === 0) return;
    const ready = this.waiters.filter((w) => this.handled >= w.upTo);
    this.waiters = this.waiters.filter((w) => this.handled < w.upTo);
    for (const w of ready) w.resolve();
  }

  private async flush(): Promise<void> {
    while (this.buffer.length > 0 && !this.stopped) {
      const batch = this.buffer.splice(0, MAX_BATCH);
      this.writing = batch;
      try {
        await this.apply(batch);
      } catch (error) {
        // The events stay recoverable: the store reads their platforms again.
        this.hooks.onError(error, [...new Set(batch.map((e) => e.platformId))]);
      }
      this.writing = [];
      this.done(batch.length);
    }
  }

  private async apply(events: readonly LiveTradeEvent[]): Promise<void> {
    const byPlatform = new Map<string, PlatformBatch>();
    for (const { organizationId, platformId, event } of events) {
      let batch = byPlatform.get(platformId);
      if (!batch)
        byPlatform.set(platformId, (batch = { platform: { id: platformId, organizationId }, positions: new Map(), deals: [], orders: new Map(), sequence: 0 }));
      batch.sequence = Math.max(batch.sequence, event.sequence);
      const key = `${platformId}:`;
      switch (event.type) {
        case "positionOpened":
        case "positionModified":
          batch.positions.set(event.position.id, positionColumns(event.position));
          this.remember(key + event.position.id, event.position);
          break;
        case "positionClosed":
          batch.positions.set(event.position.id, null);
          this.remember(key + event.position.id, event.position);
          this.hooks.onClosed?.(platformId, event.position.id);
          break;
        case "dealAdded": {
          const stops = event.deal.positionId === null ? undefined : this.recentStops.get(key + event.deal.positionId);
          batch.deals.push(dealColumns(event.deal, stops));
          break;
        }
        case "accountChanged":
          break;
        case "orderPlaced":
        case "orderModified":
          batch.orders.set(event.order.id, orderColumns(event.order, "placed", null));
          break;
        case "orderCancelled":
          batch.orders.set(event.order.id, orderColumns(event.order, event.cause, { time: event.time, positionId: null }));
          break;
        case "orderFilled":
          batch.orders.set(event.order.id, orderColumns(event.order, "filled", { time: event.time, positionId: event.position.id }));
          break;
      }
    }
    const sequences = new Map<string, { organizationId: string; sequence: number }>();
    for (const [platformId, batch] of byPlatform) {
      const open = [...batch.positions.values()].filter((p): p is PositionColumns => p !== null);
      const closed = [...batch.positions].filter(([, p]) => p === null).map(([id]) => id);
      try {
        await upsertPositions(this.db, batch.platform, open);
        await insertDeals(this.db, batch.platform, batch.deals);
        await deletePositions(this.db, platformId, closed);
        await upsertOrders(this.db, batch.platform, [...batch.orders.values()]);
        sequences.set(platformId, { organizationId: batch.platform.organizationId, sequence: batch.sequence });
      } catch (error) {
        // One platform's failure (deleted meanwhile) is its own; the others' events are written.
        this.hooks.onError(error, [platformId]);
      }
    }
    await recordSequences(this.db, sequences);
  }

  private remember(key: string, stops: Stops): void {
    this.recentStops.delete(key);
    this.recentStops.set(key, { sl: stops.sl, tp: stops.tp });
    if (this.recentStops.size > RECENT_STOPS) this.recentStops.delete(this.recentStops.keys().next().value!);
  }
}
