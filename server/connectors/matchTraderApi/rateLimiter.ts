/**
 * The client side of Match-Trader's 500 requests a minute: at most `limit` requests start within
 * any `windowMs`; the rest wait their turn in order (a queue, not failures). Time comes from the
 * connector's clock.
 *
 * Three lanes share the budget, each served in order, a higher lane first: `high` for what changes
 * the server (an order, a close, a deposit: a copy or a dealer's action must not wait behind bulk
 * reads), `normal` for the rest, `low` for bulk history reads (a restart's backfill of every
 * account's deals and orders, which alone can fill the window for minutes).
 */
import type { Clock, TimerHandle } from "../clock.ts";

export type Priority = "high" | "normal" | "low";

export class RateLimiter {
  private readonly started: number[] = [];
  private readonly lanes: Record<Priority, (() => void)[]> = { high: [], normal: [], low: [] };
  private timer: TimerHandle | null = null;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly clock: Clock,
  ) {}

  /** Requests waiting for a slot. */
  get waiting(): number {
    return this.lanes.high.length + this.lanes.normal.length + this.lanes.low.length;
  }

  /** Resolves when the next request of this lane may start. */
  acquire(priority: Priority = "normal"): Promise<void> {
    return new Promise((resolve) => {
      this.lanes[priority].push(resolve);
      this.pump();
    });
  }

  private next(): (() => void) | undefined {
    return this.lanes.high.shift() ?? this.lanes.normal.shift() ?? this.lanes.low.shift();
  }

  /** The server said 429: count the window as full for `ms` more. */
  backOff(ms: number): void {
    const now = this.clock.now();
    const until = now + ms - this.windowMs;
    while (this.started.length < this.limit) this.started.unshift(until);
    this.started.sort((a, b) => a - b);
  }

  private pump(): void {
    const now = this.clock.now();
    while (this.started.length > 0 && this.started[0]! <= now - this.windowMs) this.started.shift();
    while (this.waiting > 0 && this.started.length < this.limit) {
      this.started.push(now);
      this.next()!();
    }
    if (this.waiting > 0 && !this.timer) {
      const wait = Math.max(1, this.started[0]! + this.windowMs - now);
      this.timer = this.clock.setTimeout(() => {
        this.timer = null;
        this.pump();
      }, wait);
    }
  }

  close(): void {
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }
}
