/**
 * A snapshot's rows: the open positions and recent deals of every platform in a stream's scope,
 * filtered. Read from the trade history store first (./snapshotSource.ts), with what this node
 * saw on the bus on top: its recent deals, and the latest state of each position it saw change
 * lately. Where they come from and why: docs/decisions/0061. It also says which of its deals came
 * from the store only, lately made: they may not be on the bus yet (docs/decisions/0088).
 */
import { dealRow, positionRow, type BlotterRow } from "../../../core/schemas/blotterLive.ts";
import type { Deal } from "../../../core/trading/deal.ts";
import type { Position } from "../../../core/trading/position.ts";
import type { TradePlatformConnector } from "../../connectors/connector.ts";
import type { DomainEvent } from "../../events/types.ts";
import type { Scope } from "./gatherer.ts";
import type { BlotterStreamSettings } from "./options.ts";
import type { PlatformFacts } from "./platformFacts.ts";
import type { BlotterSnapshotSource } from "./snapshotSource.ts";

/** How long the node keeps a position's latest state from the bus, at most. */
const RECENT_POSITION_MS = 5 * 60_000;
/**
 * How close to its platform's newest deal a stored deal this node has not seen on the bus must be
 * to count as possibly still on its way there. A pass of the trade history store reads the
 * platform up to now (after a restart, a gap, dropped events), so it can store a deal before the
 * platform's trade feed has published it (the MT5 Web API is polled once a second): such a deal is
 * among the newest.
 */
const UNSEEN_WINDOW_MS = 60_000;

/** A snapshot's rows, and the keys of those that may come on the bus after it. */
export interface SnapshotRows {
  rows: BlotterRow[];
  /**
   * Deals read from the store that this node had not seen on the bus, made within
   * `UNSEEN_WINDOW_MS` of their platform's newest: the bus may carry them after the snapshot.
   */
  unseen: Set<string>;
}

export interface SnapshotReaderDeps {
  settings: Pick<BlotterStreamSettings, "recentDeals" | "recentPositions" | "snapshotPositions">;
  facts: PlatformFacts;
  platforms: { connectorFor(organizationId: string, platformId: string): Promise<Pick<TradePlatformConnector, "openPositions">> };
  /** Read first (the store: it survives restarts and sees every node's trades). */
  source?: BlotterSnapshotSource;
}

export class SnapshotReader {
  /** Per platform, the deals this node saw on the bus, oldest first (between `recentDeals` and twice as many). */
  private readonly recent = new Map<string, Deal[]>();
  /**
   * Per platform, each recently changed position's latest state as this node saw it on the bus
   * (null: closed), least recently changed first. A snapshot's open positions read from the store
   * lack what the writers hold and have not written yet (seconds under a flood): this node's, and
   * on several nodes the others', which share the bus's events (one durable consumer). This node
   * saw all those events. Each entry is the newest state of its position, so laying them over the
   * store's never sets one back.
   */
  private readonly touched = new Map<string, Map<string, { position: Position | null; at: number }>>();

  constructor(private readonly deps: SnapshotReaderDeps) {}

  /** The node's follower of the bus: deals made, positions changed, a platform gone. */
  follow(event: DomainEvent): void {
    if (event.type === "platformRemoved") {
      this.recent.delete(event.platformId);
      this.touched.delete(event.platformId);
      return;
    }
    if (event.type !== "trade") return;
    const trade = event.event;
    const o = this.deps.settings;
    if (trade.type === "dealAdded") {
      const list = this.recent.get(event.platformId) ?? [];
      list.push(trade.deal);
      if (list.length > o.recentDeals * 2) list.splice(0, list.length - o.recentDeals);
      this.recent.set(event.platformId, list);
    }
    if (trade.type === "positionOpened" || trade.type === "positionModified" || trade.type === "positionClosed") {
      let positions = this.touched.get(event.platformId);
      if (!positions) this.touched.set(event.platformId, (positions = new Map<string, { position: Position | null; at: number }>()));
      const now = Date.now();
      // Deleted first, so that the map's order stays the order of the latest changes.
      positions.delete(trade.position.id);
      positions.set(trade.position.id, { position: trade.type === "positionClosed" ? null : trade.position, at: now });
      for (const [id, entry] of positions) {
        if (positions.size <= o.recentPositions && now - entry.at < RECENT_POSITION_MS) break;
        positions.delete(id);
      }
    }
  }

  /** A `tradeGap` came: told to the source, whose snapshots after it wait for the platform to be read again. */
  gap(platformId: string, resumedAt: number): void {
    this.deps.source?.gap?.(platformId, resumedAt);
  }

  /** Open positions and recent deals of every platform in scope, filtered; which deals the bus may carry after. */
  async rows(scope: Scope): Promise<SnapshotRows> {
    const rows: BlotterRow[] = [];
    const positions: BlotterRow[] = [];
    const unseen = new Set<string>();
    await Promise.all(
      [...scope.platforms.keys()].map(async (platformId) => {
        const lookups = this.deps.facts.lookupsOf(platformId);
        const [open, recent] = await Promise.all([
          this.openPositions(scope.organizationId, platformId).catch((): Position[] => []),
          this.recentDeals(scope.organizationId, platformId).catch(() => ({ deals: [] as Deal[], unseen: new Set<string>() })),
        ]);
        for (const p of open) {
          const row = positionRow(platformId, p, lookups);
          if (scope.matches(row)) positions.push(row);
        }
        for (const d of recent.deals) {
          const row = dealRow(platformId, d, lookups);
          if (!scope.matches(row)) continue;
          rows.push(row);
          if (recent.unseen.has(d.id)) unseen.add(row.key);
        }
      }),
    );
    positions.sort((a, b) => b.time - a.time);
    rows.push(...positions.slice(0, this.deps.settings.snapshotPositions));
    rows.sort((a, b) => a.time - b.time);
    return { rows, unseen };
  }

  /** The store's, with this node's latest states laid over; the platform's connector when the store does not know. */
  private async openPositions(organizationId: string, platformId: string): Promise<Position[]> {
    const stored = await this.deps.source?.openPositions(organizationId, platformId, this.deps.settings.snapshotPositions);
    if (stored) return this.withRecentChanges(platformId, stored);
    const connector = await this.deps.platforms.connectorFor(organizationId, platformId);
    return connector.openPositions();
  }

  /**
   * The store's and this node's, one per deal id, the newest `recentDeals` in time order; and the
   * ids of the store's lately made ones this node has not seen on the bus.
   */
  private async recentDeals(organizationId: string, platformId: string): Promise<{ deals: Deal[]; unseen: Set<string> }> {
    const limit = this.deps.settings.recentDeals;
    const stored = (await this.deps.source?.recentDeals(organizationId, platformId, limit)) ?? [];
    // What the node saw until now (the reads above took a while).
    const seen = this.recent.get(platformId) ?? [];
    if (stored.length === 0) return { deals: seen.slice(-limit), unseen: new Set() };
    const byId = new Map(stored.map((d) => [d.id, d]));
    for (const d of seen) byId.set(d.id, d);
    const deals = [...byId.values()].sort((a, b) => a.time - b.time).slice(-limit);
    const seenIds = new Set(seen.map((d) => d.id));
    const since = (deals.at(-1)?.time ?? 0) - UNSEEN_WINDOW_MS;
    const unseen = new Set(deals.filter((d) => d.time >= since && !seenIds.has(d.id)).map((d) => d.id));
    return { deals, unseen };
  }

  /** The store's open positions with this node's latest states of the positions changed lately laid over. */
  private withRecentChanges(platformId: string, stored: Position[]): Position[] {
    const changed = this.touched.get(platformId);
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
  }
}
