/**
 * Follows one connector's trade events for as long as its owner wants them — the one loop every
 * part that keeps up with a platform runs (the trade feed, the accounts mirror; the copier and
 * Flexible Leverage next):
 *  1. subscribe: the first time, and after `resyncRequired`, from now — the owner catches up on
 *     what came before (`startFresh`: the mirror syncs every account, the feed publishes a gap);
 *     otherwise from the owner's `position`, so nothing is missed or repeated;
 *  2. follow: every event goes to the owner (`event`; a promise it returns holds the reading back);
 *  3. a stream that ends (the connector was disconnected on purpose) is done with (`drained`), and
 *     the follower waits for the next `resume`, which continues on the same connector;
 *  4. `resyncRequired` (the connector no longer holds what the owner needs next) goes back to 1,
 *     fresh, at once; any other failure retries from the position after a back-off: doubling from
 *     `retryDelayMs`, jittered by up to half, at most 30 s (../backoff.ts), and back to the first
 *     delay once the follow has recovered (`recoveredWhen`); `resume` cuts the wait short, `stop`
 *     ends it.
 * It lives under connectors/ because it depends on nothing but the connector's interface, its
 * errors and its backoff: the trade feed (events/, which may not import modules/) and the modules
 * can both import it. Its contract with the stream is the one `TradeEventStream` states
 * (../connector.ts).
 */
import type { TradeEvent } from "../../../core/trading/index.ts";
import { backoffDelay, type BackoffPolicy } from "../backoff.ts";
import type { TradeEventStream, TradePlatformConnector } from "../connector.ts";
import { isConnectorError } from "../errors.ts";
import { RetryWaits } from "./retryWaits.ts";

/** `idle`: not started yet; `catchingUp`: subscribed from now, in the owner's `startFresh`. */
export type FollowPhase = "idle" | "catchingUp" | "live" | "waiting" | "retrying" | "stopped";

/** What the owner does with what the stream brings. */
export interface FollowHandler {
  /** The sequence of the last event the owner is done with: a resubscription continues after it. */
  position(): number;
  /**
   * Subscribed from now, after sequence `from`, the first time or after `resyncRequired`: the
   * owner takes `from` as its position and catches up on what came before. Throwing (a failed
   * sync) retries it after the back-off, fresh again.
   */
  startFresh(from: number): void | Promise<unknown>;
  /** Subscribed (and caught up, after a fresh start): the stream's events come next. */
  live?(): void;
  /** An event read; a promise returned holds the next read until it settles (the owner is behind). */
  event(event: TradeEvent): void | Promise<void>;
  /** The stream ended: settles once the owner is done with what it was handed, or throws its failure. */
  drained?(): Promise<void>;
  /** `resyncRequired` was met: the follower subscribes fresh next (for the owner's log). */
  resyncing?(): void;
  /** The follow failed; the retry comes in `retryInMs` (for the owner's log). */
  retrying?(error: string, retryInMs: number): void;
}

export interface FollowerOptions {
  /** First retry delay after a failure; then doubling, jittered, up to 30 s. */
  retryDelayMs: number;
  /**
   * When the back-off starts over and the last error clears: `live`, once subscribed (and caught
   * up: for the mirror, a full sync that worked proves the platform answers); `eventRead`, only
   * once the stream delivers an event (the feed: a subscription alone proves nothing).
   */
  recoveredWhen: "live" | "eventRead";
  /** The waits `resume` and `stop` cut short; an owner that waits for its own retries shares them. */
  waits?: RetryWaits;
  /** For the jitter; Math.random unless a test fixes it. */
  random?: () => number;
}

/** The back-off of a follower and of the retries of its owner. */
export function retryBackoff(retryDelayMs: number): BackoffPolicy {
  return { initialMs: retryDelayMs, maxMs: 30_000, multiplier: 2, jitter: 0.5 };
}

export class PlatformFollower {
  private _phase: FollowPhase = "idle";
  private _stopped = false;
  private _lastError: string | null = null;
  private failures = 0;
  /** The next subscription is from now. */
  private fresh = true;
  private stream: TradeEventStream | null = null;
  private running: Promise<void> | null = null;
  private readonly waits: RetryWaits;
  private readonly backoff: BackoffPolicy;
  private readonly random: () => number;

  constructor(
    private readonly connector: Pick<TradePlatformConnector, "subscribe">,
    private readonly handler: FollowHandler,
    private readonly options: FollowerOptions,
  ) {
    this.waits = options.waits ?? new RetryWaits();
    this.backoff = retryBackoff(options.retryDelayMs);
    this.random = options.random ?? Math.random;
  }

  get phase(): FollowPhase {
    return this._phase;
  }

  get stopped(): boolean {
    return this._stopped;
  }

  /** The failure behind the last retry (or one the owner noted), until the follow recovers. */
  get lastError(): string | null {
    return this._lastError;
  }

  /** The owner failed at its own part (e.g. publishing what it read): shown as the last error until the follow recovers. */
  noteError(message: string): void {
    this._lastError = message;
  }

  /** Start the loop, or cut a retry wait short. */
  resume(): void {
    if (this._stopped) return;
    if (this.running) {
      this.waits.wakeAll();
      return;
    }
    this.running = this.run().finally(() => (this.running = null));
  }

  /** Ends the follow at once (the stream closed, any wait cut short); settles when the loop has. */
  stop(): Promise<void> {
    this._stopped = true;
    this._phase = "stopped";
    this.stream?.close();
    this.waits.wakeAll();
    return this.running ?? Promise.resolve();
  }

  /** Ends the current stream (the owner could not keep up with it): the failure `drained` throws decides what follows. */
  closeStream(): void {
    this.stream?.close();
  }

  private async run(): Promise<void> {
    while (!this._stopped) {
      try {
        if (this.fresh) {
          this.stream = this.connector.subscribe();
          this._phase = "catchingUp";
          const caughtUp = this.handler.startFresh(this.stream.lastSequence);
          if (caughtUp) await caughtUp;
          this.fresh = false;
        } else {
          this.stream = this.connector.subscribe(this.handler.position());
        }
        this._phase = "live";
        if (this.options.recoveredWhen === "live") this.recovered();
        this.handler.live?.();
        await this.follow(this.stream);
        if (this._stopped) return;
        // The connector was disconnected on purpose; the next resume() continues.
        this._phase = "waiting";
        return;
      } catch (error) {
        this.stream?.close();
        this.stream = null;
        if (this._stopped) return;
        if (isConnectorError(error, "resyncRequired")) {
          this.handler.resyncing?.();
          this.fresh = true;
          continue;
        }
        this.failures++;
        this._lastError = error instanceof Error ? error.message : String(error);
        this._phase = "retrying";
        const delay = backoffDelay(this.failures, this.backoff, this.random);
        this.handler.retrying?.(this._lastError, delay);
        await this.waits.wait(delay);
      }
    }
  }

  private async follow(stream: TradeEventStream): Promise<void> {
    const everyEvent = this.options.recoveredWhen === "eventRead";
    for await (const event of stream) {
      if (everyEvent) this.recovered();
      const held = this.handler.event(event);
      if (held) await held;
    }
    if (this.handler.drained) await this.handler.drained();
  }

  private recovered(): void {
    this.failures = 0;
    this._lastError = null;
  }
}
