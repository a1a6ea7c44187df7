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
  const t = emptyTotals();
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
  return sortedExposure([...bySymbol].map(([symbol, e]) => ({ symbol, netLots: e.volume / 10_000, notional: e.notional })));
}

function emptyTotals(): BlotterTotals {
  return { deals: 0, openPositions: 0, volume: 0, profit: 0, commission: 0, swap: 0 };
}

/** Symbols with a net position, the largest (by notional, else lots) first. */
function sortedExposure(list: SymbolExposure[]): SymbolExposure[] {
  return list
    .filter((e) => e.netLots !== 0)
    .sort((a, b) => Math.abs(b.notional ?? b.netLots) - Math.abs(a.notional ?? a.netLots) || a.symbol.localeCompare(b.symbol));
}

/** The side panel's figures, as the live stream's worker posts them (BlotterSidePanel takes these or rows). */
export interface BlotterFigures {
  totals: BlotterTotals;
  exposure: SymbolExposure[];
}

interface SymbolSum {
  /** Rows that count in this symbol (the entry goes when none is left, so no rounding residue stays). */
  rows: number;
  /** Signed volume, 1/10000 lots. */
  volume: number;
  notional: number;
  /** Rows without a contract size: the notional is unknown while any is in. */
  unknown: number;
}

/**
 * `totalsOf` and `exposureOf` kept up to date row by row (docs/requirements.md#r-targets-blotter): `add` a row that came
 * in, `remove` one that left (an update is `remove(previous)` then `add(next)`), so a change costs
 * its own rows, not a pass over every row in view. Always equal to a full recomputation over the
 * same rows (tests/unit/blotterTotals.test.ts checks it on random sequences); the notional sums are
 * floating point, so they may differ from it in the last bits.
 */
export interface TotalsAccumulator {
  add(row: BlotterRow): void;
  remove(row: BlotterRow): void;
  clear(): void;
  figures(): BlotterFigures;
}

export function createTotalsAccumulator(): TotalsAccumulator {
  let totals: BlotterTotals = emptyTotals();
  /** Rows of kind "position", open or not: any makes exposure come from open positions (as `exposureOf`). */
  let positionRows = 0;
  let fromPositions = new Map<string, SymbolSum>();
  let fromDeals = new Map<string, SymbolSum>();

  function change(r: BlotterRow, sign: 1 | -1) {
    if (r.kind === "deal") totals.deals += sign;
    else {
      positionRows += sign;
      if (r.state === "open") totals.openPositions += sign;
    }
    if (!(r.kind === "position" && r.state !== "open")) {
      totals.volume += sign * r.volume;
      totals.profit += sign * r.profit;
      totals.commission += sign * r.commission;
      totals.swap += sign * r.swap;
    }
    if (r.symbol === null || (r.side !== "buy" && r.side !== "sell")) return;
    const sums = r.kind === "deal" ? fromDeals : r.state === "open" ? fromPositions : null;
    if (!sums) return;
    const signed = r.side === "buy" ? r.volume : -r.volume;
    const s = sums.get(r.symbol) ?? { rows: 0, volume: 0, notional: 0, unknown: 0 };
    s.rows += sign;
    if (s.rows === 0) {
      sums.delete(r.symbol);
      return;
    }
    s.volume += sign * signed;
    if (r.contractSize === null) s.unknown += sign;
    else s.notional += sign * (signed / 10_000) * r.contractSize * r.price;
    sums.set(r.symbol, s);
  }

  return {
    add: (row) => change(row, 1),
    remove: (row) => change(row, -1),
    clear() {
      totals = emptyTotals();
      positionRows = 0;
      fromPositions = new Map();
      fromDeals = new Map();
    },
    figures() {
      const sums = positionRows > 0 ? fromPositions : fromDeals;
      return {
        totals: { ...totals },
        exposure: sortedExposure([...sums].map(([symbol, s]) => ({ symbol, netLots: s.volume / 10_000, notional: s.unknown > 0 ? null : s.notional }))),
      };
    },
  };
}
