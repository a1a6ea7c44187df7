/**
 * GET /api/tradesBlotter/stream: the organization's trades, live, as Server-Sent Events over a
 * hijacked reply (like tradePlatforms/live.ts; why SSE: docs/decisions/0042). This file is the
 * module's public face: `blotterStreams(deps, options)`, its types, and what ties the node's
 * streams to the database and to HTTP. Per stream:
 *
 * - scope: the current organization (the bus filter) and its platforms with the Trades Blotter
 *   app assigned, read again every few seconds and when a platform goes away;
 * - filters (core/schemas/blotterLive.ts) run here, before anything is written (./gatherer.ts);
 * - frames: events are gathered for `frameMs` (50 ms) and coalesced per row (a position's many
 *   changes → its last state), then written as one `event: frame` with `id:` = the last bus
 *   sequence handled. `Last-Event-ID` / `?after=` resumes after it with nothing lost (a deal may come again, by key, in decision 0088's case);
 *   when the bus no longer holds what follows (or on a fresh open) an `event: snapshot` (open
 *   positions and recent deals, ./snapshots.ts) comes first and replaces what the client holds;
 * - channels (./channel.ts): the streams of one organization with the same filters share one
 *   channel: one bus subscription, one set of gathered rows, one JSON serialization per frame, the
 *   same bytes (and `id:`) written to every stream in it. A fresh stream joins with a snapshot
 *   (streams waiting at once share one); a resumed one follows the bus on its own from its id and
 *   joins when it reaches the sequence the channel last framed (./connection.ts);
 * - a slow client: what waits for the socket is bounded (written but not yet sent: about a
 *   second of its channel's bytes, within `maxBufferedBytes`..`maxBufferedBytesCap`). Past it the
 *   stream leaves its channel, nothing more is gathered or written for it, and once the socket
 *   drains a snapshot resynchronizes the client and it joins again;
 * - one budget for the node (./nodeBudget.ts: `maxTotalRows` gathered, `maxTotalBytes` unsent,
 *   across every stream): rows past it are framed at once; bytes past it move the slowest streams
 *   to "snapshot once drained" first;
 * - the stream ends when the client goes, the app closes, or the access token expires (the client
 *   reconnects with the renewed token and its last id).
 * How the parts fit: docs/trades-blotter.md; the decisions: docs/decisions/0060 and 0061.
 */
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from "fastify";
import type { BlotterFilters, BlotterPlatform } from "../../../core/schemas/blotterLive.ts";
import type { TradePlatformConnector } from "../../connectors/connector.ts";
import type { Db } from "../../db/client.ts";
import type { EventBus } from "../../events/bus.ts";
import { sseHub } from "../../streams/sse.ts";
import { StreamNode } from "./node.ts";
import { BLOTTER_STREAM_DEFAULTS, type BlotterStreamOptions } from "./options.ts";
import type { BlotterSnapshotSource } from "./snapshotSource.ts";
import { blotterPlatformsOf, groupsOf } from "./streamRepository.ts";

export interface BlotterStreamDeps {
  db: Db;
  bus: EventBus;
  platforms: { connectorFor(organizationId: string, platformId: string): Promise<TradePlatformConnector> };
  log: FastifyBaseLogger;
  /**
   * Read first (the store: it survives restarts and sees every node's trades). Positions fall back
   * to the platform's connector; deals are merged with those this node saw on the bus.
   */
  snapshots?: BlotterSnapshotSource;
}

export interface BlotterStreamStats {
  connections: number;
  /** Frames and snapshots serialized to JSON since the node started (once per channel frame, whatever the number of streams). */
  serialized: number;
  /** Bytes written to the streams' sockets since the node started (what clients receive; SSE is not compressed). */
  bytesWritten: number;
  /** The node's totals against its budget: rows gathered, bytes written and not yet sent. */
  gatheredRows: number;
  /** Every stream's unsent bytes added up: a frame shared by many streams counts once for each. */
  unsentBytes: number;
  /** The buffers the streams' sockets have not taken, each counted once however many streams hold it: what the budget counts. */
  heldBytes: number;
  budget: { rows: number; bytes: number };
  /** Streams moved to "snapshot once drained" because the node's bytes budget was exceeded; streams ended for it. */
  budgetResyncs: number;
  budgetEnds: number;
  /**
   * Per channel: streams in it, streams catching up to join it, rows gathered, frames and snapshots
   * serialized, the bytes a second its frames take and so its streams' bound.
   */
  channels: { members: number; joining: number; pendingRows: number; frames: number; snapshots: number; bytesPerSecond: number; bufferBound: number }[];
  /** Per stream: rows gathered for it alone (catching up), bytes waiting for it, snapshots sent, resynchronizing, in a channel. */
  each: { pendingRows: number; bufferedBytes: number; snapshots: number; dropping: boolean; shared: boolean }[];
}

export interface BlotterStreams {
  open(request: FastifyRequest, reply: FastifyReply, filters: BlotterFilters, after: number | undefined): Promise<void>;
  platformsOf(organizationId: string): Promise<BlotterPlatform[]>;
  stats(): BlotterStreamStats;
  /** Ends every open stream and the node's own subscription (app shutdown). */
  closeAll(): void;
}

export function blotterStreams(deps: BlotterStreamDeps, options: BlotterStreamOptions = {}): BlotterStreams {
  const settings = { ...BLOTTER_STREAM_DEFAULTS, ...options };
  const { db } = deps;
  const hub = sseHub();
  const node = new StreamNode({
    bus: deps.bus,
    log: deps.log,
    settings,
    platforms: deps.platforms,
    platformsOf: (organizationId) => blotterPlatformsOf(db, organizationId),
    groupsOf: (platformId) => groupsOf(db, platformId),
    snapshots: deps.snapshots,
  });

  return {
    async open(request, reply, filters, after) {
      const organizationId = request.organization.id;
      const platforms = await blotterPlatformsOf(db, organizationId);
      const connection = node.connection(organizationId, filters);
      // Heartbeat, token lifetime, losing access, the client going: the hub's (server/streams/sse.ts).
      await connection.start(() => hub.open(request, reply, { heartbeatMs: settings.heartbeatMs }), platforms, after);
    },
    platformsOf: (organizationId) => blotterPlatformsOf(db, organizationId),
    stats: () => node.stats(),
    closeAll: () => node.closeAll(),
  };
}
