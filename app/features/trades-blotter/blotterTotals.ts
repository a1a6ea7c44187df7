/**
 * The side panel's figures for the rows in view: totals, and net exposure per symbol in lots and
 * notional (lots × contract size × price, in the symbol's quote currency; the panel converts it to
 * the organization's currency, ./exposureCurrency.ts). Live, exposure is the open positions'; in
 * history, where there are only deals, it is the net traded volume.
 *
 * Trading and money movements are apart (docs/trades-blotter.md#totals): profit, commission, swap
 * and the deal count are of buy and sell rows only; balance deals add to deposits (positive) or
 * withdrawals (negative, shown as a positive amount), credit deals to the net credit. Money is in
 * integer minor units (core/trading/money.ts), so these sums are exact.
 */
import type { BlotterRow } from "@core/schemas/blotterLive";

export interface BlotterTotals {
  /** Trade deals (buy and sell); balance and credit deals are money movements, not deals traded. */
  deals: number;
  openPositions: number;
  /** Sum of volumes, 1/10000 lots. */
  volume: number;
  /** Minor units, of trades only. */
  profit: number;
  commission: number;
  swap: number;
  /** Balance deals, minor units: the positive ones, and the negative ones as a positive amount. */
  deposits: number;
  withdrawals: number;
  /** Credit deals, minor units, signed: credit given less credit taken back. */
  credit: number;
}

/** A row's share of the totals; a closed position's row counts nowhere (its deals do). */
function addTo(t: BlotterTotals, r: BlotterRow, sign: 1 | -1) {
  if (r.kind === "position") {
    if (r.state === "open") t.openPositions += sign;
    else return;
  }
  if (r.side === "balance") {
    if (r.profit >= 0) t.deposits += sign * r.profit;
    else t.withdrawals -= sign * r.profit;
    return;
  }
  if (r.side === "credit") {
    t.credit += sign * r.profit;
    return;
  }
  if (r.kind === "deal") t.deals += sign;
  t.volume += sign * r.volume;
  t.profit += sign * r.profit;
  t.commission += sign * r.commission;
  t.swap += sign * r.swap;
}

export interface SymbolExposure {
  symbol: string;
  /** Buy minus sell, in lots. */
  netLots: number;
  /** Net base units × price, in the quote currency; null when a contract size is unknown. */
  notional: number | null;
  /** Net lots × price: the notional once a contract size is known (historical rows carry none). */
  lotPrice: number;
}

export function totalsOf(rows: Iterable<BlotterRow>): BlotterTotals {
  const t = emptyTotals();
  for (const r of rows) addTo(t, r, 1);
  return t;
}

export function exposureOf(rows: Iterable<BlotterRow>): SymbolExposure[] {
  const list = [...rows];
  const fromPositions = list.some((r) => r.kind === "position");
  const bySymbol = new Map<string, { volume: number; notional: number | null; lotPrice: number }>();
  for (const r of list) {
    if (r.symbol === null || (r.side !== "buy" && r.side !== "sell")) continue;
    if (fromPositions ? r.kind !== "position" || r.state !== "open" : r.kind !== "deal") continue;
    const signed = r.side === "buy" ? r.volume : -r.volume;
    const e = bySymbol.get(r.symbol) ?? { volume: 0, notional: 0, lotPrice: 0 };
    e.volume += signed;
    e.lotPrice += (signed / 10_000) * r.price;
    e.notional = e.notional === null || r.contractSize === null ? null : e.notional + (signed / 10_000) * r.contractSize * r.price;
    bySymbol.set(r.symbol, e);
  }
  return sortedExposure([...bySymbol].map(([symbol, e]) => ({ symbol, netLots: e.volume / 10_000, notional: e.notional, lotPrice: e.lotPrice })));
}

export function emptyTotals(): BlotterTotals {
  return { deals: 0, openPositions: 0, volume: 0, profit: 0, commission: 0, swap: 0, deposits: 0, withdrawals: 0, credit: 0 };
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
  lotPrice: number;
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
    if (r.kind === "position") positionRows += sign;
    addTo(totals, r, sign);
    if (r.symbol === null || (r.side !== "buy" && r.side !== "sell")) return;
    const sums = r.kind === "deal" ? fromDeals : r.state === "open" ? fromPositions : null;
    if (!sums) return;
    const signed = r.side === "buy" ? r.volume : -r.volume;
    const s = sums.get(r.symbol) ?? { rows: 0, volume: 0, notional: 0, lotPrice: 0, unknown: 0 };
    s.rows += sign;
    if (s.rows === 0) {
      sums.delete(r.symbol);
      return;
    }
    s.volume += sign * signed;
    s.lotPrice += sign * (signed / 10_000) * r.price;
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
        exposure: sortedExposure(
          [...sums].map(([symbol, s]) => ({ symbol, netLots: s.volume / 10_000, notional: s.unknown > 0 ? null : s.notional, lotPrice: s.lotPrice })),
        ),
      };
    },
  };
}
