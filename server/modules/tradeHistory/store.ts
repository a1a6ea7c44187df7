/**
 * The trade history store (docs/decisions/0039-trade-history-store.md): deals and open positions
 * of every connected platform, in the database, so the blotter's historical mode is a query (fast,
 * and it works while a platform is offline).
 *  - It subscribes to the bus's `trade` and `tradeGap` events once, at start, before any backfill,
 *    so nothing that happens during one is missed (./liveApplier.ts).
 *  - Each time the runtime connects a platform, it backfills (./backfill.ts): the configured
 *    window the first time, from the last deal stored (less a minute) afterwards; a `tradeGap`
 *    does the same. One backfill per platform at a time; one asked for meanwhile runs after it.
 *  - Retention deletes old deals periodically (./retention.ts).
 *
 * One idea: the store's life and the platforms it follows (start and stop, attach and detach, one
 * backfill at a time per platform); applying, backfilling and retention are the files named above.
 */
import type { TradeEvent } from "../../../core/trading/index.ts";
import type { TradePlatformConnector } from "../../connectors/connector.ts";
import type { Db } from "../../db/client.ts";
import { isForeignKeyViolation } from "../../db/errors.ts";
import type { EventBus } from "../../events/bus.ts";
import type { BusSubscription } from "../../events/types.ts";
import type { MirrorLogger } from "../accounts/mirror/types.ts";
import { setImmediate as nextTurn, setTimeout as delay } from "node:timers/promises";
import { backfill } from "./backfill.ts";
import { LiveApplier, type LiveApplierStats } from "./liveApplier.ts";
import { deleteDealsBefore } from "./repository/retention.ts";
import { getSync, lastDealTime, readsWholeWindow } from "./repository/syncState.ts";
import type { PlatformKey } from "./repository/writes.ts";

const DAY_MS = 86_400_000;
/** How far before the last stored deal an incremental backfill starts (clock skew, same-millisecond deals). */
const OVERLAP_MS = 60_000;
const CAUGHT_UP_POLL_MS = 20;

/** Wakes whoever waits for the platform's running pass to end. */
function endPass(followed: { passEnded: (() => void)[] }): void {
  const waiting = followed.passEnded;
  followed.passEnded = [];
  for (const resolve of waiting) resolve();
}

export interface TradeHistoryOptions {
  db: Db;
  bus: EventBus;
  log: MirrorLogger;
  /** The window read on a platform's first connect. */
  backfillDays: number;
  /** Deals older than this are deleted. */
  retentionDays: number;
  /** How often retention runs; 0 turns the timer off. */
  retentionEveryMs: number;
  /** Accounts whose history is read at once. */
  concurrency: number;
  /** Live events queued for the database at most; past it they are dropped and their platforms backfilled (./liveApplier.ts). */
  maxQueuedEvents?: number;
  now?: () => number;
}

interface Followed {
  platform: PlatformKey;
  connector: TradePlatformConnector;
  running: Promise<void> | null;
  again: boolean;
  /** When the running backfill pass began reading the platform (ms since the epoch). */
  passStartedAt: number;
  /** The running pass reads the whole configured window (a first backfill), not just since the last stored deal; null until it knows. */
  fullPass: boolean | null;
  removed: boolean;
  closedMeanwhile: Set<string>;
  /**
   * Passes asked for because events may never have reached the bus (a connect, a `tradeGap`), and
   * the number of those asks the passes finished so far covered: `whenCaughtUp` waits on these.
   */
  gapsAsked: number;
  gapsCovered: number;
  /** Likewise for the store's own writer dropping events it was given (a full queue): its positions are behind until covered. */
  dropsAsked: number;
  dropsCovered: number;
  /** What the running pass covers once it finishes (the asks before it began, or a gap it reads past). */
  passCovers: { gaps: number; drops: number };
  /** Resolved each time a pass ends (and when the platform is no longer followed). */
  passEnded: (() => void)[];
}

export class TradeHistoryStore {
  private readonly platforms = new Map<string, Followed>();
  private readonly live: LiveApplier;
  private subscription: BusSubscription | null = null;
  private retentionTimer: ReturnType<typeof setInterval> | null = null;
  private retentionRun: Promise<number> | null = null;
  private stopped = false;
  private overflowWarned = false;
  private readonly now: () => number;

  constructor(private readonly options: TradeHistoryOptions) {
    this.now = options.now ?? Date.now;
    this.live = new LiveApplier(
      options.db,
      {
        onClosed: (platformId, positionId) => this.platforms.get(platformId)?.closedMeanwhile.add(positionId),
        onError: (err, platformIds) => {
          // A batch for a platform deleted meanwhile: its rows went with it, nothing is lost.
          if (isForeignKeyViolation(err)) return;
          // Otherwise its events are read again from their platforms, as after a full queue.
          options.log.error({ err, platformIds }, "trade history: a live batch failed; its platforms are read again");
          for (const platformId of platformIds) this.backfillLater(platformId, { drop: true });
        },
        onOverflow: (platformIds, dropped) => this.overflowed(platformIds, dropped),
      },
      options.maxQueuedEvents,
    );
  }

  /** The live queue's state (tests, the benchmark). */
  liveStats(): LiveApplierStats {
    return this.live.stats();
  }

  /**
   * The database fell behind the bus by a full queue: the events dropped are read again from their
   * platforms, as after a `tradeGap` (a pass running now runs again after, so it begins after them).
   */
  private overflowed(platformIds: string[], dropped: number): void {
    if (!this.overflowWarned) {
      this.overflowWarned = true;
      this.options.log.warn(
        { platformIds, dropped, bound: this.live.stats().bound },
        "trade history: the database is behind the live trades; queued events dropped, their platforms are read again (warned once)",
      );
    }
    for (const platformId of platformIds) this.backfillLater(platformId, { drop: true });
  }

  start(): void {
    this.subscription = this.options.bus.subscribe(
      { types: ["trade", "tradeGap"] },
      ({ event }) => {
        if (event.type === "trade") this.live.push(event);
        else this.backfillLater(event.platformId, { resumedAt: event.resumedAt });
      },
      { durable: "trade-history" },
    );
    if (this.options.retentionEveryMs > 0) {
      this.retentionTimer = setInterval(() => void this.applyRetention(), this.options.retentionEveryMs);
      this.retentionTimer.unref?.();
    }
  }

  /** A platform (re)connected: follow it with this connector and backfill. */
  attach(platform: PlatformKey, connector: TradePlatformConnector): void {
    const existing = this.platforms.get(platform.id);
    if (existing) {
      existing.connector = connector;
      existing.removed = false;
    } else {
      this.platforms.set(platform.id, {
        platform,
        connector,
        running: null,
        again: false,
        passStartedAt: 0,
        fullPass: null,
        removed: false,
        closedMeanwhile: new Set(),
        gapsAsked: 0,
        gapsCovered: 0,
        dropsAsked: 0,
        dropsCovered: 0,
        passCovers: { gaps: 0, drops: 0 },
        passEnded: [],
      });
    }
    this.backfillLater(platform.id);
  }

  detach(platformId: string): void {
    const followed = this.platforms.get(platformId);
    if (followed) {
      followed.removed = true;
      endPass(followed);
    }
    this.platforms.delete(platformId);
  }

  /** Resolves once no backfill of the platform is running or queued (tests, the benchmark). */
  async whenBackfilled(platformId: string): Promise<void> {
    for (;;) {
      const running = this.platforms.get(platformId)?.running;
      if (!running) return;
      await running;
    }
  }

  /**
   * Resolves once the platform's history is caught up with what the bus never carried: the passes
   * asked for, before this call, by a connect or a `tradeGap` (a feed taken over after a crash: the
   * deals made meanwhile were never on the bus) have finished. The blotter's snapshots wait here,
   * so one read after a gap holds its deals.
   *  - Only those passes: one that follows a pass asked for later, or for the writer's own dropped
   *    events (`overflowed`: they were on the bus, so the blotter has them from there), is not
   *    waited for. Under a rate the writer cannot hold, such passes follow one another without end,
   *    and a snapshot that waited for the last of them was never read (docs/decisions/0061).
   *  - A first backfill, reading the whole window, is not waited for either (its positions are
   *    not used until it is done: sync status `live`).
   */
  async whenCaughtUp(platformId: string): Promise<void> {
    const followed = this.platforms.get(platformId);
    if (!followed) return;
    const asked = followed.gapsAsked;
    while (followed.gapsCovered < asked && !followed.removed && this.platforms.get(platformId) === followed) {
      if (!followed.running || followed.fullPass === true) return;
      const ended = new Promise<void>((resolve) => followed.passEnded.push(resolve));
      // Until the pass knows its window (one query), look again shortly.
      await (followed.fullPass === null ? Promise.race([ended, delay(CAUGHT_UP_POLL_MS)]) : ended);
    }
  }

  /**
   * The writer dropped events of this platform (its queue was full) and no pass has read the
   * platform again since: the stored open positions are behind it.
   */
  positionsBehind(platformId: string): boolean {
    const followed = this.platforms.get(platformId);
    return followed !== undefined && followed.dropsCovered < followed.dropsAsked;
  }

  /** The platform's live events taken and not yet written, in order (./liveApplier.ts, `pendingOf`; tests check the writer holds some). */
  pendingEvents(platformId: string): TradeEvent[] {
    return this.live.pendingOf(platformId);
  }

  /** Resolves once every live event delivered so far is written. */
  settled(): Promise<void> {
    return this.live.settled();
  }

  /** Deletes the deals past retention now (one run at a time); answers how many. */
  applyRetention(): Promise<number> {
    this.retentionRun ??= deleteDealsBefore(this.options.db, new Date(this.now() - this.options.retentionDays * DAY_MS), () => this.stopped)
      .catch((err: unknown) => {
        this.options.log.error({ err }, "trade history retention failed");
        return 0;
      })
      .finally(() => (this.retentionRun = null));
    return this.retentionRun;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.subscription?.close();
    if (this.retentionTimer) clearInterval(this.retentionTimer);
    const running = [...this.platforms.values()].flatMap((f) => (f.running ? [f.running] : []));
    for (const f of this.platforms.values()) f.removed = true;
    this.platforms.clear();
    await Promise.all(running);
    await this.retentionRun;
    await this.live.stop();
  }

  /**
   * Backfill now, or again after the pass that is running. A gap whose events all happened before
   * the running pass began reading (`resumedAt` ≤ its start: the feed's start on the connection that
   * pass was started for) is covered by that pass and asks for nothing more. `drop`: the writer
   * dropped events of the platform (they were on the bus).
   */
  private backfillLater(platformId: string, why: { resumedAt?: number; drop?: boolean } = {}): void {
    const followed = this.platforms.get(platformId);
    if (!followed || this.stopped) return;
    if (why.drop) followed.dropsAsked++;
    else followed.gapsAsked++;
    if (followed.running) {
      const covered = why.resumedAt !== undefined && followed.passStartedAt > 0 && why.resumedAt <= followed.passStartedAt;
      if (covered) followed.passCovers.gaps = followed.gapsAsked;
      else followed.again = true;
      return;
    }
    followed.running = this.backfillLoop(followed).finally(() => {
      followed.running = null;
      endPass(followed);
    });
  }

  private async backfillLoop(followed: Followed): Promise<void> {
    do {
      followed.again = false;
      followed.passStartedAt = 0;
      followed.fullPass = null;
      // Let the other listeners of this connection run first (the trade feed subscribes in one):
      // what this pass reads then includes everything its gap can have missed.
      await nextTurn();
      followed.passStartedAt = Date.now();
      // What it reads from here on covers every ask so far.
      followed.passCovers = { gaps: followed.gapsAsked, drops: followed.dropsAsked };
      followed.closedMeanwhile = new Set();
      const to = new Date(this.now());
      const from = await this.windowStart(followed.platform, to);
      followed.fullPass = readsWholeWindow({ from, to }, this.options.backfillDays);
      const outcome = await backfill({
        db: this.options.db,
        platform: followed.platform,
        connector: followed.connector,
        from,
        to,
        concurrency: this.options.concurrency,
        closedMeanwhile: followed.closedMeanwhile,
        cancelled: () => followed.removed || this.stopped,
      });
      if (outcome.error !== null) this.options.log.warn({ platformId: followed.platform.id, err: outcome.error }, "trade history backfill failed");
      else this.options.log.info({ platformId: followed.platform.id, deals: outcome.deals }, "trade history backfilled");
      followed.gapsCovered = Math.max(followed.gapsCovered, followed.passCovers.gaps);
      followed.dropsCovered = Math.max(followed.dropsCovered, followed.passCovers.drops);
      endPass(followed);
    } while (followed.again && !followed.removed && !this.stopped);
  }

  /** The configured window the first time; afterwards from the last deal stored (a reconnect, a gap). */
  private async windowStart(platform: PlatformKey, to: Date): Promise<Date> {
    const full = to.getTime() - this.options.backfillDays * DAY_MS;
    const sync = await getSync(this.options.db, platform.id);
    // Only after a complete backfill is everything up to the last stored deal known to be there.
    if (sync?.status !== "live" || sync.finishedAt === null) return new Date(full);
    const last = await lastDealTime(this.options.db, platform);
    return new Date(last === null ? full : Math.max(full, last - OVERLAP_MS));
  }
}
