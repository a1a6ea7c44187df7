/**
 * The blotter stream's settings: how long a frame gathers, each stream's bound, the node's budget,
 * what a snapshot holds. Their environment variables: docs/configuration.md; why these values:
 * docs/decisions/0060.
 */

export interface BlotterStreamOptions {
  /** How long events are gathered into one frame; 50 ms. */
  frameMs?: number;
  /**
   * One stream's bound on bytes written and not yet taken by its socket, past which it counts as
   * slow: `maxBufferedSeconds` of its channel's bytes at the current rate, never under
   * `maxBufferedBytes` (512 KiB) nor over `maxBufferedBytesCap` (8 MiB).
   */
  maxBufferedBytes?: number;
  /** How far behind, in seconds of its channel's bytes, a stream may fall before it is resynchronized; 1 s. */
  maxBufferedSeconds?: number;
  /** The most that bound grows to, however high the rate; 8 MiB. */
  maxBufferedBytesCap?: number;
  /** Rows gathered for one frame (a channel's, or a resuming stream's own) before it is written early; 5,000. */
  maxPendingRows?: number;
  /** The node's budget of rows gathered, every stream together: past it the largest frame is written early; 100,000. */
  maxTotalRows?: number;
  /**
   * The node's budget of bytes written and not yet sent, every stream together (a buffer shared by
   * many streams counted once): past it the slowest streams resynchronize; 64 MiB.
   */
  maxTotalBytes?: number;
  /** How often the platforms with the app assigned are read again; 5 s. */
  appsRecheckMs?: number;
  /** Recent deals kept per platform for snapshots; 500. */
  recentDeals?: number;
  /** Open positions in one snapshot at most (the most recent); 20,000. */
  snapshotPositions?: number;
  /**
   * Positions whose latest state this node keeps per platform, from the bus, to lay over the store's
   * in a snapshot (the most recently changed; kept 5 minutes at most); 50,000, the trade history
   * writer's queue bound (TRADE_HISTORY_MAX_QUEUED_EVENTS' default): no node's writer holds more
   * events it has not written.
   */
  recentPositions?: number;
  heartbeatMs?: number;
}

/** Every option set: what the stream's parts read. */
export type BlotterStreamSettings = Required<BlotterStreamOptions>;

export const BLOTTER_STREAM_DEFAULTS: BlotterStreamSettings = {
  frameMs: 50,
  maxBufferedBytes: 512 * 1024,
  maxBufferedSeconds: 1,
  maxBufferedBytesCap: 8 * 1024 * 1024,
  maxPendingRows: 5_000,
  maxTotalRows: 100_000,
  maxTotalBytes: 64 * 1024 * 1024,
  appsRecheckMs: 5_000,
  recentDeals: 500,
  snapshotPositions: 20_000,
  recentPositions: 50_000,
  heartbeatMs: 15_000,
};
