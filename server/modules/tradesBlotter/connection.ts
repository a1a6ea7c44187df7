/**
 * One client's blotter stream through its life, and nothing else (docs/decisions/0060): it opens
 * (the platforms, then a snapshot or its resume), is a member of its channel (./channel.ts), or
 * first follows the bus on its own from the id it resumes after ("solo") until it reaches what its
 * channel framed, and leaves its channel when its socket holds more than its bound ("dropping") to
 * rejoin with a snapshot once the socket drains. What it writes and the socket has not taken it
 * keeps, by buffer, for the node's budget.
 */
import type { BlotterFilters, BlotterPlatform, BlotterRow } from "../../../core/schemas/blotterLive.ts";
import type { BusMessage, BusSubscription, DomainEvent } from "../../events/types.ts";
import { channelFilter, type Channel, type ChannelMember } from "./channel.ts";
import type { StreamContext } from "./context.ts";
import { Gatherer } from "./gatherer.ts";
import { WrittenQueue } from "./heldBytes.ts";
import type { BudgetedStream } from "./nodeBudget.ts";
import { PROGRESS_MS } from "./traffic.ts";

/** The socket's response, as the stream uses it: its own back-pressure (`writableLength`, `drain`). */
export interface StreamSocket {
  readonly writableLength: number;
  readonly writableEnded: boolean;
  readonly destroyed: boolean;
  write(chunk: Buffer): boolean;
  destroy(): void;
  on(event: "drain", listener: () => void): unknown;
}

/**
 * The open SSE stream a connection writes (server/streams/sse.ts's: heartbeat, token lifetime, losing
 * access and the client going end it).
 */
export interface EventStream {
  readonly res: StreamSocket;
  /** Runs `cleanup` when the stream ends, whatever ends it. */
  onClose(cleanup: () => void): void;
  close(): void;
}

export interface ConnectionContext extends StreamContext {
  /** The channel of these filters (a new one when none is open). */
  channelFor(organizationId: string, filters: BlotterFilters, platforms: BlotterPlatform[]): Channel;
  /** The node's open streams: it counts from its start until it closes. */
  opened(connection: Connection): void;
  closed(connection: Connection): void;
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

export class Connection implements ChannelMember, BudgetedStream {
  private res!: StreamSocket;
  private channel: Channel | null = null;
  private platformList: BlotterPlatform[] = [];
  /** solo: catching up from its id on its own; member: in its channel; dropping: waits for its socket to drain. */
  private state: "opening" | "solo" | "member" | "dropping" | "closed" = "opening";
  private solo: Solo | null = null;
  /** A member whose snapshot is being read: its channel's frames until then are covered by the snapshot. */
  awaitingSnapshot = false;
  snapshotsSent = 0;
  private stream: EventStream | null = null;
  /** What was written and the socket has not taken, by buffer: frames and snapshots shared with other streams are the same buffers. */
  private readonly written = new WrittenQueue();

  constructor(
    private readonly ctx: ConnectionContext,
    private readonly organizationId: string,
    private readonly filters: BlotterFilters,
  ) {}

  /** `openStream` opens the SSE stream once the platforms' facts are read (the response starts then). */
  async start(openStream: () => EventStream, platforms: BlotterPlatform[], after: number | undefined) {
    await Promise.all(platforms.map((p) => this.ctx.facts.load(this.organizationId, p.id)));

    this.stream = openStream();
    this.res = this.stream.res;
    this.stream.onClose(this.close);

    const channel = this.ctx.channelFor(this.organizationId, this.filters, platforms);
    // Read just now: the channel (and its other streams) learn of a change at once.
    channel.setPlatforms(platforms);
    this.channel = channel;
    this.platformList = channel.platformList();
    this.write("platforms", this.platformList);
    this.ctx.opened(this);
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
      gatherer: new Gatherer(this.ctx.budget, this.ctx.facts, channel, () => this.flushSolo(), this.ctx.settings.maxPendingRows),
      seq: after,
      toldSeq: after,
      lastWriteAt: Date.now(),
      subscription: null,
      gapped: false,
      done: false,
    };
    this.solo = solo;
    const subscription = this.ctx.bus.subscribe(channelFilter(this.organizationId), (message) => this.onSoloMessage(solo, message), {
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
        this.ctx.snapshots.gap(event.platformId, event.resumedAt);
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
    this.writeRaw(this.ctx.traffic.frame("frame", rows, solo.seq));
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
    const channel = this.ctx.channelFor(this.organizationId, this.filters, this.platformList);
    this.channel = channel;
    this.becomeMember(channel, true);
  }

  /** Its channel's bound (a solo stream catching up has the same filters, so the same rate). */
  private bufferBound(): number {
    return this.channel?.bufferBound() ?? this.ctx.settings.maxBufferedBytes;
  }

  private writeRaw(bytes: Buffer) {
    if (this.res.writableEnded || this.res.destroyed) return;
    this.ctx.traffic.wrote(bytes.length);
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
    this.ctx.closed(this);
    this.stream?.close();
  };
}
