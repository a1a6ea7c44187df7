/**
 * What the node's blotter streams really hold in memory.
 *
 * A channel's frame is one `Buffer` written to every member's socket, so a socket's
 * `writableLength` counts bytes that many other sockets hold too. Summing those lengths counts a
 * frame once per stream that has not sent it (100 lagging streams on one channel: 100 times the
 * memory they hold). Here each stream keeps the buffers it wrote, in order, until its socket has
 * taken them, and a node's total counts each buffer once, however many streams hold it.
 */

/** The buffers one stream wrote and its socket has not taken yet, oldest first. */
export class WrittenQueue {
  private entries: { buffer: Buffer; end: number }[] = [];
  private head = 0;
  private written = 0;

  push(buffer: Buffer): void {
    this.written += buffer.length;
    this.entries.push({ buffer, end: this.written });
  }

  /**
   * Lets go of what the socket has taken, given what it still holds. Its count also has bytes this
   * queue did not see (chunk framing, heartbeats), so this errs on holding a buffer a little longer;
   * a socket that drains empties the queue.
   */
  settle(unsent: number): void {
    if (unsent <= 0) {
      this.entries = [];
      this.head = 0;
      return;
    }
    const taken = this.written - unsent;
    while (this.head < this.entries.length && this.entries[this.head]!.end <= taken) this.head++;
    if (this.head > 256 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
  }

  *buffers(): IterableIterator<Buffer> {
    for (let i = this.head; i < this.entries.length; i++) yield this.entries[i]!.buffer;
  }
}

/** Distinct buffers held by a set of streams, each counted once. */
export class Holdings {
  private readonly holders = new Map<Buffer, number>();
  private total = 0;

  get bytes(): number {
    return this.total;
  }

  holds(buffer: Buffer): boolean {
    return this.holders.has(buffer);
  }

  add(buffers: Iterable<Buffer>): void {
    for (const buffer of buffers) {
      const count = this.holders.get(buffer) ?? 0;
      if (count === 0) this.total += buffer.length;
      this.holders.set(buffer, count + 1);
    }
  }

  /**
   * Takes a stream's buffers out; returns the bytes no other stream here (nor in `also`) holds:
   * what the stream leaving frees.
   */
  remove(buffers: Iterable<Buffer>, also?: Holdings): number {
    let freed = 0;
    for (const buffer of buffers) {
      const count = this.holders.get(buffer);
      if (count === undefined) continue;
      if (count > 1) {
        this.holders.set(buffer, count - 1);
        continue;
      }
      this.holders.delete(buffer);
      this.total -= buffer.length;
      if (!also?.holds(buffer)) freed += buffer.length;
    }
    return freed;
  }

  /** The bytes of the buffers held here and not in `other`. */
  bytesNotIn(other: Holdings): number {
    let bytes = 0;
    for (const buffer of this.holders.keys()) if (!other.holds(buffer)) bytes += buffer.length;
    return bytes;
  }
}
