/**
 * Applies a platform's trade events to the mirror as they arrive: `accountChanged` events
 * (settings, balance, credit) are upserts, batched under load (whatever arrived while the last
 * batch was written goes in the next one); position events only mark the account, whose equity
 * and margin the figures refresh re-reads (platforms do not send those as account events).
 */
import type { TradeEvent, TradeEventType } from "../../../../core/trading/index.ts";
import { columnsOf, type AccountColumns } from "./rows.ts";

const POSITION_EVENTS = new Set<TradeEventType>(["positionOpened", "positionModified", "positionClosed"]);
const MAX_EVENT_BATCH = 1000;

export class EventApplier {
  /** The last event written (or skipped as needing no write). */
  lastSequence = 0;
  /** Accounts whose figures moved with a trade since they were last read. */
  readonly dirty = new Set<string>();
  private readonly buffer: TradeEvent[] = [];
  private flushing: Promise<void> | null = null;
  private failure: Error | null = null;
  private stopped = false;

  /**
   * @param write upserts account rows
   * @param onFailure a write failed: the buffered events are dropped, and the stream should end
   *   (the caller resubscribes from `lastSequence`)
   */
  constructor(
    private readonly write: (accounts: AccountColumns[]) => Promise<unknown>,
    private readonly onFailure: () => void,
  ) {}

  push(event: TradeEvent): void {
    this.buffer.push(event);
    this.kick();
  }

  /** Waits for every buffered event to be written; throws the write failure, if any (once). */
  async settled(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.failure) {
      const failure = this.failure;
      this.failure = null;
      throw failure;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    while (this.flushing) await this.flushing;
  }

  private kick(): void {
    if (this.flushing) return;
    this.flushing = this.flush().finally(() => {
      this.flushing = null;
      // An event may have arrived after the last batch was taken but before this ran.
      if (this.buffer.length > 0 && !this.failure && !this.stopped) this.kick();
    });
  }

  private async flush(): Promise<void> {
    try {
      while (this.buffer.length > 0 && !this.stopped) {
        const batch = this.buffer.splice(0, MAX_EVENT_BATCH);
        const changed: AccountColumns[] = [];
        // Per account, whether its figures moved after its last account event in the batch.
        const moved = new Map<string, boolean>();
        for (const event of batch) {
          if (event.type === "accountChanged") {
            changed.push(columnsOf(event.account));
            moved.set(event.login, false);
          } else if (POSITION_EVENTS.has(event.type)) {
            moved.set(event.login, true);
          }
        }
        await this.write(changed);
        // Marked only once the batch is written. A figures refresh reads the platform after taking
        // the mark, and writes only rows older than its read: marked earlier, it could read during
        // this write, find the row newer (this batch's, with figures from before the trade) and
        // leave it so, the mark gone.
        for (const [login, figuresMoved] of moved) {
          if (figuresMoved) this.dirty.add(login);
          else this.dirty.delete(login);
        }
        this.lastSequence = batch[batch.length - 1]!.sequence;
      }
    } catch (error) {
      // Resume from the last applied event: drop what is buffered, let the caller resubscribe.
      this.buffer.length = 0;
      this.failure = error instanceof Error ? error : new Error(String(error));
      this.onFailure();
    }
  }
}
