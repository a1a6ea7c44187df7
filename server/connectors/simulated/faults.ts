/**
 * Faults a test (or a curious admin in demo mode) can switch on while the server runs: a dropped
 * connection, refusal to reconnect, slow answers, rejected operations, duplicated events.
 */
import type { Random } from "./random.ts";

export class Faults {
  /** Every answer (and connection attempt) waits this long. */
  delayMs = 0;
  /** New connections are refused as if the host were down. */
  refusingConnections = false;
  /** Each live event is delivered twice; connectors must drop the repeat. */
  duplicateEvents = false;
  private rejectCount = 0;
  private rejectShare = 0;

  constructor(
    private readonly random: Random,
    private readonly dropSessions: () => void,
  ) {}

  /** Drops every connection now; with `refuseReconnect`, also refuses new ones until restore(). */
  disconnect(options: { refuseReconnect?: boolean } = {}): void {
    this.refusingConnections = options.refuseReconnect ?? false;
    this.dropSessions();
  }

  slowAnswers(delayMs: number): void {
    this.delayMs = delayMs;
  }

  rejectNext(count: number): void {
    this.rejectCount = count;
  }

  rejectRatio(share: number): void {
    this.rejectShare = share;
  }

  duplicate(on: boolean): void {
    this.duplicateEvents = on;
  }

  restore(): void {
    this.delayMs = 0;
    this.refusingConnections = false;
    this.duplicateEvents = false;
    this.rejectCount = 0;
    this.rejectShare = 0;
  }

  /** Whether the next operation that changes something is refused. */
  takeRejection(): boolean {
    if (this.rejectCount > 0) {
      this.rejectCount--;
      return true;
    }
    return this.rejectShare > 0 && this.random.next() < this.rejectShare;
  }
}
