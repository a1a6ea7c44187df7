/**
 * The trade feed: every platform this node's runtime connects has its connector's trade events
 * published on the bus as `trade` events of its organization and platform (./platformFeed.ts),
 * so the trade history store, the blotter's live stream and later the copier follow the bus and
 * never a connector. A platform removed (or disabled: its connector ends its stream) stops.
 *
 * Several nodes (docs/events.md, "Several nodes"): with `leases`, a node publishes a platform's
 * feed only while it holds that platform's lease (./feedLeases.ts). Every node keeps trying to
 * take the lease of each platform it has connected (when it connects — the feed then follows the
 * connector at once and publishes once the lease is taken —, every third of the time to live, and
 * at once when another node announces a release); the holder renews it every third of the time
 * to live and halts its feed at once when a renewal fails, finds the lease gone, or the node is no
 * longer connected (then releasing it), and no batch leaves once the lease may have lapsed
 * (`mayPublish`). Each takeover starts the feed afresh, after a `tradeGap`.
 * Each event carries a message id — platform, lease epoch, the run within it, the connector's
 * sequence — so NATS stores a repeated publish once.
 *
 * One idea: publishing each connected platform's trade events on the bus, once, from one node.
 */
import { randomUUID } from "node:crypto";
import type { TradePlatformConnector } from "../connectors/connector.ts";
import type { PlatformRef } from "./types.ts";
import type { EventBus } from "./bus.ts";
import type { FeedLease, FeedLeaseStore } from "./feedLeases.ts";
import { PlatformFeed, type FeedLogger, type FeedStatus, type PlatformFeedOptions } from "./platformFeed.ts";

export interface FeedLeaseOptions {
  store: FeedLeaseStore;
  /** This node (NODE_ID, else random per process). */
  nodeId: string;
  /** How long a lease lasts unless renewed; renewed every third of it. */
  ttlMs: number;
  /**
   * Whether this node is connected to the platform now: a node that is not neither takes the lease
   * nor keeps it (it releases it at the next renewal), so a node that is connected can publish.
   */
  isConnected?: (platformId: string) => boolean;
  /** This node took the platform's lease (its state on the live pages is now this node's to say). */
  taken?: (platformId: string) => void;
  /** This node gave the lease up because it is no longer connected (a node that is takes it over). */
  givenUp?: (platformId: string) => void;
}

export interface TradeFeedOptions {
  bus: EventBus;
  log?: FeedLogger;
  /** First retry delay after a failure; 1 s by default. */
  retryDelayMs?: number;
  /** Events read from a connector but not yet on the bus before reading waits; 20,000 by default (about a second at the busiest). */
  maxQueued?: number;
  /** Publish a platform only while holding its lease; without, this node publishes every platform it connects (one node). */
  leases?: FeedLeaseOptions;
}

interface Tenure {
  platform: PlatformRef;
  connector: TradePlatformConnector;
  /** The lease this node holds for the platform (null: another node publishes it, or nobody yet). */
  lease: FeedLease | null;
  /** This node's clock: the lease surely lasts until then (measured from before the call that took or renewed it). */
  validUntil: number;
  /** Runs (feeds) started under the current lease or, without leases, in this process. */
  runs: number;
  feed: PlatformFeed | null;
  /** The current feed's run: the lease it publishes under (null while it waits for one). */
  run: Run | null;
  /** The call to the lease store under way, if any. */
  busy: Promise<void> | null;
}

interface Run {
  lease: FeedLease | null;
  number: number;
  /** While the run waits for the lease: says whether it got it (then publishing starts, or the feed halts). */
  settle?: (taken: boolean) => void;
}

/** A run waiting for the lease learns whether it got it (once). */
function settle(run: Run | null, taken: boolean): void {
  const done = run?.settle;
  if (!done) return;
  delete run.settle;
  done(taken);
}

const quiet: FeedLogger = { info: () => {}, warn: () => {}, error: () => {} };

export class TradeFeed {
  private readonly tenures = new Map<string, Tenure>();
  private readonly options: PlatformFeedOptions;
  private readonly leases: FeedLeaseOptions | undefined;
  private readonly bus: EventBus;
  private readonly log: FeedLogger;
  /** Without leases, what makes this process's message ids its own. */
  private readonly processId = randomUUID();
  private timer: ReturnType<typeof setInterval> | null = null;
  private stopped = false;
  /** Each platform's first attempt to take its lease on this node (the start's banner waits for it), settled once made. */
  private readonly firstAttempts = new Map<string, { promise: Promise<void>; done: () => void }>();

  constructor(options: TradeFeedOptions) {
    const { leases, ...rest } = options;
    this.options = { log: quiet, retryDelayMs: 1000, maxQueued: 20_000, ...rest };
    this.bus = options.bus;
    this.log = this.options.log;
    this.leases = leases;
    if (leases) {
      this.timer = setInterval(() => this.checkAll(), Math.max(100, Math.floor(leases.ttlMs / 3)));
      this.timer.unref?.();
    }
  }

  /**
   * A platform is connected: publish its events (once this node holds its lease). The same
   * connector again (a reconnect) resumes where the feed stopped; a different one (new settings,
   * a restart) starts from now after a gap.
   */
  attach(platform: PlatformRef, connector: TradePlatformConnector): void {
    if (this.stopped) return;
    const existing = this.tenures.get(platform.id);
    if (existing && existing.connector === connector && existing.feed && !existing.feed.stopped) {
      existing.feed.resume();
      return;
    }
    const tenure: Tenure = existing ?? { platform, connector, lease: null, validUntil: 0, runs: 0, feed: null, run: null, busy: null };
    tenure.platform = platform;
    tenure.connector = connector;
    this.tenures.set(platform.id, tenure);
    settle(tenure.run, false);
    void tenure.feed?.stop();
    if (!this.leases || tenure.lease) {
      this.startRun(tenure);
      this.firstAttemptOf(platform.id).done();
    } else {
      // Follow the connector from now already (its gap says so at once), and publish once the lease
      // is this node's (the next attempt to take it settles it): a follower that reads the platform
      // after the connection (the history store's backfill) then covers everything before the gap.
      // Not taken: the feed halts.
      this.startRun(tenure, true);
      void this.check(tenure);
    }
  }

  /**
   * Resolves once this node first asked the lease store for the platform's lease (taken or not; at
   * once without leases), which waits for the platform to be attached and connected: the caller
   * bounds the wait (a platform never attached never settles it).
   */
  firstLeaseAttempt(platformId: string): Promise<void> {
    return this.firstAttemptOf(platformId).promise;
  }

  private firstAttemptOf(platformId: string) {
    let first = this.firstAttempts.get(platformId);
    if (!first) {
      let done = () => {};
      const promise = new Promise<void>((resolve) => (done = resolve));
      first = { promise, done: () => done() };
      this.firstAttempts.set(platformId, first);
    }
    return first;
  }

  /** The platform was removed: stop publishing its events (and give its lease up). */
  async detach(platformId: string): Promise<void> {
    const tenure = this.tenures.get(platformId);
    this.tenures.delete(platformId);
    if (!tenure) return;
    settle(tenure.run, false);
    await tenure.feed?.stop();
    tenure.feed = null;
    await this.release(tenure);
  }

  /**
   * Another node released this platform's lease (`tradeFeedReleased` on the bus): try to take it
   * now rather than at the next round.
   */
  claim(platformId: string): void {
    const tenure = this.tenures.get(platformId);
    if (tenure && !tenure.lease && !this.stopped) void this.check(tenure);
  }

  /**
   * A clean shutdown: stop every feed (what is queued gets one last attempt), release the leases
   * and say so on the bus, so the other nodes take over at once rather than after the time to live.
   */
  async stopAll(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const all = [...this.tenures.values()];
    this.tenures.clear();
    await Promise.all(
      all.map(async (tenure) => {
        settle(tenure.run, false);
        await tenure.feed?.stop();
        tenure.feed = null;
        if (await this.release(tenure)) await this.announceRelease(tenure);
      }),
    );
  }

  /** The platform's feed on this node; `standby` while another node holds its lease (or nobody yet). */
  status(platformId: string): FeedStatus | undefined {
    const tenure = this.tenures.get(platformId);
    if (!tenure) return undefined;
    if (tenure.feed && (!this.leases || tenure.run?.lease)) return tenure.feed.status();
    return { platformId, phase: "standby", lastSequence: 0, published: 0, gaps: 0, lastError: null };
  }

  /** Whether this node holds the platform's lease now (always, without leases: one node). */
  holds(platformId: string): boolean {
    if (!this.leases) return true;
    const tenure = this.tenures.get(platformId);
    return tenure?.lease != null && Date.now() < tenure.validUntil;
  }

  // ── Leases ───────────────────────────────────────────────────────────────────────────────

  private checkAll(): void {
    for (const tenure of this.tenures.values()) void this.check(tenure);
  }

  /** Renews the lease held, or tries to take it. Never rejects. */
  /** One check at a time per platform: a call while one runs gets that one (the banner's first attempt waits for it whole). */
  private check(tenure: Tenure): Promise<void> {
    const leases = this.leases;
    if (!leases || this.stopped) return Promise.resolve();
    if (tenure.busy) return tenure.busy;
    const run = (async () => {
      try {
        if (tenure.lease) await this.renew(tenure, leases);
        else await this.acquire(tenure, leases);
      } finally {
        tenure.busy = null;
      }
    })();
    tenure.busy = run;
    return run;
  }

  private async renew(tenure: Tenure, leases: FeedLeaseOptions): Promise<void> {
    const lease = tenure.lease!;
    const started = Date.now();
    let renewed = false;
    let failure: string | null = null;
    try {
      renewed = await leases.store.renew(lease, leases.ttlMs);
    } catch (err) {
      failure = messageOf(err);
    }
    if (tenure.lease !== lease) return;
    if (renewed && leases.isConnected && !leases.isConnected(tenure.platform.id)) {
      // This node cannot reach the platform (another node may): give the feed up.
      this.log.warn({ platformId: tenure.platform.id, epoch: lease.epoch }, "not connected to the platform; releasing its trade feed's lease");
      const feed = tenure.feed;
      tenure.feed = null;
      tenure.run = null;
      await feed?.halt();
      leases.givenUp?.(tenure.platform.id);
      if (await this.release(tenure)) await this.announceRelease(tenure);
      return;
    }
    if (renewed && started + leases.ttlMs > Date.now()) {
      tenure.validUntil = started + leases.ttlMs;
      return;
    }
    this.log.warn(
      { platformId: tenure.platform.id, epoch: lease.epoch, err: failure ?? undefined },
      failure ? "cannot renew the trade feed's lease; stopped publishing" : "the trade feed's lease is no longer this node's; stopped publishing",
    );
    tenure.lease = null;
    const feed = tenure.feed;
    tenure.feed = null;
    tenure.run = null;
    await feed?.halt();
  }

  private async acquire(tenure: Tenure, leases: FeedLeaseOptions): Promise<void> {
    const { id } = tenure.platform;
    if (leases.isConnected && !leases.isConnected(id)) return settle(tenure.run, false);
    const started = Date.now();
    let lease: FeedLease | null;
    try {
      lease = await leases.store.acquire(id, leases.nodeId, leases.ttlMs);
    } catch (err) {
      // The platform may just have been deleted; or the database is away: the next round tries again.
      this.log.warn({ platformId: id, err: messageOf(err) }, "cannot take the trade feed's lease");
      this.firstAttemptOf(id).done();
      settle(tenure.run, false);
      return;
    }
    if (!lease) {
      this.firstAttemptOf(id).done();
      return settle(tenure.run, false);
    }
    if (this.stopped || this.tenures.get(id) !== tenure) {
      settle(tenure.run, false);
      await leases.store.release(lease).catch(() => {});
      return;
    }
    tenure.lease = lease;
    tenure.validUntil = started + leases.ttlMs;
    tenure.runs = 0;
    this.log.info({ platformId: id, epoch: lease.epoch, nodeId: leases.nodeId }, "this node publishes the platform's trade feed");
    leases.taken?.(id);
    this.firstAttemptOf(id).done();
    const waiting = tenure.run?.settle && tenure.feed && !tenure.feed.stopped ? tenure.run : null;
    if (waiting) {
      // The feed started when the platform connected publishes under this lease, from its start.
      waiting.lease = lease;
      waiting.number = ++tenure.runs;
      settle(waiting, true);
    } else {
      this.startRun(tenure);
    }
  }

  /** Gives the lease up (expiry now); true when this node held one. */
  private async release(tenure: Tenure): Promise<boolean> {
    const lease = tenure.lease;
    tenure.lease = null;
    if (!lease || !this.leases) return false;
    try {
      await this.leases.store.release(lease);
      return true;
    } catch (err) {
      this.log.warn({ platformId: tenure.platform.id, err: messageOf(err) }, "cannot release the trade feed's lease; it lapses by itself");
      return false;
    }
  }

  /** Tells the other nodes (`tradeFeedReleased`), so one takes the feed over now rather than when the lease lapses. */
  private async announceRelease(tenure: Tenure): Promise<void> {
    const { organizationId, id: platformId } = tenure.platform;
    await this.bus.publish({ type: "tradeFeedReleased", organizationId, platformId, nodeId: this.leases?.nodeId ?? "" }).catch((err: unknown) => {
      this.log.warn({ platformId, err: messageOf(err) }, "cannot announce a released trade feed lease; other nodes take over when it lapses");
    });
  }

  /** A new feed from now (a gap first); `waitForLease`: it publishes once an attempt to take the lease settles it. */
  private startRun(tenure: Tenure, waitForLease = false): void {
    const run: Run = { lease: tenure.lease, number: ++tenure.runs };
    const ready = waitForLease ? new Promise<boolean>((resolve) => (run.settle = resolve)) : undefined;
    const { id } = tenure.platform;
    const feed = this.leases
      ? new PlatformFeed(tenure.platform, tenure.connector, this.options, {
          epoch: () => run.lease?.epoch,
          idPrefix: () => (run.lease ? `${id}:${run.lease.epoch}:${run.number}` : undefined),
          mayPublish: () => run.lease !== null && tenure.lease === run.lease && Date.now() < tenure.validUntil,
          ...(ready ? { ready } : {}),
        })
      : new PlatformFeed(tenure.platform, tenure.connector, this.options, { idPrefix: () => `${id}:${this.processId}:${run.number}` });
    tenure.feed = feed;
    tenure.run = run;
    feed.resume();
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
