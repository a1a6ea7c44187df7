/**
 * One platform's trade events onto the bus (./tradeFeed.ts runs one per connected platform):
 *  1. a connector seen for the first time is followed from now, after a `tradeGap`: whatever
 *     happened on the platform before (while Toolbox was down, or on a previous connection) is
 *     not on the bus, so followers that keep state read it again from the platform;
 *  2. every event read is queued; the queue goes to the bus as one batch per turn of the event
 *     loop, one publish at a time, so the bus sees the connector's order; a publish that fails
 *     (NATS unreachable) is retried with backoff, the stream read further meanwhile up to
 *     `maxQueued` events, then the connector's own journal holds the rest;
 *  3. subscribing, resuming and retrying are the platform follower's
 *     (../connectors/follow/platformFollower.ts): a stream that ends waits for the next `resume`,
 *     which continues from the last sequence read, on the same connector; `resyncRequired` (the
 *     connector no longer holds what came next) publishes a `tradeGap` and continues from now;
 *     other failures retry from the last sequence with backoff, which starts over once an event
 *     is read.
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import type { TradeEvent } from "../../core/trading/index.ts";
import { backoffDelay, type BackoffPolicy } from "../connectors/backoff.ts";
import type { TradePlatformConnector } from "../connectors/connector.ts";
import { PlatformFollower, retryBackoff, type FollowPhase } from "../connectors/follow/platformFollower.ts";
import { RetryWaits } from "../connectors/follow/retryWaits.ts";
import type { EventBus } from "./bus.ts";
import type { DomainEvent, PlatformRef } from "./types.ts";

export interface FeedLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export interface PlatformFeedOptions {
  bus: EventBus;
  log: FeedLogger;
  /** First retry delay after a failure (reading the stream, or publishing); then doubling, jittered, up to 30 s. */
  retryDelayMs: number;
  /** Events read but not yet on the bus before the reader waits for the bus. */
  maxQueued: number;
}

export interface PlatformFeedRun {
  /**
   * Makes the message ids of this run's events (`<prefix>:<sequence>` for trades, `<prefix>:gap<n>`
   * for gaps), asked when they are published: unique for the platform as long as no other run has
   * the same prefix (the trade feed builds it from the platform, the lease's epoch and the run's
   * number within it). Undefined: no ids.
   */
  idPrefix?: () => string | undefined;
  /** The lease's epoch (status only). */
  epoch?: () => number | undefined;
  /**
   * Publishing waits for it (the feed reads and queues meanwhile, from its start): true once this
   * node holds the lease, false when it does not get it, which drops the queue and halts the feed.
   */
  ready?: Promise<boolean>;
  /** Asked before each publish: false (the lease is lost or may be) drops the batch and halts the feed. */
  mayPublish?: () => boolean;
}

/** `standby`: another node holds the platform's lease (or nobody yet): this node does not publish it. */
export type FeedPhase = "standby" | "starting" | "live" | "waiting" | "retrying" | "stopped";

export interface FeedStatus {
  platformId: string;
  phase: FeedPhase;
  /** The connector's sequence of the last trade event read (and queued for, or on, the bus). */
  lastSequence: number;
  /** Events (trades and gaps) this feed has put on the bus. */
  published: number;
  /** `tradeGap`s published (1 after the start; more after missed events). */
  gaps: number;
  lastError: string | null;
  /** The lease's epoch this run publishes under (absent without leases). */
  epoch?: number;
}

const FEED_PHASES: Record<FollowPhase, FeedPhase> = {
  idle: "starting",
  catchingUp: "starting",
  live: "live",
  waiting: "waiting",
  retrying: "retrying",
  stopped: "stopped",
};

export class PlatformFeed {
  private lastSequence = 0;
  private published = 0;
  private gaps = 0;
  private queue: DomainEvent[] = [];
  private queueIds: string[] = [];
  /** A publish of the queue is scheduled (or running) on `publishing`. */
  private flushPending = false;
  /** The chain of publishes, in order; never rejects. */
  private publishing: Promise<void> = Promise.resolve();
  /** The follower's retry waits, shared with the publish retries: `resume` and `stop` cut both short. */
  private readonly waits = new RetryWaits();
  private readonly backoff: BackoffPolicy;
  private readonly follower: PlatformFollower;

  constructor(
    readonly platform: PlatformRef,
    readonly connector: TradePlatformConnector,
    private readonly options: PlatformFeedOptions,
    private readonly lease: PlatformFeedRun = {},
  ) {
    this.backoff = retryBackoff(options.retryDelayMs);
    const { organizationId, id: platformId } = platform;
    this.follower = new PlatformFollower(
      connector,
      {
        position: () => this.lastSequence,
        startFresh: (from) => {
          this.lastSequence = from;
          this.gaps++;
          this.enqueue({ type: "tradeGap", organizationId, platformId, resumedAt: Date.now() }, `gap${this.gaps}`);
        },
        event: (event) => {
          this.lastSequence = event.sequence;
          this.enqueue({ type: "trade", organizationId, platformId, event: event satisfies TradeEvent }, String(event.sequence));
          // The bus is behind (NATS slow or away): stop reading; the connector's journal holds the rest.
          if (this.queue.length >= this.options.maxQueued) return this.publishing;
        },
        resyncing: () => options.log.warn({ platformId, afterSequence: this.lastSequence }, "trade events were missed; publishing a trade gap"),
        retrying: (err, retryInMs) => options.log.warn({ platformId, err, retryInMs }, "trade feed failed; retrying"),
      },
      { retryDelayMs: options.retryDelayMs, recoveredWhen: "eventRead", waits: this.waits },
    );
  }

  get stopped(): boolean {
    return this.follower.stopped;
  }

  status(): FeedStatus {
    return {
      platformId: this.platform.id,
      phase: FEED_PHASES[this.follower.phase],
      lastSequence: this.lastSequence,
      published: this.published,
      gaps: this.gaps,
      lastError: this.follower.lastError,
      ...(this.lease.epoch?.() === undefined ? {} : { epoch: this.lease.epoch()! }),
    };
  }

  /** Start the loop, or cut a retry wait (the follower's or a publish's) short. */
  resume(): void {
    this.follower.resume();
  }

  /** Stops reading; what is queued gets one last attempt to reach the bus. */
  async stop(): Promise<void> {
    await this.follower.stop();
    await this.publishing;
  }

  /**
   * Stops at once, the queue dropped: this node no longer owns the platform's feed (the lease was
   * lost), so nothing more of it may reach the bus. A publish already written cannot be recalled.
   */
  halt(): Promise<void> {
    this.queue = [];
    this.queueIds = [];
    return this.follower.stop();
  }

  /** `id`: what makes the event's message id within the run (its sequence, `gap<n>`). */
  private enqueue(event: DomainEvent, id: string): void {
    this.queue.push(event);
    this.queueIds.push(id);
    if (this.flushPending) return;
    this.flushPending = true;
    // One batch per turn of the event loop: everything the connector delivered in this turn.
    this.publishing = this.publishing.then(() => nextTurn()).then(() => this.publishQueued());
  }

  private async publishQueued(): Promise<void> {
    this.flushPending = false;
    const batch = this.queue;
    const ids = this.queueIds;
    this.queue = [];
    this.queueIds = [];
    if (batch.length === 0) return;
    if (this.lease.ready && !(await this.lease.ready)) {
      void this.halt();
      return;
    }
    const prefix = this.lease.idPrefix?.();
    const withIds = prefix === undefined ? undefined : { ids: ids.map((id) => `${prefix}:${id}`) };
    for (let attempt = 1; ; attempt++) {
      if (this.lease.mayPublish && !this.lease.mayPublish()) {
        this.options.log.warn({ platformId: this.platform.id, events: batch.length }, "trade feed no longer holds the platform's lease; events dropped");
        void this.halt();
        return;
      }
      try {
        await this.options.bus.publish(batch, withIds);
        this.published += batch.length;
        return;
      } catch (error) {
        const err = error instanceof Error ? error.message : String(error);
        if (this.follower.stopped) {
          this.options.log.warn({ platformId: this.platform.id, err, events: batch.length }, "trade feed stopped with events the bus did not take");
          return;
        }
        const delay = backoffDelay(attempt, this.backoff, Math.random);
        this.follower.noteError(`The event bus did not take the trade events: ${err}`);
        this.options.log.warn({ platformId: this.platform.id, err, events: batch.length, retryInMs: delay }, "trade feed cannot publish; retrying");
        await this.waits.wait(delay);
      }
    }
  }
}
