/**
 * GET /api/tradesBlotter/stream: the organization's trades, live, as Server-Sent Events over a
 * hijacked reply (like tradePlatforms/live.ts; why SSE: docs/decisions/0042). Per connection:
 *
 * - scope: the current organization (the bus filter) and its platforms with the Trades Blotter
 *   app assigned, read again every few seconds and when a platform goes away;
 * - filters (core/schemas/blotterLive.ts) run here, before anything is written;
 * - frames: events are gathered for `frameMs` (50 ms) and coalesced per row (a position's many
 *   changes → its last state), then written as one `event: frame` with `id:` = the last bus
 *   sequence handled. `Last-Event-ID` / `?after=` resumes after it with nothing lost or repeated;
 *   when the bus no longer holds what follows (or on a fresh open) an `event: snapshot` (open
 *   positions and recent deals) comes first and replaces what the client holds;
 * - a slow client: what waits for the socket is bounded (`maxBufferedBytes` written but not yet
 *   sent, `maxPendingRows` gathered). Past either, the gathered rows are dropped, nothing more is
 *   gathered, and once the socket drains a snapshot resynchronizes the client;
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
import type { BusMessage, DomainEvent } from "../../events/types.ts";
import { streamLifetimeMs } from "../../http/auth/tokenLifetime.ts";
import { blotterPlatformsOf, groupsOf } from "./streamRepository.ts";

export interface BlotterStreamOptions {
  /** How long events are gathered into one frame; 50 ms. */
  frameMs?: number;
  /** Bytes written to a connection and not yet taken by the socket before it counts as slow; 1 MiB. */
  maxBufferedBytes?: number;
  /** Rows gathered for a connection before it counts as slow; 20,000. */
  maxPendingRows?: number;
  /** How often the platforms with the app assigned are read again; 5 s. */
  appsRecheckMs?: number;
  /** Recent deals kept per platform for snapshots; 500. */
  recentDeals?: number;
  /** Open positions in one snapshot at most (the most recent); 20,000. */
  snapshotPositions?: number;
  heartbeatMs?: number;
}

/**
 * Where a snapshot's open positions and recent deals come from besides this node (the trade
 * history store: tradeHistory/snapshotSource.ts). null: not known there, ask the node.
 */
export interface BlotterSnapshotSource {
  openPositions(organizationId: string, platformId: string, limit: number): Promise<Position[] | null>;
  recentDeals(organizationId: string, platformId: string, limit: number): Promise<Deal[] | null>;
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
  /** Per connection: rows gathered, bytes waiting for the socket, snapshots sent. */
  each: { pendingRows: number; bufferedBytes: number; snapshots: number; dropping: boolean }[];
}

export interface BlotterStreams {
  open(request: FastifyRequest, reply: FastifyReply, filters: BlotterFilters, after: number | undefined): Promise<void>;
  platformsOf(organizationId: string): Promise<BlotterPlatform[]>;
  stats(): BlotterStreamStats;
  /** Ends every open stream and the node's own subscription (app shutdown). */
  closeAll(): void;
}

const DEFAULTS: Required<BlotterStreamOptions> = {
  frameMs: 50,
  maxBufferedBytes: 1024 * 1024,
  maxPendingRows: 20_000,
  appsRecheckMs: 5_000,
  recentDeals: 500,
  snapshotPositions: 20_000,
  heartbeatMs: 15_000,
};
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

export function blotterStreams(deps: BlotterStreamDeps, options: BlotterStreamOptions = {}): BlotterStreams {
  const o = { ...DEFAULTS, ...options };
  const { db, bus, log } = deps;
  const open = new Set<Connection>();

  // What this node knows beyond the events: groups (mirror, then accountChanged), contract sizes, recent deals.
  const facts = new Map<string, PlatformFacts>();
  const loading = new Map<string, Promise<PlatformFacts>>();
  const recent = new Map<string, Deal[]>();
  const nodeSubscription = bus.subscribe({ types: ["trade", "platformRemoved"] }, (message) => {
    const event = message.event;
    if (event.type === "platformRemoved") {
      facts.delete(event.platformId);
      recent.delete(event.platformId);
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
  });

  const snapshots = {
    async openPositions(organizationId: string, platformId: string): Promise<Position[]> {
      const stored = await deps.snapshots?.openPositions(organizationId, platformId, o.snapshotPositions);
      if (stored) return stored;
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

  class Connection {
    private readonly res: FastifyReply["raw"];
    private readonly matches: (row: BlotterRow) => boolean;
    private platforms = new Map<string, BlotterPlatform>();
    private pending = new Map<string, BlotterRow>();
    /** The last bus sequence handled, and the last one the client was told. */
    private lastSeq = 0;
    private sentSeq = 0;
    private lastWriteAt = Date.now();
    /** A snapshot must come before the next frame; `dropping`: until the socket drains, nothing is gathered. */
    private needSnapshot = false;
    private dropping = false;
    private snapshotting = false;
    snapshotsSent = 0;
    private closed = false;
    private readonly timers: ReturnType<typeof setInterval>[] = [];
    private subscription: { close(): void } | undefined;

    constructor(
      private readonly request: FastifyRequest,
      reply: FastifyReply,
      private readonly organizationId: string,
      filters: BlotterFilters,
    ) {
      this.res = reply.raw;
      this.matches = blotterRowFilter(filters);
    }

    async start(reply: FastifyReply, platforms: BlotterPlatform[], after: number | undefined) {
      this.platforms = new Map(platforms.map((p) => [p.id, p]));
      await Promise.all(platforms.map((p) => loadFacts(this.organizationId, p.id)));

      reply.hijack();
      this.res.writeHead(200, {
        ...(reply.getHeaders() as Record<string, string>),
        "Content-Type": "text/event-stream; charset=utf-8",
        "Cache-Control": "no-store",
        Connection: "keep-alive",
        "X-Accel-Buffering": "no",
      });
      this.res.flushHeaders();
      this.res.write("retry: 3000\n\n");
      this.write("platforms", platforms);
      open.add(this);

      this.request.raw.on("close", this.close);
      this.res.on("close", this.close);
      this.res.on("error", this.close);
      this.res.on("drain", () => {
        if (!this.dropping) return;
        this.dropping = false;
        void this.flush();
      });

      // A fresh open starts from a snapshot; a resume from the id, unless the bus lost what follows it.
      this.needSnapshot = after === undefined;
      this.subscription = bus.subscribe({ types: ["trade", "tradeGap", "platformRemoved"], organizationId: this.organizationId }, this.onMessage, {
        ...(after === undefined ? {} : { after }),
        onGap: () => {
          this.needSnapshot = true;
        },
      });
      if (after !== undefined) this.sentSeq = after;

      this.timers.push(setInterval(() => void this.flush(), o.frameMs));
      this.timers.push(setInterval(() => void this.recheckPlatforms(), o.appsRecheckMs));
      this.timers.push(
        setInterval(() => {
          if (!this.res.writableEnded) this.res.write(": ping\n\n");
        }, o.heartbeatMs),
      );
      this.timers.push(setTimeout(this.close, streamLifetimeMs(this.request)));
      void this.flush();
    }

    private readonly onMessage = (message: BusMessage<DomainEvent>) => {
      this.lastSeq = message.seq;
      const event = message.event;
      if (!this.platforms.has(event.platformId)) return;
      if (event.type === "platformRemoved") {
        this.platforms.delete(event.platformId);
        this.write("platforms", [...this.platforms.values()]);
        return;
      }
      if (event.type === "tradeGap") {
        this.needSnapshot = true;
        return;
      }
      if (event.type !== "trade" || this.dropping) return;
      this.gather(event.platformId, event.event);
    };

    private gather(platformId: string, trade: TradeEvent) {
      const row = rowOfTradeEvent(platformId, trade, lookupsOf(platformId));
      if (row === null || !this.matches(row)) return;
      // Coalesced per row; re-inserted so that a frame lists rows in the order they last changed.
      this.pending.delete(row.key);
      this.pending.set(row.key, row);
      if (this.pending.size > o.maxPendingRows) this.slow();
    }

    /** Too much waits for this client: drop it, gather nothing more, and resynchronize once the socket drains. */
    private slow() {
      this.pending = new Map();
      this.needSnapshot = true;
      this.dropping = this.res.writableLength > 0;
    }

    private async flush() {
      if (this.closed || this.snapshotting || this.dropping) return;
      if (this.res.writableLength > o.maxBufferedBytes) {
        this.slow();
        return;
      }
      if (this.needSnapshot) {
        await this.sendSnapshot();
        return;
      }
      if (this.pending.size > 0) {
        const rows = [...this.pending.values()];
        this.pending = new Map();
        this.frame("frame", rows);
      } else if (this.lastSeq > this.sentSeq && Date.now() - this.lastWriteAt >= PROGRESS_MS) {
        this.frame("frame", []);
      }
    }

    private frame(event: "frame" | "snapshot", rows: BlotterRow[], seq = this.lastSeq) {
      if (this.res.writableEnded) return;
      this.res.write(`id: ${seq}\nevent: ${event}\ndata: ${JSON.stringify({ rows })}\n\n`);
      this.sentSeq = seq;
      this.lastWriteAt = Date.now();
    }

    private write(event: string, data: unknown) {
      if (!this.res.writableEnded) this.res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    }

    /** Open positions and recent deals of every platform in scope, filtered; rows gathered meanwhile follow it. */
    private async sendSnapshot() {
      this.snapshotting = true;
      this.needSnapshot = false;
      const seq = this.lastSeq;
      try {
        const rows: BlotterRow[] = [];
        const positions: BlotterRow[] = [];
        await Promise.all(
          [...this.platforms.keys()].map(async (platformId) => {
            const lookups = lookupsOf(platformId);
            const [open, deals] = await Promise.all([
              snapshots.openPositions(this.organizationId, platformId).catch((): Position[] => []),
              snapshots.recentDeals(this.organizationId, platformId).catch((): Deal[] => []),
            ]);
            for (const p of open) {
              const row = positionRow(platformId, p, lookups);
              if (this.matches(row)) positions.push(row);
            }
            for (const d of deals) {
              const row = dealRow(platformId, d, lookups);
              if (this.matches(row)) rows.push(row);
            }
          }),
        );
        positions.sort((a, b) => b.time - a.time);
        rows.push(...positions.slice(0, o.snapshotPositions));
        rows.sort((a, b) => a.time - b.time);
        // Rows gathered while the snapshot was read are newer: they stay pending and follow it.
        this.frame("snapshot", rows, seq);
        this.snapshotsSent++;
      } catch (err) {
        log.warn({ err, organizationId: this.organizationId }, "blotter snapshot failed");
        this.needSnapshot = true;
      } finally {
        this.snapshotting = false;
      }
    }

    private async recheckPlatforms() {
      if (this.closed) return;
      try {
        const now = await blotterPlatformsOf(db, this.organizationId);
        const before = [...this.platforms.keys()].sort().join();
        if (
          now
            .map((p) => p.id)
            .sort()
            .join() === before &&
          now.every((p) => this.platforms.get(p.id)?.name === p.name)
        )
          return;
        const added = now.filter((p) => !this.platforms.has(p.id));
        await Promise.all(added.map((p) => loadFacts(this.organizationId, p.id)));
        if (this.closed) return;
        this.platforms = new Map(now.map((p) => [p.id, p]));
        this.write("platforms", now);
        // A platform that joins brings its open positions and recent deals.
        if (added.length > 0) this.needSnapshot = true;
      } catch (err) {
        log.warn({ err, organizationId: this.organizationId }, "blotter platforms recheck failed");
      }
    }

    stats() {
      return { pendingRows: this.pending.size, bufferedBytes: this.res.writableLength, snapshots: this.snapshotsSent, dropping: this.dropping };
    }

    readonly close = () => {
      if (this.closed) return;
      this.closed = true;
      for (const t of this.timers) clearInterval(t);
      this.subscription?.close();
      this.pending = new Map();
      open.delete(this);
      if (!this.res.writableEnded) this.res.end();
    };
  }

  return {
    async open(request, reply, filters, after) {
      const organizationId = request.organization.id;
      const platforms = await blotterPlatformsOf(db, organizationId);
      const connection = new Connection(request, reply, organizationId, filters);
      await connection.start(reply, platforms, after);
    },
    platformsOf: (organizationId) => blotterPlatformsOf(db, organizationId),
    stats: () => ({ connections: open.size, each: [...open].map((c) => c.stats()) }),
    closeAll() {
      for (const c of [...open]) c.close();
      nodeSubscription.close();
    },
  };
}
