/**
 * The node's budget for its blotter streams, every stream together, and its counters:
 * `maxTotalRows` rows gathered (past it the largest frame gathered anywhere is written at once)
 * and `maxTotalBytes` of buffers the following streams' sockets have not taken, each buffer counted
 * once however many streams hold it (past it the slowest streams resynchronize, and past twice it
 * in stopped streams alone the largest of those end). Why: docs/decisions/0060.
 */
import { Holdings } from "./heldBytes.ts";

/** A frame being gathered somewhere on the node (a channel's, a catching-up stream's, a snapshot read's). */
export interface PendingFrame {
  readonly size: number;
  /** Writes it now. */
  flush(): void;
}

/** A stream as the bytes budget sees it. */
export interface BudgetedStream {
  /** Left its channel, waiting for its socket to drain before a snapshot. */
  readonly dropping: boolean;
  /** Bytes its socket has not taken (its own count; shared buffers in full). */
  unsent(): number;
  /** The buffers its socket has not taken (shared ones are the same objects as other streams'). */
  held(): Iterable<Buffer>;
  /** Stops writing to it: it resynchronizes with a snapshot once its socket drains. */
  slow(): void;
  /** Ends it: the client reconnects with its last id. */
  end(): void;
}

/** Where the budget finds what it bounds, asked afresh each time. */
export interface BudgetedNode {
  frames(): Iterable<PendingFrame>;
  streams(): Iterable<BudgetedStream>;
}

export class NodeBudget {
  private rows = 0;
  private resyncs = 0;
  private ends = 0;

  constructor(
    readonly limits: { rows: number; bytes: number },
    private readonly node: BudgetedNode,
  ) {}

  /** Rows gathered on the node now. */
  get gatheredRows(): number {
    return this.rows;
  }

  /** Streams moved to "snapshot once drained" because the bytes budget was exceeded, since the node started. */
  get budgetResyncs(): number {
    return this.resyncs;
  }

  /** Streams ended for the bytes budget, since the node started. */
  get budgetEnds(): number {
    return this.ends;
  }

  /** Rows gathered (a positive count) or let go of (negative). */
  gathered(rows: number): void {
    this.rows += rows;
  }

  get overRows(): boolean {
    return this.rows > this.limits.rows;
  }

  /** Over the rows budget: the largest frames gathered anywhere are written now. */
  flushLargest(): void {
    while (this.rows > this.limits.rows) {
      let largest: PendingFrame | null = null;
      for (const frame of this.node.frames()) if (!largest || frame.size > largest.size) largest = frame;
      if (!largest || largest.size === 0) return;
      largest.flush();
    }
  }

  /** What every stream's socket has not taken, each buffer once (the stats' `heldBytes`). */
  heldBytes(): number {
    const all = new Holdings();
    for (const s of this.node.streams()) all.add(s.held());
    return all.bytes;
  }

  /**
   * Past the bytes budget (what the following streams' sockets have not taken, each buffer
   * counted once however many of them hold it), the streams that hold the most stop growing first:
   * moved to "snapshot once drained" (what they hold stays until their socket takes it). When what
   * only the streams so stopped hold is more than twice the budget, the largest of them are ended
   * (their clients reconnect with their last id).
   */
  enforceBytes(): void {
    const max = this.limits.bytes;
    const streams = [...this.node.streams()];
    const following = new Holdings();
    const stopped = new Holdings();
    for (const s of streams) (s.dropping ? stopped : following).add(s.held());
    if (following.bytes > max) {
      const slowest = streams.filter((s) => !s.dropping && s.unsent() > 0).sort((a, b) => b.unsent() - a.unsent());
      for (const s of slowest) {
        if (following.bytes <= max) break;
        // Frees only what no other following stream holds: a frame the next-slowest holds too stays counted.
        following.remove(s.held());
        s.slow();
        this.resyncs++;
        if (s.dropping) stopped.add(s.held());
      }
    }
    let stoppedOnly = stopped.bytesNotIn(following);
    if (stoppedOnly <= 2 * max) return;
    const resyncing = [...this.node.streams()].filter((s) => s.dropping).sort((a, b) => b.unsent() - a.unsent());
    for (const s of resyncing) {
      if (stoppedOnly <= 2 * max) break;
      stoppedOnly -= stopped.remove(s.held(), following);
      s.end();
      this.ends++;
    }
  }
}
