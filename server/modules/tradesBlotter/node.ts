/**
 * The node's blotter streams put together: its channels by organization and filters, its open
 * connections, the frame clock that runs while any is open (every `frameMs`: the channels' frames,
 * the catching-up streams' own, then the bytes budget), and the one bus subscription that keeps its
 * platform facts and snapshot overlay up to date. No database and no HTTP here: ./stream.ts gives
 * it its reads and opens the SSE responses, a unit test gives it an in-process bus and fakes.
 */
import type { BlotterFilters, BlotterPlatform } from "../../../core/schemas/blotterLive.ts";
import type { TradePlatformConnector } from "../../connectors/connector.ts";
import type { EventBus } from "../../events/bus.ts";
import type { BusSubscription } from "../../events/types.ts";
import { Channel, channelKey } from "./channel.ts";
import { Connection, type ConnectionContext } from "./connection.ts";
import type { StreamLog } from "./context.ts";
import { NodeBudget, type PendingFrame } from "./nodeBudget.ts";
import type { BlotterStreamSettings } from "./options.ts";
import { PlatformFacts } from "./platformFacts.ts";
import type { BlotterSnapshotSource } from "./snapshotSource.ts";
import { SnapshotReader } from "./snapshots.ts";
import { Traffic } from "./traffic.ts";

export interface StreamNodeDeps {
  bus: EventBus;
  log: StreamLog;
  settings: BlotterStreamSettings;
  platforms: { connectorFor(organizationId: string, platformId: string): Promise<Pick<TradePlatformConnector, "listSymbols" | "openPositions">> };
  /** The organization's platforms with the Trades Blotter app assigned. */
  platformsOf(organizationId: string): Promise<BlotterPlatform[]>;
  /** login → group of the platform's mirrored accounts. */
  groupsOf(platformId: string): Promise<Map<string, string>>;
  snapshots?: BlotterSnapshotSource;
}

export class StreamNode implements ConnectionContext {
  readonly bus: EventBus;
  readonly log: StreamLog;
  readonly settings: BlotterStreamSettings;
  readonly traffic = new Traffic();
  readonly budget: NodeBudget;
  readonly facts: PlatformFacts;
  readonly snapshots: SnapshotReader;
  readonly channels = new Set<Channel>();
  private readonly channelsByKey = new Map<string, Channel>();
  readonly open = new Set<Connection>();
  private ticker: ReturnType<typeof setInterval> | null = null;
  private readonly subscription: BusSubscription;

  constructor(private readonly deps: StreamNodeDeps) {
    this.bus = deps.bus;
    this.log = deps.log;
    this.settings = deps.settings;
    this.budget = new NodeBudget(
      { rows: deps.settings.maxTotalRows, bytes: deps.settings.maxTotalBytes },
      { frames: () => this.pendingFrames(), streams: () => this.open },
    );
    this.facts = new PlatformFacts({ groupsOf: (platformId) => deps.groupsOf(platformId), platforms: deps.platforms });
    this.snapshots = new SnapshotReader({ settings: deps.settings, facts: this.facts, platforms: deps.platforms, source: deps.snapshots });
    // What this node knows beyond the events: groups (mirror, then accountChanged), recent deals and positions.
    this.subscription = deps.bus.subscribe({ types: ["trade", "platformRemoved"] }, (message) => {
      this.facts.follow(message.event);
      this.snapshots.follow(message.event);
    });
  }

  platformsOf(organizationId: string): Promise<BlotterPlatform[]> {
    return this.deps.platformsOf(organizationId);
  }

  /** A stream, to `start`. */
  connection(organizationId: string, filters: BlotterFilters): Connection {
    return new Connection(this, organizationId, filters);
  }

  channelFor(organizationId: string, filters: BlotterFilters, platforms: BlotterPlatform[]): Channel {
    const key = channelKey(organizationId, filters);
    const known = this.channelsByKey.get(key);
    if (known) return known;
    const channel = new Channel(this, organizationId, filters, platforms, () => {
      this.channels.delete(channel);
      if (this.channelsByKey.get(key) === channel) this.channelsByKey.delete(key);
    });
    this.channels.add(channel);
    this.channelsByKey.set(key, channel);
    return channel;
  }

  opened(connection: Connection): void {
    this.open.add(connection);
    this.ticker ??= setInterval(() => this.tick(), this.settings.frameMs);
  }

  closed(connection: Connection): void {
    this.open.delete(connection);
    if (this.open.size === 0 && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = null;
    }
  }

  /** Every frame period: the channels' frames, the catching-up streams' own, then the node's bytes budget. */
  tick(): void {
    for (const channel of [...this.channels]) channel.tick();
    for (const c of [...this.open]) c.flushSolo();
    this.budget.enforceBytes();
  }

  /** Every frame gathered on the node, for the rows budget: channels', snapshot reads', catching-up streams'. */
  private *pendingFrames(): Iterable<PendingFrame> {
    for (const c of this.channels) {
      yield { size: c.gatherer.size, flush: () => c.flush() };
      const reading = c.readingRows();
      if (reading) yield { size: reading.size, flush: () => reading.overflow() };
    }
    for (const c of this.open) yield { size: c.soloRows(), flush: () => c.flushSolo() };
  }

  stats() {
    const each = [...this.open].map((c) => c.stats());
    return {
      connections: this.open.size,
      serialized: this.traffic.serialized,
      bytesWritten: this.traffic.bytesWritten,
      gatheredRows: this.budget.gatheredRows,
      unsentBytes: each.reduce((t, c) => t + c.bufferedBytes, 0),
      heldBytes: this.budget.heldBytes(),
      budget: { ...this.budget.limits },
      budgetResyncs: this.budget.budgetResyncs,
      budgetEnds: this.budget.budgetEnds,
      channels: [...this.channels].map((c) => c.stats()),
      each,
    };
  }

  /** Ends every open stream, every channel and the node's own subscription (app shutdown). */
  closeAll(): void {
    for (const c of [...this.open]) c.close();
    for (const c of [...this.channels]) c.close();
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = null;
    this.subscription.close();
  }
}
