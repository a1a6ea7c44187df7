/**
 * One platform's trade events onto the bus (./tradeFeed.ts runs one per connected platform):
 *  1. a connector seen for the first time is followed from now, after a `tradeGap`: whatever
 *     happened on the platform before (while Toolbox was down, or on a previous connection) is
 *     not on the bus, so followers that keep state read it again from the platform;
 *  2. every event read is queued; the queue goes to the bus as one batch per turn of the event
 *     loop, one publish at a time, so the bus sees the connector's order; a publish that fails
 *     (NATS unreachable) is retried with backoff, the stream read further meanwhile up to
 *     `maxQueued` events, then the connector's own journal holds the rest;
 *  3. a stream that ends (the connector was disconnected on purpose) waits for the next
 *     `resume`, which continues from the last sequence read, on the same connector;
 *  4. `resyncRequired` (the connector no longer holds what came next) publishes a `tradeGap`
 *     and continues from now; other failures retry from the last sequence with backoff.
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import type { TradeEvent } from "../../core/trading/index.ts";
import { backoffDelay, type BackoffPolicy } from "../connectors/backoff.ts";
import type { TradePlatformConnector, TradeEventStream } from "../connectors/connector.ts";
import { isConnectorError } from "../connectors/errors.ts";
import type { PlatformRef } from "../modules/tradePlatforms/runtime/types.ts";
import type { EventBus } from "./bus.ts";
import type { DomainEvent } from "./types.ts";

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

export class PlatformFeed {
  stopped = false;
  private phase: FeedPhase = "starting";
  private lastSequence = 0;
  /** Next run starts from now, after a tradeGap. */
  private fresh = true;
  private stream: TradeEventStream | null = null;
  private running: Promise<void> | null = null;
  private failures = 0;
  private lastError: string | null = null;
  private published = 0;
  private gaps = 0;
  private queue: DomainEvent[] = [];
  private queueIds: string[] = [];
  /** A publish of the queue is scheduled (or running) on `publishing`. */
  private flushPending = false;
  /** The chain of publishes, in order; never rejects. */
  private publishing: Promise<void> = Promise.resolve();
  private readonly sleepers = new Set<() => void>();
  private readonly backoff: BackoffPolicy;

  constructor(
    readonly platform: PlatformRef,
    readonly connector: TradePlatformConnector,
    private readonly options: PlatformFeedOptions,
    private readonly lease: PlatformFeedRun = {},
  ) {
    this.backoff = { initialMs: options.retryDelayMs, maxMs: 30_000, multiplier: 2, jitter: 0.5 };
  }

  status(): FeedStatus {
    return {
      platformId: this.platform.id,
      phase: this.phase,
      lastSequence: this.lastSequence,
      published: this.published,
      gaps: this.gaps,
      lastError: this.lastError,
      ...(this.lease.epoch?.() === undefined ? {} : { epoch: this.lease.epoch()! }),
    };
  }

  /** Start the loop, or cut a retry wait short. */
  resume(): void {
    if (this.stopped) return;
    if (this.running) {
      this.wakeSleepers();
      return;
    }
    this.running = this.run().finally(() => (this.running = null));
  }

  /** Stops reading; what is queued gets one last attempt to reach the bus. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.phase = "stopped";
    this.stream?.close();
    this.wakeSleepers();
    await this.running;
    await this.publishing;
  }

  /**
   * Stops at once, the queue dropped: this node no longer owns the platform's feed (the lease was
   * lost), so nothing more of it may reach the bus. A publish already written cannot be recalled.
   */
  halt(): Promise<void> {
    this.stopped = true;
    this.phase = "stopped";
    this.queue = [];
    this.queueIds = [];
    this.stream?.close();
    this.wakeSleepers();
    return this.running ?? Promise.resolve();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        if (this.fresh) {
          this.stream = this.connector.subscribe();
          this.lastSequence = this.stream.lastSequence;
          this.fresh = false;
          this.gaps++;
          this.enqueue(
            { type: "tradeGap", organizationId: this.platform.organizationId, platformId: this.platform.id, resumedAt: Date.now() },
            `gap${this.gaps}`,
          );
        } else {
          this.stream = this.connector.subscribe(this.lastSequence);
        }
        this.phase = "live";
        await this.follow(this.stream);
        if (this.stopped) return;
        // The connector was disconnected on purpose; the next resume() continues.
        this.phase = "waiting";
        return;
      } catch (error) {
        this.stream?.close();
        this.stream = null;
        if (this.stopped) return;
        if (isConnectorError(error, "resyncRequired")) {
          this.options.log.warn({ platformId: this.platform.id, afterSequence: this.lastSequence }, "trade events were missed; publishing a trade gap");
          this.fresh = true;
          continue;
        }
        this.failures++;
        this.lastError = error instanceof Error ? error.message : String(error);
        this.phase = "retrying";
        const delay = backoffDelay(this.failures, this.backoff, Math.random);
        this.options.log.warn({ platformId: this.platform.id, err: this.lastError, retryInMs: delay }, "trade feed failed; retrying");
        await this.sleep(delay);
      }
    }
  }

  private async follow(stream: TradeEventStream): Promise<void> {
    const { organizationId, id: platformId } = this.platform;
    for await (const event of stream) {
      this.lastSequence = event.sequence;
      this.failures = 0;
      this.lastError = null;
      this.enqueue({ type: "trade", organizationId, platformId, event: event satisfies TradeEvent }, String(event.sequence));
      // The bus is behind (NATS slow or away): stop reading; the connector's journal holds the rest.
      if (this.queue.length >= this.options.maxQueued) await this.publishing;
    }
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
        if (this.stopped) {
          this.options.log.warn({ platformId: this.platform.id, err, events: batch.length }, "trade feed stopped with events the bus did not take");
          return;
        }
        const delay = backoffDelay(attempt, this.backoff, Math.random);
        this.lastError = `The event bus did not take the trade events: ${err}`;
        this.options.log.warn({ platformId: this.platform.id, err, events: batch.length, retryInMs: delay }, "trade feed cannot publish; retrying");
        await this.sleep(delay);
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref?.();
      this.sleepers.add(done);
    });
  }

  private wakeSleepers(): void {
    for (const wake of [...this.sleepers]) wake();
  }
}
