/**
 * A channel: the streams of one organization with the same filters (docs/decisions/0060). One bus
 * subscription, one gatherer, one JSON serialization per frame, written as the same bytes (and
 * `id:`) to each member; one snapshot read for the members waiting at once; the organization's
 * blotter platforms read again every `appsRecheckMs` and told to every member on change. Members
 * are the streams' connections (./connection.ts), seen here only as `ChannelMember`.
 *
 * A snapshot may hold deals the bus has not carried yet (the trade history store read the platform
 * ahead of its trade feed: docs/decisions/0088). The members it went to are told them once only:
 * when those deals come on the bus, these members' frames leave them out (a frame of its own for
 * them, the other members' frame as it is), for `SENT_AHEAD_MS` at most.
 */
import { blotterRowFilter, type BlotterFilters, type BlotterPlatform, type BlotterRow } from "../../../core/schemas/blotterLive.ts";
import type { BusFilter, BusMessage, BusSubscription, DomainEvent } from "../../events/types.ts";
import { ByteRate, streamBound } from "./byteRate.ts";
import type { StreamContext } from "./context.ts";
import { Gatherer, type Scope } from "./gatherer.ts";
import type { SnapshotRows } from "./snapshots.ts";
import { PROGRESS_MS } from "./traffic.ts";

/** How long the members of a snapshot that sent deals ahead of the bus have them left out of their frames, at most (they come within seconds). */
export const SENT_AHEAD_MS = 60_000;

/** The deals a snapshot sent before the bus carried them, shared by the members it went to; each key leaves once it came. */
interface SentAhead {
  keys: Set<string>;
  until: number;
}

/** A stream in a channel, or catching up to join it. */
export interface ChannelMember {
  /** A member whose snapshot is being read: its channel's frames until then are covered by the snapshot. */
  awaitingSnapshot: boolean;
  /** A frame of its channel (the same bytes for every member). */
  send(frame: Buffer): void;
  /** Its snapshot, read (the same bytes for every member waiting at once). */
  snapshotDone(bytes: Buffer): void;
  /** An event of its own (`platforms`). */
  write(event: string, data: unknown): void;
  /** Catching up: the last bus sequence it handled. */
  soloSeq(): number | undefined;
  /** Caught up with the channel's last frame. */
  join(): void;
  /** Catching up cannot be exact: it joins with a snapshot instead. */
  toSnapshot(): void;
}

/** What a channel and the streams catching up to it follow on the bus. */
export const channelFilter = (organizationId: string): BusFilter<"trade" | "tradeGap" | "platformRemoved"> => ({
  types: ["trade", "tradeGap", "platformRemoved"],
  organizationId,
});

/** The key of a channel: the organization and the filters, written the same way whatever their order. */
export function channelKey(organizationId: string, filters: BlotterFilters): string {
  const entries = Object.entries(filters)
    .filter(([, v]) => v !== undefined && v !== "" && !(Array.isArray(v) && v.length === 0))
    .map(([k, v]) => [k, Array.isArray(v) ? [...v].sort() : v] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${organizationId} ${JSON.stringify(entries)}`;
}

export class Channel implements Scope {
  readonly members = new Set<ChannelMember>();
  /** Resumed streams following the bus on their own until they reach `flushedSeq`. */
  readonly joining = new Set<ChannelMember>();
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
  private readonly waiting = new Set<ChannelMember>();
  private readingSnapshot = false;
  /** While a snapshot is read: the rows of the events handled meanwhile, which complete it. */
  private readRows: Gatherer | null = null;
  /** Members whose snapshot sent deals ahead of the bus: their frames leave those out. */
  private readonly sentAhead = new Map<ChannelMember, SentAhead>();
  private readonly subscription: BusSubscription;
  private readonly recheck: ReturnType<typeof setInterval>;
  private closed = false;

  constructor(
    private readonly ctx: StreamContext,
    readonly organizationId: string,
    filters: BlotterFilters,
    platforms: BlotterPlatform[],
    /** Told once when it closes (its last member left, or the node closes). */
    private readonly onClose: (channel: Channel) => void = () => {},
  ) {
    this.platforms = new Map(platforms.map((p) => [p.id, p]));
    this.matches = blotterRowFilter(filters);
    this.gatherer = new Gatherer(ctx.budget, ctx.facts, this, () => this.flush(), ctx.settings.maxPendingRows);
    this.subscription = ctx.bus.subscribe(channelFilter(organizationId), this.onMessage);
    this.lastSeq = this.flushedSeq = this.toldSeq = this.subscription.lastSeq;
    this.recheck = setInterval(() => void this.recheckPlatforms(), ctx.settings.appsRecheckMs);
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
      this.ctx.snapshots.gap(event.platformId, event.resumedAt);
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
    const traffic = this.ctx.traffic;
    let frame: Buffer | null = null;
    let rows: BlotterRow[] = [];
    if (this.gatherer.size > 0) {
      rows = this.gatherer.take();
      frame = traffic.frame("frame", rows, seq);
    } else if (seq > this.toldSeq && Date.now() - this.lastWriteAt >= PROGRESS_MS) frame = traffic.frame("frame", [], seq);
    this.flushedSeq = seq;
    if (frame) {
      this.frames++;
      this.rate.add(frame.length);
      this.toldSeq = seq;
      this.lastWriteAt = Date.now();
      const variants = new Map<SentAhead, Buffer>();
      for (const c of [...this.members]) c.send(this.frameFor(c, frame, rows, seq, variants));
      // Those deals came: from now on the bus is where they are, for every member.
      for (const ahead of variants.keys()) for (const r of rows) ahead.keys.delete(r.key);
    }
    for (const c of [...this.joining]) if (c.soloSeq() === seq) c.join();
  }

  /** The frame of a member whose snapshot sent some of these rows already (ahead of the bus): one without them. */
  private frameFor(c: ChannelMember, frame: Buffer, rows: BlotterRow[], seq: number, variants: Map<SentAhead, Buffer>): Buffer {
    if (rows.length === 0 || this.sentAhead.size === 0) return frame;
    const ahead = this.sentAhead.get(c);
    if (!ahead) return frame;
    let bytes = variants.get(ahead);
    if (!bytes) {
      const rest = rows.filter((r) => !ahead.keys.has(r.key));
      bytes = rest.length === rows.length ? frame : this.ctx.traffic.frame("frame", rest, seq);
      variants.set(ahead, bytes);
    }
    return bytes;
  }

  /** The rows of the events handled while a snapshot is read, while one is. */
  readingRows(): Gatherer | null {
    return this.readRows;
  }

  /** What one of its streams may have written and not yet sent before it counts as slow. */
  bufferBound(): number {
    const o = this.ctx.settings;
    return streamBound(this.rate.perSecond(), o.maxBufferedSeconds, o.maxBufferedBytes, o.maxBufferedBytesCap);
  }

  /** Every frame period: its frame, and the snapshots asked for since. */
  tick() {
    this.flush();
    if (this.waiting.size > 0) void this.readSnapshots();
    if (this.sentAhead.size > 0) {
      const now = Date.now();
      for (const [c, ahead] of this.sentAhead) if (ahead.keys.size === 0 || now > ahead.until) this.sentAhead.delete(c);
    }
  }

  addMember(c: ChannelMember, snapshot: boolean) {
    this.members.add(c);
    // Without a snapshot (a stream that caught up from its id) it has only what the bus carried.
    if (!snapshot) this.sentAhead.delete(c);
    if (snapshot) this.requestSnapshot(c);
  }

  /** The member gets a snapshot; the channel's frames until then are covered by it, the ones after follow it. */
  requestSnapshot(c: ChannelMember) {
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
    const o = this.ctx.settings;
    try {
      while (this.waiting.size > 0 && !this.closed) {
        const batch = [...this.waiting];
        this.waiting.clear();
        let overflowed = false;
        // The deals that arrive while it is read: the newest `maxPendingRows`. Under a sustained
        // rate a slow read (the store settling its writes) would otherwise overflow and read again
        // forever, and the stream would get nothing; a snapshot holds recent deals, not every deal.
        const meanwhile = new Gatherer(
          this.ctx.budget,
          this.ctx.facts,
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
        let read: SnapshotRows;
        try {
          read = await this.ctx.snapshots.rows(this);
        } catch (err) {
          this.ctx.log.warn({ err, organizationId: this.organizationId }, "blotter snapshot failed");
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
        const merged = new Map((droppedDeals ? read.rows.filter((r) => r.kind !== "deal") : read.rows).map((r) => [r.key, r]));
        for (const r of caught) {
          merged.delete(r.key);
          merged.set(r.key, r);
        }
        // Framed now, what was handled and not framed yet: the snapshot holds it (its members drop
        // this frame), and its id is the sequence framed, so the next frame holds only what follows.
        this.flush();
        const bytes = this.ctx.traffic.frame("snapshot", [...merged.values()], this.flushedSeq);
        this.snapshots++;
        // The store's deals the bus had not carried (those handled while it was read it had): they may come in a frame after it.
        const handled = new Set(caught.map((r) => r.key));
        const keys = new Set([...read.unseen].filter((key) => merged.has(key) && !handled.has(key)));
        const ahead: SentAhead | null = keys.size > 0 ? { keys, until: Date.now() + SENT_AHEAD_MS } : null;
        for (const c of batch) {
          if (!this.members.has(c) || !c.awaitingSnapshot) continue;
          c.snapshotDone(bytes);
          if (ahead) this.sentAhead.set(c, ahead);
          else this.sentAhead.delete(c);
        }
      }
    } finally {
      this.readingSnapshot = false;
    }
  }

  /** A member or a joining stream goes; the last one closes the channel. */
  leave(c: ChannelMember) {
    this.members.delete(c);
    this.joining.delete(c);
    this.waiting.delete(c);
    this.sentAhead.delete(c);
    if (this.members.size === 0 && this.joining.size === 0) this.close();
  }

  private async recheckPlatforms() {
    if (this.closed) return;
    try {
      const now = await this.ctx.platformsOf(this.organizationId);
      await Promise.all(now.filter((p) => !this.platforms.has(p.id)).map((p) => this.ctx.facts.load(this.organizationId, p.id)));
      this.setPlatforms(now);
    } catch (err) {
      this.ctx.log.warn({ err, organizationId: this.organizationId }, "blotter platforms recheck failed");
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
    this.sentAhead.clear();
    this.onClose(this);
  }
}
