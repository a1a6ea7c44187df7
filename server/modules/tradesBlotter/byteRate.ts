/**
 * How many bytes a second a blotter channel writes, for the per-stream bound that scales with the
 * rate (channel.ts, docs/decisions/0060). Counted in windows of `windowMs`: the rate is the larger
 * of the last whole window's and the current window's so far (over at least one whole window), so
 * it rises within a frame of a burst and falls back one window after it.
 */
export class ByteRate {
  private windowStart: number;
  private windowBytes = 0;
  private lastRate = 0;

  constructor(
    private readonly windowMs = 1_000,
    private readonly now: () => number = Date.now,
  ) {
    this.windowStart = now();
  }

  add(bytes: number): void {
    this.roll();
    this.windowBytes += bytes;
  }

  /** Bytes a second. */
  perSecond(): number {
    this.roll();
    const current = (this.windowBytes * 1_000) / this.windowMs;
    return Math.max(this.lastRate, current);
  }

  private roll() {
    const now = this.now();
    const elapsed = now - this.windowStart;
    if (elapsed < this.windowMs) return;
    // A window ended: its rate is kept; a pause longer than two windows leaves nothing to keep.
    this.lastRate = elapsed < 2 * this.windowMs ? (this.windowBytes * 1_000) / elapsed : 0;
    this.windowBytes = 0;
    this.windowStart = now;
  }
}

/**
 * One stream's bound on bytes written and not yet taken by its socket: `seconds` of its channel's
 * bytes at the current rate, never over `cap` nor under `floor` (which wins if they cross).
 */
export function streamBound(bytesPerSecond: number, seconds: number, floor: number, cap: number): number {
  return Math.max(floor, Math.min(cap, Math.round(bytesPerSecond * seconds)));
}
