/**
 * Turns the server's numbered native events into the connector's normalized journal, exactly
 * once and in order: duplicates (same server sequence again) are dropped, a jump in the server
 * sequence is filled by asking the server for what was missed, and after a reconnect the same
 * request resumes from the last event applied. All of it runs one step at a time on a promise
 * chain, so a live event and a catch-up can never interleave.
 */
import type { UnsequencedTradeEvent } from "../../../core/trading/index.ts";
import type { EventJournal } from "../events/eventJournal.ts";
import type { NativePacket, PacketBatch } from "./wire.ts";

export interface EventSource<E> {
  readonly openedAtSequence: number;
  eventsSince(sequence: number, limit: number): Promise<PacketBatch<E>>;
}

export class EventIngest<E> {
  /** The last server sequence applied; null until the first session. */
  private cursor: number | null = null;
  private source: EventSource<E> | null = null;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly decode: (event: E) => UnsequencedTradeEvent[],
    private readonly journal: EventJournal,
    private readonly onProtocolError: (error: unknown) => void,
    private readonly batchSize = 1000,
  ) {}

  /** A session opened: start at the server's present the first time, else catch up from where we stopped. */
  attach(source: EventSource<E>): Promise<void> {
    this.source = source;
    return this.enqueue(async () => {
      if (this.cursor === null) this.cursor = source.openedAtSequence;
      await this.catchUp(source);
    });
  }

  detach(): void {
    this.source = null;
  }

  push(source: EventSource<E>, packet: NativePacket<E>): void {
    this.enqueue(async () => {
      if (source !== this.source || this.cursor === null || packet.sequence <= this.cursor) return;
      if (packet.sequence > this.cursor + 1) await this.catchUp(source);
      if (packet.sequence === this.cursor + 1) this.apply(packet);
    }).catch(() => {
      // The link failed while catching up; the next attach resumes from the cursor.
    });
  }

  private async catchUp(source: EventSource<E>): Promise<void> {
    for (;;) {
      const cursor = this.cursor ?? 0;
      const batch = await source.eventsSince(cursor, this.batchSize);
      if (source !== this.source) return;
      if (!batch.complete) {
        this.journal.markGap();
        this.cursor = batch.packets[0] ? batch.packets[0].sequence - 1 : batch.latestSequence;
      }
      for (const packet of batch.packets) if (packet.sequence === (this.cursor ?? 0) + 1) this.apply(packet);
      if (batch.packets.length < this.batchSize) return;
    }
  }

  private apply(packet: NativePacket<E>): void {
    let events: UnsequencedTradeEvent[];
    try {
      events = this.decode(packet.event);
    } catch (error) {
      // A native event we cannot read: consumers must not silently miss it, so they resync.
      this.onProtocolError(error);
      this.journal.markGap();
      this.cursor = packet.sequence;
      return;
    }
    for (const event of events) this.journal.append(event);
    this.cursor = packet.sequence;
  }

  private enqueue(task: () => Promise<void>): Promise<void> {
    const run = this.chain.then(task);
    this.chain = run.catch(() => undefined);
    return run;
  }
}
