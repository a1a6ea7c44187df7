/**
 * A live quotes stream (TradePlatformConnector.quotes): every tick in order, or conflated to the
 * latest quote per symbol when the consumer reads more slowly than ticks arrive. Ticks wait in a
 * buffer between reads; `for await` hands them over as batches, oldest first. A consumer that
 * asked for every tick but falls more than `maxQueued` behind gets the latest per symbol for the
 * rest of that read instead (the buffer never grows without bound); `conflated` counts the ticks
 * a consumer never saw because a newer one of the same symbol replaced them.
 */
import type { Quote } from "../../../core/trading/index.ts";

export type QuoteDelivery = "everyTick" | "latest";

export interface QuoteStreamOptions {
  /** Only these symbols; all of the server's by default. */
  symbols?: readonly string[];
  /** `everyTick` (default) or `latest`: one quote per symbol per read, the newest. */
  delivery?: QuoteDelivery;
  /** Ticks held for a slow `everyTick` consumer before conflating; 10,000 by default. */
  maxQueued?: number;
}

/** Live quotes as batches; `close()` ends it. It ends by itself when the connector is disconnected on purpose. */
export interface QuoteStream extends AsyncIterable<Quote[]> {
  /** Ticks merged into a later one of the same symbol because the consumer was slower. */
  readonly conflated: number;
  close(): void;
}

export const DEFAULT_MAX_QUEUED_QUOTES = 10_000;

/** The buffer behind a QuoteStream; its producer calls `push` with each tick and `end` (or `fail`) once. */
export class QuoteBuffer implements QuoteStream {
  conflated = 0;
  private queue: Quote[] = [];
  private latest = new Map<string, Quote>();
  private ended = false;
  private failure: Error | null = null;
  private waiting: (() => void) | null = null;
  private readonly symbols: ReadonlySet<string> | null;
  private readonly delivery: QuoteDelivery;
  private readonly maxQueued: number;

  constructor(
    options: QuoteStreamOptions,
    private readonly onClose: () => void = () => undefined,
  ) {
    this.symbols = options.symbols ? new Set(options.symbols) : null;
    this.delivery = options.delivery ?? "everyTick";
    this.maxQueued = options.maxQueued ?? DEFAULT_MAX_QUEUED_QUOTES;
  }

  get closed(): boolean {
    return this.ended;
  }

  push(quotes: readonly Quote[]): void {
    if (this.ended) return;
    for (const quote of quotes) {
      if (this.symbols && !this.symbols.has(quote.symbol)) continue;
      if (this.delivery === "latest" || this.queue.length >= this.maxQueued) {
        if (this.latest.has(quote.symbol)) this.conflated++;
        this.latest.set(quote.symbol, quote);
      } else this.queue.push(quote);
    }
    this.wake();
  }

  end(): void {
    this.ended = true;
    this.wake();
  }

  fail(error: Error): void {
    this.failure = error;
    this.end();
  }

  close(): void {
    if (this.ended) return;
    this.end();
    this.onClose();
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.();
  }

  private take(): Quote[] {
    const batch = this.queue;
    this.queue = [];
    if (this.latest.size > 0) {
      // After the queued ticks (everyTick past maxQueued), the newest of each symbol since.
      batch.push(...this.latest.values());
      this.latest = new Map();
    }
    return batch;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Quote[]> {
    try {
      for (;;) {
        if (this.queue.length > 0 || this.latest.size > 0) {
          yield this.take();
          continue;
        }
        if (this.ended) {
          if (this.failure) throw this.failure;
          return;
        }
        await new Promise<void>((resolve) => (this.waiting = resolve));
      }
    } finally {
      this.close();
    }
  }
}
