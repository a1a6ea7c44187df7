/**
 * GET /api/tradesBlotter/stream: the organization's trades, live, as Server-Sent Events over a
 * hijacked reply (like tradePlatforms/live.ts; why SSE: docs/decisions/0042). Per stream:
 *
 * - scope: the current organization (the bus filter) and its platforms with the Trades Blotter
 *   app assigned, read again every few seconds and when a platform goes away;
 * - filters (core/schemas/blotterLive.ts) run here, before anything is written;
 * - frames: events are gathered for `frameMs` (50 ms) and coalesced per row (a position's many
 *   changes → its last state), then written as one `event: frame` with `id:` = the last bus
 *   sequence handled. `Last-Event-ID` / `?after=` resumes after it with nothing lost or repeated;
 *   when the bus no longer holds what follows (or on a fresh open) an `event: snapshot` (open
 *   positions and recent deals) comes first and replaces what the client holds;
 * - channels (docs/decisions/0048): the streams of one organization with the same filters share
 *   one channel: one bus subscription, one set of gathered rows, one JSON serialization per frame,
 *   the same bytes (and `id:`) written to every stream in it. A fresh stream joins with a snapshot
 *   (streams waiting at once share one); a resumed one follows the bus on its own from its id and
 *   joins when it reaches the sequence the channel last framed;
 * - a slow client: what waits for the socket is bounded (written but not yet sent: about a
 *   second of its channel's bytes, within `maxBufferedBytes`..`maxBufferedBytesCap`). Past it the
 *   stream leaves its channel, nothing more is gathered or written for it, and once the socket
 *   drains a snapshot resynchronizes the client and it joins again;
 * - one budget for the node (`maxTotalRows` gathered, `maxTotalBytes` unsent, across every
 *   stream): rows past it are framed at once; bytes past it move the slowest streams to
 *   "snapshot once drained" first;
 * - the stream ends when the client goes, the app closes, or the access token expires (the client
 *   reconnects with the renewed token and its last id).
 * Batching and coalescing design: docs/decisions/0043.
 */
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from "fastify";
import {
  blotterRowFilter,
  dealRow,
  positionRow,
  rowOfTradeEvent,
  type BlotterFilters,
  type BlotterLookups,
  type BlotterPlatform,
  type BlotterRow,
} from "../../../core/schemas/blotterLive.ts";
import type { Deal } from "../../../core/trading/deal.ts";
import type { Position } from "../../../core/trading/position.ts";
import type { TradeEvent } from "../../../core/trading/events.ts";
import type { TradePlatformConnector } from "../../connectors/connector.ts";
import type { Db } from "../../db/client.ts";
import type { EventBus } from "../../events/bus.ts";
import type { BusFilter, BusMessage, BusSubscription, DomainEvent } from "../../events/types.ts";
import { sseHub, type SseStream } from "../../http/sse.ts";
import { ByteRate, streamBound } from "./byteRate.ts";
import { Holdings, WrittenQueue } from "./heldBytes.ts";
import { blotterPlatformsOf, groupsOf } from "./streamRepository.ts";

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

/**
 * Where a snapshot's open positions and recent deals come from besides this node (the trade
 * history store: tradeHistory/snapshotSource.ts). null: not known there, ask the node.
 */
export interface BlotterSnapshotSource {
  openPositions(organizationId: string, platformId: string, limit: number): Promise<Position[] | null>;
  recentDeals(organizationId: string, platformId: string, limit: number): Promise<Deal[] | null>;
  /**
   * A `tradeGap` of the platform came (this node's stream saw it on the bus, before it asks for the
   * snapshot the gap brings): the snapshots after it should hold what the platform did meanwhile,
   * which a pass of whichever node's store the gap went to reads from the platform.
   */
  gap?(platformId: string, resumedAt: number): void;
}

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

export const BLOTTER_STREAM_DEFAULTS: Required<BlotterStreamOptions> = {
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
/** How long the node keeps a position's latest state from the bus, at most. */
const RECENT_POSITION_MS = 5 * 60_000;
/** Symbols are read from the platform again after this long (contract sizes rarely change). */
const FACTS_TTL_MS = 10 * 60_000;
/** A frame without rows, only to move the client's last id on, at most this often. */
const PROGRESS_MS = 1_000;

interface PlatformFacts {
  groups: Map<string, string>;
  contractSizes: Map<string, number>;
  loadedAt: number;
  symbolsLoaded: boolean;
}

/** What a channel and the streams catching up to it filter on. */
interface Scope {
  organizationId: string;
  platforms: Map<string, BlotterPlatform>;
  matches: (row: BlotterRow) => boolean;
}

/** The key of a channel: the organization and the filters, written the same way whatever their order. */
function channelKey(organizationId: string, filters: BlotterFilters): string {
  const entries = Object.entries(filters)
    .filter(([, v]) => v !== undefined && v !== "" && !(Array.isArray(v) && v.length === 0))
    .map(([k, v]) => [k, Array.isArray(v) ? [...v].sort() : v] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${organizationId} ${JSON.stringify(entries)}`;
}

const channelFilter = (organizationId: string): BusFilter<"trade" | "tradeGap" | "platformRemoved"> => ({
  types: ["trade", "tradeGap", "platformRemoved"],
  organizationId,
});

export function blotterStreams(deps: BlotterStreamDeps, options: BlotterStreamOptions = {}): BlotterStreams {
  const o = { ...BLOTTER_STREAM_DEFAULTS, ...options };
  const { db, bus, log } = deps;
  const open = new Set<Connection>();
  const hub = sseHub();
  const channels = new Set<Channel>();
  const channelsByKey = new Map<string, Channel>();
  let gatheredRows = 0;
  let serialized = 0;
  let bytesWritten = 0;
  let budgetResyncs = 0;
  let budgetEnds = 0;
  let ticker: ReturnType<typeof setInterval> | null = null;

  // What this node knows beyond the events: groups (mirror, then accountChanged), contract sizes, recent deals.
  const facts = new Map<string, PlatformFacts>();
  const loading = new Map<string, Promise<PlatformFacts>>();
  const recent = new Map<string, Deal[]>();
  /**
   * Per platform, each recently changed position's latest state as this node saw it on the bus
   * (null: closed), least recently changed first. A snapshot's open positions read from the store
   * lack what the writers hold and have not written yet (seconds under a flood): this node's, and
   * on several nodes the others', which share the bus's events (one durable consumer). This node
   * saw all those events. Each entry is the newest state of its position, so laying them over the
   * store's never sets one back.
   */
  const touched = new Map<string, Map<string, { position: Position | null; at: number }>>();
  const nodeSubscription = bus.subscribe({ types: ["trade", "platformRemoved"] }, (message) => {
    const event = message.event;
    if (event.type === "platformRemoved") {
      facts.delete(event.platformId);
      recent.delete(event.platformId);
      touched.delete(event.platformId);
      return;
    }
    const trade = event.event;
    if (trade.type === "accountChanged") facts.get(event.platformId)?.groups.set(trade.account.login, trade.account.group);
    if (trade.type === "dealAdded") {
      const list = recent.get(event.platformId) ?? [];
      list.push(trade.deal);
      if (list.length > o.recentDeals * 2) list.splice(0, list.length - o.recentDeals);
      recent.set(event.platformId, list);
    }
    if (trade.type === "positionOpened" || trade.type === "positionModified" || trade.type === "positionClosed") {
      let positions = touched.get(event.platformId);
      if (!positions) touched.set(event.platformId, (positions = new Map<string, { position: Position | null; at: number }>()));
      const now = Date.now();
      // Deleted first, so that the map's order stays the order of the latest changes.
      positions.delete(trade.position.id);
      positions.set(trade.position.id, { position: trade.type === "positionClosed" ? null : trade.position, at: now });
      for (const [id, entry] of positions) {
        if (positions.size <= o.recentPositions && now - entry.at < RECENT_POSITION_MS) break;
        positions.delete(id);
      }
    }
  });

  /** The store's open positions with this node's latest states of the positions changed lately laid over. */
  const withRecentChanges = (platformId: string, stored: Position[]): Position[] => {
    const changed = touched.get(platformId);
    if (!changed || changed.size === 0) return stored;
    const open = new Map(stored.map((p) => [p.id, p]));
    const since = Date.now() - RECENT_POSITION_MS;
    for (const [id, { position, at }] of changed) {
      // A quiet platform's are not dropped as they age (nothing comes to drop them): skipped here.
      if (at < since) continue;
      if (position) open.set(id, position);
      else open.delete(id);
    }
    return [...open.values()];
  };

  const snapshots = {
    async openPositions(organizationId: string, platformId: string): Promise<Position[]> {
      const stored = await deps.snapshots?.openPositions(organizationId, platformId, o.snapshotPositions);
      if (stored) return withRecentChanges(platformId, stored);
      const connector = await deps.platforms.connectorFor(organizationId, platformId);
      return connector.openPositions();
    },
    /** The store's and this node's, one per deal id, the newest `recentDeals` in time order. */
    async recentDeals(organizationId: string, platformId: string): Promise<Deal[]> {
      const seen = recent.get(platformId) ?? [];
      const stored = (await deps.snapshots?.recentDeals(organizationId, platformId, o.recentDeals)) ?? [];
      if (stored.length === 0) return seen.slice(-o.recentDeals);
      const byId = new Map(stored.map((d) => [d.id, d]));
      for (const d of seen) byId.set(d.id, d);
      return [...byId.values()].sort((a, b) => a.time - b.time).slice(-o.recentDeals);
    },
  };

  async function loadFacts(organizationId: string, platformId: string): Promise<PlatformFacts> {
    const known = facts.get(platformId);
    if (known && known.symbolsLoaded && Date.now() - known.loadedAt < FACTS_TTL_MS) return known;
    const pending = loading.get(platformId);
    if (pending) return pending;
    const load = (async () => {
      const groups = await groupsOf(db, platformId);
      const contractSizes = new Map<string, number>();
      let symbolsLoaded = false;
      try {
        const connector = await deps.platforms.connectorFor(organizationId, platformId);
        for (const s of await connector.listSymbols()) contractSizes.set(s.name, s.contractSize);
        symbolsLoaded = true;
      } catch {
        // Not connected now: notional exposure waits for the next read.
      }
      const loaded: PlatformFacts = { groups, contractSizes, loadedAt: Date.now(), symbolsLoaded };
      // Groups that changed while the mirror was read are newer than what it returned.
      for (const [login, group] of known?.groups ?? []) if (!groups.has(login)) groups.set(login, group);
      facts.set(platformId, loaded);
      return loaded;
    })().finally(() => loading.delete(platformId));
    loading.set(platformId, load);
    return load;
  }

  const lookupsOf = (platformId: string): BlotterLookups => {
    const f = facts.get(platformId);
    return {
      group: (login) => f?.groups.get(login) ?? "",
      contractSize: (symbol) => (symbol === null ? null : (f?.contractSizes.get(symbol) ?? null)),
    };
  };

  /** One JSON serialization, as bytes every stream of a channel writes as they are. */
  function frameBytes(event: "frame" | "snapshot", rows: BlotterRow[], seq: number): Buffer {
    serialized++;
    return Buffer.from(`id: ${seq}\nevent: ${event}\ndata: ${JSON.stringify({ rows })}\n\n`);
  }

  /** Open positions and recent deals of every platform in scope, filtered. */
  async function snapshotRows(scope: Scope): Promise<BlotterRow[]> {
    const rows: BlotterRow[] = [];
    const positions: BlotterRow[] = [];
    await Promise.all(
      [...scope.platforms.keys()].map(async (platformId) => {
        const lookups = lookupsOf(platformId);
        const [open, deals] = await Promise.all([
          snapshots.openPositions(scope.organizationId, platformId).catch((): Position[] => []),
          snapshots.recentDeals(scope.organizationId, platformId).catch((): Deal[] => []),
        ]);
        for (const p of open) {
          const row = positionRow(platformId, p, lookups);
          if (scope.matches(row)) positions.push(row);
        }
        for (const d of deals) {
          const row = dealRow(platformId, d, lookups);
          if (scope.matches(row)) rows.push(row);
        }
      }),
    );
    positions.sort((a, b) => b.time - a.time);
    rows.push(...positions.slice(0, o.snapshotPositions));
    rows.sort((a, b) => a.time - b.time);
    return rows;
  }

  /** Rows gathered for one frame, coalesced per row key; counted in the node's budget. */
  class Gatherer {
    private rows = new Map<string, BlotterRow>();
    /** With `dealLimit`: the deals' keys, oldest change first. */
    private deals = new Set<string>();
    /** Deals left out for `dealLimit` since the last take. */
    droppedDeals = false;

    constructor(
      private readonly scope: Scope,
      /** Writes the frame now (its own bound, or the node's, is reached). */
      private readonly flushNow: () => void,
      private readonly bound = o.maxPendingRows,
      /** Keeps only this many deals, the newest (a snapshot's rows of the events handled while it is read). */
      private readonly dealLimit = Number.POSITIVE_INFINITY,
    ) {}

    get size(): number {
      return this.rows.size;
    }

    add(platformId: string, trade: TradeEvent) {
      const row = rowOfTradeEvent(platformId, trade, lookupsOf(platformId));
      if (row === null || !this.scope.matches(row)) return;
      // Coalesced per row; re-inserted so that a frame lists rows in the order they last changed.
      if (!this.rows.delete(row.key)) gatheredRows++;
      this.rows.set(row.key, row);
      if (row.kind === "deal" && this.dealLimit !== Number.POSITIVE_INFINITY) this.keepNewestDeals(row.key);
      if (this.rows.size >= this.bound) this.flushNow();
      else if (gatheredRows > o.maxTotalRows) flushLargest();
    }

    private keepNewestDeals(key: string) {
      this.deals.delete(key);
      this.deals.add(key);
      if (this.deals.size <= this.dealLimit) return;
      const oldest = this.deals.values().next().value as string;
      this.deals.delete(oldest);
      this.rows.delete(oldest);
      gatheredRows--;
      this.droppedDeals = true;
    }

    overflow() {
      this.flushNow();
    }

    take(): BlotterRow[] {
      const rows = [...this.rows.values()];
      this.clear();
      return rows;
    }

    clear() {
      gatheredRows -= this.rows.size;
      this.rows = new Map();
      this.deals = new Set();
      this.droppedDeals = false;
    }
  }

  /** Over the node's rows budget: the largest frames gathered anywhere are written now. */
  function flushLargest() {
    while (gatheredRows > o.maxTotalRows) {
      let largest: { size: number; flush: () => void } | null = null;
      for (const c of channels) {
        if (!largest || c.gatherer.size > largest.size) largest = { size: c.gatherer.size, flush: () => c.flush() };
        const reading = c.readingRows();
        if (reading && reading.size > largest.size) largest = { size: reading.size, flush: () => reading.overflow() };
      }
      for (const c of open) {
        const size = c.soloRows();
        if (size > 0 && (!largest || size > largest.size)) largest = { size, flush: () => c.flushSolo() };
      }
      if (!largest || largest.size === 0) return;
      largest.flush();
    }
  }

  /**
   * The streams of one organization with the same filters: one bus subscription, one gatherer,
   * one serialization per frame, written as the same bytes to each member.
   */
  class Channel implements Scope {
    readonly members = new Set<Connection>();
    /** Resumed streams following the bus on their own until they reach `flushedSeq`. */
    readonly joining = new Set<Connection>();
    platforms: Map<string, BlotterPlatform>;
    readonly matches: (row: BlotterRow) => boolean;
    readonly gatherer: Gatherer;
    /** The last bus sequence handled; the last one framed (every member has had everything up to it); the last one a frame told. */
    lastSeq: number;
    flushedSeq: number;
    private toldSeq: number;
    /** The sequence after which this channel saw a gap (or a platform join): a stream resumed from before it needs a snapshot. */
    gapSeq = 0;
    private lastWriteAt = Date.now();
    frames = 0;
    snapshots = 0;
    /** The bytes a second its frames take, which sets its streams' bound. */
    private readonly rate = new ByteRate();
    private readonly waiting = new Set<Connection>();
    private readingSnapshot = false;
    /** While a snapshot is read: the rows of the events handled meanwhile, which complete it. */
    private readRows: Gatherer | null = null;
    private readonly subscription: BusSubscription;
    private readonly recheck: ReturnType<typeof setInterval>;
    private closed = false;

    constructor(
      private key: string | null,
      readonly organizationId: string,
      filters: BlotterFilters,
      platforms: BlotterPlatform[],
    ) {
      this.platforms = new Map(platforms.map((p) => [p.id, p]));
      this.matches = blotterRowFilter(filters);
      this.gatherer = new Gatherer(this, () => this.flush());
      this.subscription = bus.subscribe(channelFilter(organizationId), this.onMessage);
      this.lastSeq = this.flushedSeq = this.toldSeq = this.subscription.lastSeq;
      this.recheck = setInterval(() => void this.recheckPlatforms(), o.appsRecheckMs);
      channels.add(this);
      if (key !== null) channelsByKey.set(key, this);
    }

    private readonly onMessage = (message: BusMessage<DomainEvent>) => {
      this.lastSeq = message.seq;
      const event = message.event;
      if (!this.platforms.has(event.platformId)) return;
      if (event.type === "platformRemoved") {
        this.platforms.delete(event.platformId);
        this.tellPlatforms();
      } else if (event.type === "tradeGap") {
        this.gapSeq = message.seq;
        deps.snapshots?.gap?.(event.platformId, event.resumedAt);
        for (const c of [...this.members]) this.requestSnapshot(c);
      } else if (event.type === "trade") {
        this.gatherer.add(event.platformId, event.event);
        this.readRows?.add(event.platformId, event.event);
      }
    };

    /** A frame of what was gathered (or an empty one now and then to move the id on), the same bytes for every member. */
    flush() {
      if (this.closed) return;
      const seq = this.lastSeq;
      let frame: Buffer | null = null;
      if (this.gatherer.size > 0) frame = frameBytes("frame", this.gatherer.take(), seq);
      else if (seq > this.toldSeq && Date.now() - this.lastWriteAt >= PROGRESS_MS) frame = frameBytes("frame", [], seq);
      this.flushedSeq = seq;
      if (frame) {
        this.frames++;
        this.rate.add(frame.length);
        this.toldSeq = seq;
        this.lastWriteAt = Date.now();
        for (const c of [...this.members]) c.send(frame);
      }
      for (const c of [...this.joining]) if (c.soloSeq() === seq) c.join();
    }

    readingRows(): Gatherer | null {
      return this.readRows;
    }

    /** What one of its streams may have written and not yet sent before it counts as slow. */
    bufferBound(): number {
      return streamBound(this.rate.perSecond(), o.maxBufferedSeconds, o.maxBufferedBytes, o.maxBufferedBytesCap);
    }

    tick() {
      this.flush();
      if (this.waiting.size > 0) void this.readSnapshots();
    }

    addMember(c: Connection, snapshot: boolean) {
      this.members.add(c);
      if (snapshot) this.requestSnapshot(c);
    }

    /** The member gets a snapshot; the channel's frames until then are covered by it, the ones after follow it. */
    requestSnapshot(c: Connection) {
      c.awaitingSnapshot = true;
      this.waiting.add(c);
      void this.readSnapshots();
    }

    /**
     * One read and one serialization for every member waiting at once: the open positions and
     * recent deals read from the store, completed with the rows of the events the channel handled
     * while it was read, with `id:` = the sequence framed when it is written (frames after it follow).
     */
    private async readSnapshots() {
      if (this.readingSnapshot) return;
      this.readingSnapshot = true;
      try {
        while (this.waiting.size > 0 && !this.closed) {
          const batch = [...this.waiting];
          this.waiting.clear();
          let overflowed = false;
          // The deals that arrive while it is read: the newest `maxPendingRows`. Under a sustained
          // rate a slow read (the store settling its writes) would otherwise overflow and read again
          // forever, and the stream would get nothing; a snapshot holds recent deals, not every deal.
          const meanwhile = new Gatherer(
            this,
            () => {
              // More positions changed while it was read than the node's budget allows: read again.
              overflowed = true;
              meanwhile.clear();
            },
            o.maxTotalRows,
            o.maxPendingRows,
          );
          this.readRows = meanwhile;
          let rows: BlotterRow[];
          try {
            rows = await snapshotRows(this);
          } catch (err) {
            log.warn({ err, organizationId: this.organizationId }, "blotter snapshot failed");
            // Tried again on the next frame.
            for (const c of batch) if (this.members.has(c)) this.waiting.add(c);
            return;
          } finally {
            this.readRows = null;
          }
          // Deals were left out: the store's (older still) go too, so the snapshot's deals have no gap.
          const droppedDeals = meanwhile.droppedDeals;
          const caught = meanwhile.take();
          if (overflowed) {
            for (const c of batch) if (this.members.has(c)) this.waiting.add(c);
            continue;
          }
          const merged = new Map((droppedDeals ? rows.filter((r) => r.kind !== "deal") : rows).map((r) => [r.key, r]));
          for (const r of caught) {
            merged.delete(r.key);
            merged.set(r.key, r);
          }
          const bytes = frameBytes("snapshot", [...merged.values()], this.flushedSeq);
          this.snapshots++;
          for (const c of batch) if (this.members.has(c) && c.awaitingSnapshot) c.snapshotDone(bytes);
        }
      } finally {
        this.readingSnapshot = false;
      }
    }

    leave(c: Connection) {
      this.members.delete(c);
      this.joining.delete(c);
      this.waiting.delete(c);
      if (this.members.size === 0 && this.joining.size === 0) this.close();
    }

    private async recheckPlatforms() {
      if (this.closed) return;
      try {
        const now = await blotterPlatformsOf(db, this.organizationId);
        await Promise.all(now.filter((p) => !this.platforms.has(p.id)).map((p) => loadFacts(this.organizationId, p.id)));
        this.setPlatforms(now);
      } catch (err) {
        log.warn({ err, organizationId: this.organizationId }, "blotter platforms recheck failed");
      }
    }

    /** The organization's blotter platforms now (their facts loaded): told to every stream; a platform that joins brings a snapshot. */
    setPlatforms(now: BlotterPlatform[]) {
      if (this.closed) return;
      const same = now.length === this.platforms.size && now.every((p) => this.platforms.get(p.id)?.name === p.name);
      if (same) return;
      const added = now.some((p) => !this.platforms.has(p.id));
      this.platforms = new Map(now.map((p) => [p.id, p]));
      this.tellPlatforms();
      if (!added) return;
      this.gapSeq = this.lastSeq;
      for (const c of [...this.members]) this.requestSnapshot(c);
      for (const c of [...this.joining]) c.toSnapshot();
    }

    platformList(): BlotterPlatform[] {
      return [...this.platforms.values()];
    }

    private tellPlatforms() {
      const list = this.platformList();
      for (const c of [...this.members, ...this.joining]) c.write("platforms", list);
    }

    stats() {
      return {
        members: this.members.size,
        joining: this.joining.size,
        pendingRows: this.gatherer.size,
        frames: this.frames,
        snapshots: this.snapshots,
        bytesPerSecond: Math.round(this.rate.perSecond()),
        bufferBound: this.bufferBound(),
      };
    }

    close() {
      if (this.closed) return;
      this.closed = true;
      this.subscription.close();
      clearInterval(this.recheck);
      this.gatherer.clear();
      channels.delete(this);
      if (this.key !== null && channelsByKey.get(this.key) === this) channelsByKey.delete(this.key);
      this.key = null;
    }
  }

  function channelFor(organizationId: string, filters: BlotterFilters, key: string, platforms: BlotterPlatform[]): Channel {
    return channelsByKey.get(key) ?? new Channel(key, organizationId, filters, platforms);
  }

  interface Solo {
    gatherer: Gatherer;
    /** The last bus sequence handled; the last one its own frames told. */
    seq: number;
    toldSeq: number;
    lastWriteAt: number;
    subscription: BusSubscription | null;
    gapped: boolean;
    done: boolean;
  }

  class Connection {
    private readonly res: FastifyReply["raw"];
    private readonly key: string;
    private channel: Channel | null = null;
    private platformList: BlotterPlatform[] = [];
    /** solo: catching up from its id on its own; member: in its channel; dropping: waits for its socket to drain. */
    private state: "opening" | "solo" | "member" | "dropping" | "closed" = "opening";
    private solo: Solo | null = null;
    /** A member whose snapshot is being read: its channel's frames until then are covered by the snapshot. */
    awaitingSnapshot = false;
    snapshotsSent = 0;
    private stream: SseStream | null = null;
    /** What was written and the socket has not taken, by buffer: frames and snapshots shared with other streams are the same buffers. */
    private readonly written = new WrittenQueue();

    constructor(
      private readonly request: FastifyRequest,
      reply: FastifyReply,
      private readonly organizationId: string,
      private readonly filters: BlotterFilters,
    ) {
      this.res = reply.raw;
      this.key = channelKey(organizationId, filters);
    }

    async start(reply: FastifyReply, platforms: BlotterPlatform[], after: number | undefined) {
      await Promise.all(platforms.map((p) => loadFacts(this.organizationId, p.id)));

      // Heartbeat, token lifetime, losing access, the client going: the hub's (server/http/sse.ts).
      this.stream = hub.open(this.request, reply, { heartbeatMs: o.heartbeatMs });
      this.stream.onClose(this.close);

      const channel = channelFor(this.organizationId, this.filters, this.key, platforms);
      // Read just now: the channel (and its other streams) learn of a change at once.
      channel.setPlatforms(platforms);
      this.channel = channel;
      this.platformList = channel.platformList();
      this.write("platforms", this.platformList);
      open.add(this);
      ticker ??= setInterval(tick, o.frameMs);
      this.res.on("drain", () => {
        if (this.state === "dropping") this.rejoin();
      });

      // A fresh open starts from a snapshot; a resume at the channel's framed sequence joins it as is; another resume catches up first.
      if (after === undefined) this.becomeMember(channel, true);
      else if (after === channel.flushedSeq && after >= channel.gapSeq) this.becomeMember(channel, false);
      else this.startSolo(channel, after);
    }

    private becomeMember(channel: Channel, snapshot: boolean) {
      this.state = "member";
      this.awaitingSnapshot = false;
      channel.addMember(this, snapshot);
    }

    /** Follows the bus from `after` on its own, framing for itself, until it reaches what its channel framed. */
    private startSolo(channel: Channel, after: number) {
      this.state = "solo";
      channel.joining.add(this);
      const solo: Solo = {
        gatherer: new Gatherer(channel, () => this.flushSolo()),
        seq: after,
        toldSeq: after,
        lastWriteAt: Date.now(),
        subscription: null,
        gapped: false,
        done: false,
      };
      this.solo = solo;
      const subscription = bus.subscribe(channelFilter(this.organizationId), (message) => this.onSoloMessage(solo, message), {
        after,
        onGap: () => {
          solo.gapped = true;
          if (solo.subscription !== null && this.solo === solo) this.toSnapshot();
        },
      });
      solo.subscription = subscription;
      if (solo.done) subscription.close();
      else if (solo.gapped) this.toSnapshot();
      else if (solo.seq === channel.flushedSeq) this.join();
    }

    private onSoloMessage(solo: Solo, message: BusMessage<DomainEvent>) {
      if (solo.done || solo.gapped || this.solo !== solo) return;
      const channel = this.channel!;
      solo.seq = message.seq;
      const event = message.event;
      if (channel.platforms.has(event.platformId)) {
        if (event.type === "tradeGap") {
          deps.snapshots?.gap?.(event.platformId, event.resumedAt);
          this.toSnapshot();
          return;
        }
        if (event.type === "trade") solo.gatherer.add(event.platformId, event.event);
      }
      if (this.solo === solo && solo.seq === channel.flushedSeq) this.join();
    }

    soloSeq(): number | undefined {
      return this.solo?.seq;
    }

    soloRows(): number {
      return this.solo?.gatherer.size ?? 0;
    }

    /** Its own frame of what it gathered catching up (or an empty one now and then to move the id on). */
    flushSolo() {
      const solo = this.solo;
      if (!solo) return;
      if (this.res.writableLength > this.bufferBound()) {
        this.slow();
        return;
      }
      if (solo.gatherer.size > 0) this.soloFrame(solo, solo.gatherer.take());
      else if (solo.seq > solo.toldSeq && Date.now() - solo.lastWriteAt >= PROGRESS_MS) this.soloFrame(solo, []);
    }

    private soloFrame(solo: Solo, rows: BlotterRow[]) {
      this.writeRaw(frameBytes("frame", rows, solo.seq));
      solo.toldSeq = solo.seq;
      solo.lastWriteAt = Date.now();
    }

    /** Caught up with the channel's last frame: its own rows go out, the channel's next frames follow. */
    join() {
      const solo = this.solo;
      const channel = this.channel;
      if (!solo || !channel) return;
      if (solo.seq < channel.gapSeq) {
        this.toSnapshot();
        return;
      }
      if (solo.gatherer.size > 0) this.soloFrame(solo, solo.gatherer.take());
      this.endSolo();
      channel.joining.delete(this);
      this.becomeMember(channel, false);
    }

    /** Catching up cannot be exact (a gap; a platform joined): join with a snapshot instead. */
    toSnapshot() {
      const channel = this.channel;
      if (!channel || this.state !== "solo") return;
      this.endSolo();
      channel.joining.delete(this);
      this.becomeMember(channel, true);
    }

    private endSolo() {
      const solo = this.solo;
      if (!solo) return;
      solo.done = true;
      solo.subscription?.close();
      solo.gatherer.clear();
      this.solo = null;
    }

    /** A frame of its channel (the same bytes for every member). */
    send(frame: Buffer) {
      if (this.awaitingSnapshot) return;
      // What the socket has not taken since the last frame is over the bound: at most the bound plus one frame waits.
      if (this.res.writableLength > this.bufferBound()) {
        this.slow();
        return;
      }
      this.writeRaw(frame);
    }

    snapshotDone(bytes: Buffer) {
      this.awaitingSnapshot = false;
      this.writeRaw(bytes);
      this.snapshotsSent++;
    }

    /** Too much waits for this client: it leaves its channel, nothing more is written, and a snapshot resynchronizes it once the socket drains. */
    slow() {
      if (this.state === "closed" || this.state === "dropping") return;
      this.endSolo();
      this.awaitingSnapshot = false;
      if (this.channel) {
        this.platformList = this.channel.platformList();
        this.channel.leave(this);
        this.channel = null;
      }
      this.state = "dropping";
      if (this.res.writableLength === 0) this.rejoin();
    }

    private rejoin() {
      if (this.state !== "dropping") return;
      const channel = channelFor(this.organizationId, this.filters, this.key, this.platformList);
      this.channel = channel;
      this.becomeMember(channel, true);
    }

    /** Its channel's bound (a solo stream catching up has the same filters, so the same rate). */
    private bufferBound(): number {
      return this.channel?.bufferBound() ?? o.maxBufferedBytes;
    }

    private writeRaw(bytes: Buffer) {
      if (this.res.writableEnded || this.res.destroyed) return;
      bytesWritten += bytes.length;
      this.written.push(bytes);
      this.res.write(bytes);
    }

    write(event: string, data: unknown) {
      if (this.res.writableEnded || this.res.destroyed) return;
      this.writeRaw(Buffer.from(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`));
    }

    unsent(): number {
      return this.res.writableLength;
    }

    /** The buffers its socket has not taken yet (shared ones are the same objects as other streams'). */
    held(): IterableIterator<Buffer> {
      this.written.settle(this.unsent());
      return this.written.buffers();
    }

    get dropping(): boolean {
      return this.state === "dropping";
    }

    stats() {
      return {
        pendingRows: this.soloRows(),
        bufferedBytes: this.unsent(),
        snapshots: this.snapshotsSent,
        dropping: this.dropping,
        shared: this.state === "member",
      };
    }

    /** Ended for the node's budget: the client reconnects with its last id. */
    end() {
      this.close();
      this.res.destroy();
    }

    readonly close = () => {
      if (this.state === "closed") return;
      this.state = "closed";
      this.endSolo();
      this.channel?.leave(this);
      this.channel = null;
      open.delete(this);
      if (open.size === 0 && ticker) {
        clearInterval(ticker);
        ticker = null;
      }
      this.stream?.close();
    };
  }

  /** Every frame period: the channels' frames, the catching-up streams' own, then the node's budget. */
  function tick() {
    for (const channel of [...channels]) channel.tick();
    for (const c of [...open]) c.flushSolo();
    enforceBytesBudget();
  }

  /** What every stream's socket has not taken, each buffer once (the stats' `heldBytes`). */
  function heldByAll(): number {
    const all = new Holdings();
    for (const c of open) all.add(c.held());
    return all.bytes;
  }

  /**
   * Past the node's bytes budget (what the following streams' sockets have not taken, each buffer
   * counted once however many of them hold it), the streams that hold the most stop growing first:
   * moved to "snapshot once drained" (what they hold stays until their socket takes it). When what
   * only the streams so stopped hold is more than twice the budget, the largest of them are ended
   * (their clients reconnect with their last id).
   */
  function enforceBytesBudget() {
    const following = new Holdings();
    const stopped = new Holdings();
    for (const c of open) (c.dropping ? stopped : following).add(c.held());
    if (following.bytes > o.maxTotalBytes) {
      const slowest = [...open].filter((c) => !c.dropping && c.unsent() > 0).sort((a, b) => b.unsent() - a.unsent());
      for (const c of slowest) {
        if (following.bytes <= o.maxTotalBytes) break;
        // Frees only what no other following stream holds: a frame the next-slowest holds too stays counted.
        following.remove(c.held());
        c.slow();
        budgetResyncs++;
        if (c.dropping) stopped.add(c.held());
      }
    }
    let stoppedOnly = stopped.bytesNotIn(following);
    if (stoppedOnly <= 2 * o.maxTotalBytes) return;
    const resyncing = [...open].filter((c) => c.dropping).sort((a, b) => b.unsent() - a.unsent());
    for (const c of resyncing) {
      if (stoppedOnly <= 2 * o.maxTotalBytes) break;
      stoppedOnly -= stopped.remove(c.held(), following);
      c.end();
      budgetEnds++;
    }
  }

  return {
    async open(request, reply, filters, after) {
      const organizationId = request.organization.id;
      const platforms = await blotterPlatformsOf(db, organizationId);
      const connection = new Connection(request, reply, organizationId, filters);
      await connection.start(reply, platforms, after);
    },
    platformsOf: (organizationId) => blotterPlatformsOf(db, organizationId),
    stats: () => {
      const each = [...open].map((c) => c.stats());
      return {
        connections: open.size,
        serialized,
        bytesWritten,
        gatheredRows,
        unsentBytes: each.reduce((t, c) => t + c.bufferedBytes, 0),
        heldBytes: heldByAll(),
        budget: { rows: o.maxTotalRows, bytes: o.maxTotalBytes },
        budgetResyncs,
        budgetEnds,
        channels: [...channels].map((c) => c.stats()),
        each,
      };
    },
    closeAll() {
      for (const c of [...open]) c.close();
      for (const c of [...channels]) c.close();
      if (ticker) clearInterval(ticker);
      ticker = null;
      nodeSubscription.close();
    },
  };
}
