/**
 * The server's own numbered log of what happened, one transaction per operation (a position
 * opened with its entry deal and the account's new balance, …). Connections are told about each
 * one as it happens and can ask for everything after a sequence when they come back; a bounded
 * window, like a real server's, so a connector away too long learns it missed some.
 */
import type { RecordedTradeEvent } from "../../wire/codec.ts";

export interface Transaction {
  sequence: number;
  events: RecordedTradeEvent[];
}

export class TransactionLog {
  private held: Transaction[] = [];
  private last = 0;
  private readonly listeners = new Set<(tx: Transaction) => void>();

  constructor(private readonly capacity = 200_000) {}

  get lastSequence(): number {
    return this.last;
  }

  append(events: RecordedTradeEvent[]): Transaction {
    const tx = { sequence: ++this.last, events };
    this.held.push(tx);
    if (this.held.length >= this.capacity * 2) this.held.splice(0, this.held.length - this.capacity);
    for (const listener of this.listeners) listener(tx);
    return tx;
  }

  /** Up to `limit` transactions after `sequence`; `complete` is false when the next one is no longer held. */
  since(sequence: number, limit: number): { transactions: Transaction[]; complete: boolean } {
    const first = this.held[0]?.sequence ?? this.last + 1;
    const start = Math.max(0, sequence + 1 - first);
    return {
      transactions: this.held.slice(start, start + limit),
      complete: sequence + 1 >= first || sequence >= this.last,
    };
  }

  listen(listener: (tx: Transaction) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
