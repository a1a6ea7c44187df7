/**
 * The side panel's figures for the rows in view: totals, and net exposure per symbol in lots and
 * notional (lots × contract size × price, in the quote currency). Live, exposure is the open
 * positions'; in history, where there are only deals, it is the net traded volume.
 */
import type { BlotterRow } from "@core/schemas/blotterLive";

export interface BlotterTotals {
  deals: number;
  openPositions: number;
  /** Sum of volumes, 1/10000 lots. */
  volume: number;
  /** Minor units. */
  profit: number;
  commission: number;
  swap: number;
}

export interface SymbolExposure {
  symbol: string;
  /** Buy minus sell, in lots. */
  netLots: number;
  /** Net base units × price; null when a contract size is unknown. */
  notional: number | null;
}

export function totalsOf(rows: Iterable<BlotterRow>): BlotterTotals {
  const t: BlotterTotals = { deals: 0, openPositions: 0, volume: 0, profit: 0, commission: 0, swap: 0 };
  for (const r of rows) {
    if (r.kind === "deal") t.deals++;
    else if (r.state === "open") t.openPositions++;
    if (r.kind === "position" && r.state !== "open") continue;
    t.volume += r.volume;
    t.profit += r.profit;
    t.commission += r.commission;
    t.swap += r.swap;
  }
  return t;
}

export function exposureOf(rows: Iterable<BlotterRow>): SymbolExposure[] {
  const list = [...rows];
  const fromPositions = list.some((r) => r.kind === "position");
  const bySymbol = new Map<string, { volume: number; notional: number | null }>();
  for (const r of list) {
    if (r.symbol === null || (r.side !== "buy" && r.side !== "sell")) continue;
    if (fromPositions ? r.kind !== "position" || r.state !== "open" : r.kind !== "deal") continue;
    const signed = r.side === "buy" ? r.volume : -r.volume;
    const e = bySymbol.get(r.symbol) ?? { volume: 0, notional: 0 };
    e.volume += signed;
    e.notional = e.notional === null || r.contractSize === null ? null : e.notional + (signed / 10_000) * r.contractSize * r.price;
    bySymbol.set(r.symbol, e);
  }
  return [...bySymbol]
    .map(([symbol, e]) => ({ symbol, netLots: e.volume / 10_000, notional: e.notional }))
    .filter((e) => e.netLots !== 0)
    .sort((a, b) => Math.abs(b.notional ?? b.netLots) - Math.abs(a.notional ?? a.netLots) || a.symbol.localeCompare(b.symbol));
}
