// @vitest-environment node
/**
 * The side panel's figures kept incrementally (app/features/trades-blotter/blotterTotals.ts,
 * createTotalsAccumulator) equal a full recomputation (totalsOf, exposureOf) over the same rows,
 * after any sequence of rows added, changed and removed: directly, and as the row batcher tells
 * it of rows entering and leaving (snapshots, coalesced batches, the row bound).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { BlotterRow } from "@core/schemas/blotterLive";
import { createTotalsAccumulator, exposureOf, totalsOf, type BlotterFigures } from "~/features/trades-blotter/blotterTotals";
import { createRowBatcher } from "~/features/trades-blotter/rowBatcher";

const rowArb = (key: string): fc.Arbitrary<BlotterRow> =>
  fc
    .record({
      kind: fc.constantFrom("deal" as const, "position" as const),
      open: fc.boolean(),
      symbol: fc.constantFrom("EURUSD", "XAUUSD", "US500", null),
      side: fc.constantFrom("buy" as const, "sell" as const, "balance" as const, "credit" as const),
      volume: fc.integer({ min: 0, max: 1_000_000 }),
      price: fc.double({ min: 0.5, max: 5000, noNaN: true }),
      profit: fc.integer({ min: -1_000_000, max: 1_000_000 }),
      commission: fc.integer({ min: -10_000, max: 0 }),
      swap: fc.integer({ min: -10_000, max: 10_000 }),
      contractSize: fc.constantFrom(100_000, 100, 1, null),
    })
    .map(({ kind, open, ...r }) => ({
      key,
      kind,
      platformId: "p1",
      login: "1001",
      group: "real",
      time: 1,
      ticket: key,
      position: null,
      entry: null,
      sl: null,
      tp: null,
      reason: "client",
      comment: "",
      state: kind === "position" ? (open ? "open" : "closed") : null,
      ...r,
    }));

const KEYS = ["d:1", "d:2", "d:3", "p:1", "p:2", "p:3", "p:4"];
type Op = { op: "set"; row: BlotterRow } | { op: "remove"; key: string };
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...KEYS).chain((k) => rowArb(k).map((row) => ({ op: "set" as const, row }))) },
  { weight: 1, arbitrary: fc.constantFrom(...KEYS).map((key) => ({ op: "remove" as const, key })) },
);

/** The incremental figures against a full recomputation: totals exactly, exposure up to the notional's rounding. */
function expectSameFigures(incremental: BlotterFigures, rows: BlotterRow[]) {
  expect(incremental.totals).toEqual(totalsOf(rows));
  const bySymbol = (list: BlotterFigures["exposure"]) => [...list].sort((a, b) => a.symbol.localeCompare(b.symbol));
  const full = bySymbol(exposureOf(rows));
  const kept = bySymbol(incremental.exposure);
  expect(kept.map((e) => [e.symbol, e.netLots, e.notional === null])).toEqual(full.map((e) => [e.symbol, e.netLots, e.notional === null]));
  kept.forEach((e, i) => {
    const expected = full[i]!.notional;
    if (e.notional !== null && expected !== null) expect(Math.abs(e.notional - expected)).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(expected)));
  });
}

describe("side panel figures kept incrementally", () => {
  it("equal a full recomputation after any sequence of rows added, changed and removed", () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 60 }), (ops) => {
        const acc = createTotalsAccumulator();
        const model = new Map<string, BlotterRow>();
        for (const o of ops) {
          const previous = model.get(o.op === "set" ? o.row.key : o.key);
          if (previous) acc.remove(previous);
          if (o.op === "set") {
            model.set(o.row.key, o.row);
            acc.add(o.row);
          } else model.delete(o.key);
          expectSameFigures(acc.figures(), [...model.values()]);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("equal a full recomputation of the row batcher's rows through snapshots, coalesced batches and the row bound", () => {
    const step = fc.oneof(
      { weight: 5, arbitrary: fc.array(opArb, { maxLength: 8 }).map((ops) => ({ push: ops.flatMap((o) => (o.op === "set" ? [o.row] : [])) })) },
      { weight: 1, arbitrary: fc.array(opArb, { maxLength: 5 }).map((ops) => ({ snapshot: ops.flatMap((o) => (o.op === "set" ? [o.row] : [])) })) },
      { weight: 1, arbitrary: fc.constant({ pause: true }) },
      { weight: 1, arbitrary: fc.constant({ resume: true }) },
      { weight: 3, arbitrary: fc.constant({ flush: true }) },
      { weight: 1, arbitrary: fc.constant({ clear: true }) },
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), fc.integer({ min: 1, max: 6 }), (steps, maxRows) => {
        const acc = createTotalsAccumulator();
        const b = createRowBatcher<BlotterRow>({ key: (r) => r.key, apply: () => {}, reset: () => {}, tracker: acc, maxRows, every: () => () => {} });
        for (const s of steps) {
          if ("push" in s) b.push(s.push);
          else if ("snapshot" in s) b.snapshot(s.snapshot);
          else if ("pause" in s) b.pause();
          else if ("resume" in s) b.resume();
          else if ("flush" in s) b.flush();
          else b.clear();
          expectSameFigures(acc.figures(), b.rows());
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe("totals keep money movements apart from trading", () => {
  const base = (key: string, over: Partial<BlotterRow>): BlotterRow => ({
    key,
    kind: "deal",
    platformId: "p1",
    login: "10007",
    group: "real",
    time: 1,
    ticket: key,
    position: null,
    symbol: null,
    side: "balance",
    entry: null,
    volume: 0,
    price: 0,
    sl: null,
    tp: null,
    profit: 0,
    commission: 0,
    swap: 0,
    reason: "dealer",
    comment: "",
    state: null,
    contractSize: null,
    ...over,
  });
  // Login 10007: a 250,000 deposit, a 150,000 withdrawal, credit given and part taken back, and one
  // round trip in EURUSD closing 0.52 up.
  const rows = [
    base("d:1", { profit: 25_000_000 }),
    base("d:2", { profit: -15_000_000 }),
    base("d:3", { side: "credit", profit: 500_000 }),
    base("d:4", { side: "credit", profit: -200_000 }),
    base("d:5", { side: "buy", entry: "in", symbol: "EURUSD", volume: 10_000, price: 1.1, commission: -350 }),
    base("d:6", { side: "sell", entry: "out", symbol: "EURUSD", volume: 10_000, price: 1.10052, profit: 52, swap: -10 }),
  ];

  it("profit, commission, swap and the deal count are the trades'; deposits, withdrawals and credit their own", () => {
    // Expected from the rows, by their side, not by the code under test.
    const trades = rows.filter((r) => r.side === "buy" || r.side === "sell");
    const sum = (list: BlotterRow[], f: (r: BlotterRow) => number) => list.reduce((a, r) => a + f(r), 0);
    const expected = {
      deals: trades.length,
      openPositions: 0,
      volume: sum(trades, (r) => r.volume),
      profit: sum(trades, (r) => r.profit),
      commission: sum(trades, (r) => r.commission),
      swap: sum(trades, (r) => r.swap),
      deposits: sum(
        rows.filter((r) => r.side === "balance" && r.profit > 0),
        (r) => r.profit,
      ),
      withdrawals: -sum(
        rows.filter((r) => r.side === "balance" && r.profit < 0),
        (r) => r.profit,
      ),
      credit: sum(
        rows.filter((r) => r.side === "credit"),
        (r) => r.profit,
      ),
    };
    expect(expected).toMatchObject({ deals: 2, profit: 52, deposits: 25_000_000, withdrawals: 15_000_000, credit: 300_000 });
    expect(totalsOf(rows)).toEqual(expected);
    const acc = createTotalsAccumulator();
    rows.forEach((r) => acc.add(r));
    expect(acc.figures().totals).toEqual(expected);
    acc.remove(rows[1]!);
    expect(acc.figures().totals).toEqual({ ...expected, withdrawals: 0 });
  });
});
