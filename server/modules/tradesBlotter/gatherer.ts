/**
 * Rows gathered for one frame: each trade event becomes its row (core/schemas/blotterLive.ts),
 * filtered, and coalesced per row key (a position's many changes → its last state), every row
 * counted in the node's budget (./nodeBudget.ts). A channel has one; so has a stream catching up
 * on its own, and a snapshot being read (the rows of the events handled meanwhile).
 */
import { rowOfTradeEvent, type BlotterLookups, type BlotterPlatform, type BlotterRow } from "../../../core/schemas/blotterLive.ts";
import type { TradeEvent } from "../../../core/trading/events.ts";
import type { NodeBudget } from "./nodeBudget.ts";

/** What a channel and the streams catching up to it filter on. */
export interface Scope {
  organizationId: string;
  platforms: Map<string, BlotterPlatform>;
  matches: (row: BlotterRow) => boolean;
}

export class Gatherer {
  private rows = new Map<string, BlotterRow>();
  /** With `dealLimit`: the deals' keys, oldest change first. */
  private deals = new Set<string>();
  /** Deals left out for `dealLimit` since the last take. */
  droppedDeals = false;

  constructor(
    private readonly budget: NodeBudget,
    private readonly facts: { lookupsOf(platformId: string): BlotterLookups },
    private readonly scope: Scope,
    /** Writes the frame now (its own bound, or the node's, is reached). */
    private readonly flushNow: () => void,
    /** Rows gathered before the frame is written early (`maxPendingRows`). */
    private readonly bound: number,
    /** Keeps only this many deals, the newest (a snapshot's rows of the events handled while it is read). */
    private readonly dealLimit = Number.POSITIVE_INFINITY,
  ) {}

  get size(): number {
    return this.rows.size;
  }

  add(platformId: string, trade: TradeEvent) {
    const row = rowOfTradeEvent(platformId, trade, this.facts.lookupsOf(platformId));
    if (row === null || !this.scope.matches(row)) return;
    // Coalesced per row; re-inserted so that a frame lists rows in the order they last changed.
    if (!this.rows.delete(row.key)) this.budget.gathered(1);
    this.rows.set(row.key, row);
    if (row.kind === "deal" && this.dealLimit !== Number.POSITIVE_INFINITY) this.keepNewestDeals(row.key);
    if (this.rows.size >= this.bound) this.flushNow();
    else if (this.budget.overRows) this.budget.flushLargest();
  }

  private keepNewestDeals(key: string) {
    this.deals.delete(key);
    this.deals.add(key);
    if (this.deals.size <= this.dealLimit) return;
    const oldest = this.deals.values().next().value as string;
    this.deals.delete(oldest);
    this.rows.delete(oldest);
    this.budget.gathered(-1);
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
    this.budget.gathered(-this.rows.size);
    this.rows = new Map();
    this.deals = new Set();
    this.droppedDeals = false;
  }
}
