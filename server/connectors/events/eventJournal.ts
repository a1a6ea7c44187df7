/**
 * The connector's numbered record of normalized trade events: it gives each event the next
 * sequence, keeps the most recent ones so a consumer can resume from the last sequence it saw,
 * and wakes the streams reading it. Bounded, so a forgotten subscriber cannot grow memory.
 */
import type { TradeEvent, UnsequencedTradeEvent } from "../../../core/trading/index.ts";
import { connectorErrors } from "../errors.ts";

export const DEFAULT_RETAINED_EVENTS = 100_000;

export class EventJournal {
  private events: TradeEvent[] = [];
  /** Sequence of events[0]. */
  private firstHeld = 1;
  private last = 0;
  /** Sequences after which events were lost upstream; a reader may not step over one. */
  private gaps = new Set<number>();
  private waiters: (() => void)[] = [];
  /** Bumped when streams must end (the connector was disconnected on purpose). */
  private epoch = 0;

  constructor(private readonly capacity = DEFAULT_RETAINED_EVENTS) {}

  get lastSequence(): number {
    return this.last;
  }

  get currentEpoch(): number {
    return this.epoch;
  }

  append(event: UnsequencedTradeEvent): TradeEvent {
    const sequenced = { ...event, sequence: ++this.last };
    this.events.push(sequenced);
    // Trim in chunks so appends stay O(1) amortized.
    if (this.events.length >= this.capacity * 2) {
      const drop = this.events.length - this.capacity;
      this.events.splice(0, drop);
      this.firstHeld += drop;
    }
    this.wake();
    return sequenced;
  }

  /** Events were lost between the last one and the next: readers behind this point must resync. */
  markGap(): void {
    this.gaps.add(this.last);
    this.wake();
  }

  /** Checks that reading can continue after `sequence`; throws `resyncRequired` if not. */
  assertResumable(sequence: number): void {
    if (sequence > this.last || sequence < this.firstHeld - 1) throw connectorErrors.resyncRequired(sequence);
  }

  /**
   * The event after `sequence`, or null when there is none yet. `startedFresh` is the sequence a
   * "from now on" stream started at: a gap right there is before its time and does not concern it.
   */
  next(sequence: number, startedFresh: number | null = null): TradeEvent | null {
    if (sequence >= this.last) return null;
    if ((this.gaps.has(sequence) && sequence !== startedFresh) || sequence < this.firstHeld - 1) throw connectorErrors.resyncRequired(sequence);
    return this.events[sequence + 1 - this.firstHeld] ?? null;
  }

  /** Resolves on the next append, gap or end. */
  changed(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  endStreams(): void {
    this.epoch++;
    this.wake();
  }

  wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}
