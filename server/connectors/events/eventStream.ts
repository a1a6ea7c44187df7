/**
 * A consumer's view of the event journal: a cursor and an async iterator. Nothing is queued per
 * stream; a slow consumer just reads further behind, until the journal no longer holds what it
 * needs and the stream throws `resyncRequired`.
 */
import type { TradeEvent } from "../../../core/trading/index.ts";
import type { TradeEventStream } from "../connector.ts";
import type { EventJournal } from "./eventJournal.ts";

export class JournalStream implements TradeEventStream {
  private cursor: number;
  private closed = false;
  private readonly epoch: number;
  private readonly startedFresh: number | null;

  /** `fromSequence` null means "from now on". */
  constructor(
    private readonly journal: EventJournal,
    fromSequence: number | null,
  ) {
    this.cursor = fromSequence ?? journal.lastSequence;
    this.startedFresh = fromSequence === null ? this.cursor : null;
    this.epoch = journal.currentEpoch;
  }

  get lastSequence(): number {
    return this.cursor;
  }

  close(): void {
    this.closed = true;
    this.journal.wake();
  }

  async next(): Promise<IteratorResult<TradeEvent, undefined>> {
    for (;;) {
      if (this.closed || this.journal.currentEpoch !== this.epoch) return { done: true, value: undefined };
      const event = this.journal.next(this.cursor, this.startedFresh);
      if (event) {
        this.cursor = event.sequence;
        return { done: false, value: event };
      }
      await this.journal.changed();
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<TradeEvent, undefined> {
    return {
      next: () => this.next(),
      return: async () => {
        this.close();
        return { done: true, value: undefined };
      },
    };
  }
}
