/**
 * What the node's blotter streams put on the wire, counted: a frame or snapshot serialized once
 * into bytes that every stream of its channel writes as they are (`serialized` in the stats), and
 * every byte written to a stream's socket (`bytesWritten`).
 */
import type { BlotterRow } from "../../../core/schemas/blotterLive.ts";

/** A frame without rows, only to move the client's last id on, at most this often. */
export const PROGRESS_MS = 1_000;

export class Traffic {
  private serializations = 0;
  private bytes = 0;

  /** Frames and snapshots serialized since the node started (once per channel frame, whatever the number of streams). */
  get serialized(): number {
    return this.serializations;
  }

  /** Bytes written to the streams' sockets since the node started. */
  get bytesWritten(): number {
    return this.bytes;
  }

  /** One JSON serialization, as bytes every stream of a channel writes as they are. */
  frame(event: "frame" | "snapshot", rows: BlotterRow[], seq: number): Buffer {
    this.serializations++;
    return Buffer.from(`id: ${seq}\nevent: ${event}\ndata: ${JSON.stringify({ rows })}\n\n`);
  }

  wrote(bytes: number): void {
    this.bytes += bytes;
  }
}
