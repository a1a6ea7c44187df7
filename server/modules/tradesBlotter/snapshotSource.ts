/**
 * What the blotter stream asks for a snapshot's open positions and recent deals besides this node:
 * an interface only, which the trade history store implements (tradeHistory/repository/snapshotSource.ts)
 * and the stream reads (./snapshots.ts). A file of its own so that tradeHistory imports nothing
 * else of the blotter, and the blotter nothing of tradeHistory's but its plugin.
 */
import type { Deal } from "../../../core/trading/deal.ts";
import type { Position } from "../../../core/trading/position.ts";

/**
 * Where a snapshot's open positions and recent deals come from besides this node (the trade
 * history store: tradeHistory/repository/snapshotSource.ts). null: not known there, ask the node.
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
