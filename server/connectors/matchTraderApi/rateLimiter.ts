/**
 * The client side of Match-Trader's 500 requests a minute: at most `limit` requests start within
 * any `windowMs`; the rest wait their turn in order (a queue, not failures). Time comes from the
 * connector's clock.
 */
import type { Clock, TimerHandle } from "../clock.ts";

export class RateLimiter {
  private readonly started: number[] = [];
  private readonly queue: (() => void)[] = [];
  private timer: TimerHandle | null = null;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly clock: Clock,
  ) {}

  /** Requests waiting for a slot. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Resolves when the next request may start. */
  acquire(): Promise<void> {
    return new Promise((resolve) => {
      this.queue.push(resolve);
      this.pump();
    });
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
    while (this.queue.length > 0 && this.started.length < this.limit) {
      this.started.push(now);
      this.queue.shift()!();
    }
    if (this.queue.length > 0 && !this.timer) {
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
