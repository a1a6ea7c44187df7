// @vitest-environment node
/** The blotter's row batcher (app/features/trades-blotter/rowBatcher.ts), filters in the URL, and side-panel figures. */
import { describe, expect, it } from "vitest";
import { blotterRowFilter, BlotterFiltersSchema, type BlotterRow } from "@core/schemas/blotterLive";
import { createRowBatcher, type RowBatch } from "~/features/trades-blotter/rowBatcher";
import { activeFilterCount, dayRange, invalidLots, paramsOfView, viewFromParams } from "~/features/trades-blotter/blotterFilters";
import { exposureOf, totalsOf } from "~/features/trades-blotter/blotterTotals";
import { blotterRow } from "../helpers/blotterRows.ts";

const row = blotterRow;

function harness(maxRows?: number) {
  const batches: RowBatch<BlotterRow>[] = [];
  const resets: BlotterRow[][] = [];
  const held: number[] = [];
  const b = createRowBatcher<BlotterRow>({
    key: (r) => r.key,
    apply: (batch) => batches.push(batch),
    reset: (rows) => resets.push(rows),
    onChange: (s) => held.push(s.held),
    every: () => () => {},
    ...(maxRows ? { maxRows } : {}),
  });
  return { b, batches, resets, held };
}

describe("row batcher", () => {
  it("applies nothing until the interval, then one transaction coalesced per row: adds new keys, updates known ones", () => {
    const { b, batches } = harness();
    b.push([row("a"), row("b", { sl: 1 })]);
    b.push([row("b", { sl: 2 }), row("b", { sl: 3 })]);
    expect(batches).toHaveLength(0);
    b.flush();
    expect(batches).toHaveLength(1);
    expect(batches[0]!.add.map((r) => [r.key, r.sl])).toEqual([
      ["a", null],
      ["b", 3],
    ]);
    b.push([row("b", { sl: 4 }), row("c")]);
    b.flush();
    expect(batches[1]).toEqual({ add: [row("c")], update: [row("b", { sl: 4 })], remove: [] });
    b.flush();
    expect(batches).toHaveLength(2);
    expect(b.rows().map((r) => r.key)).toEqual(["a", "b", "c"]);
  });

  it("holds everything while paused, counting every update, and applies it in one batch on resume", () => {
    const { b, batches, held } = harness();
    b.push([row("a")]);
    b.flush();
    b.pause();
    b.push([row("a", { sl: 1 }), row("b")]);
    b.push([row("a", { sl: 2 })]);
    b.flush();
    expect(batches).toHaveLength(1);
    expect(b.held).toBe(3);
    expect(held.at(-1)).toBe(3);
    b.resume();
    expect(batches).toHaveLength(2);
    expect(batches[1]).toEqual({ add: [row("b")], update: [row("a", { sl: 2 })], remove: [] });
    expect(b.held).toBe(0);
  });

  it("replaces everything with a snapshot (held while paused), and keeps at most maxRows, the oldest leaving first", () => {
    const { b, batches, resets } = harness(3);
    b.push([row("a"), row("b")]);
    b.flush();
    b.pause();
    b.snapshot([row("x"), row("y")]);
    b.push([row("z")]);
    b.flush();
    expect(resets).toHaveLength(0);
    b.resume();
    expect(resets).toEqual([[row("x"), row("y")]]);
    expect(batches.at(-1)).toEqual({ add: [row("z")], update: [], remove: [] });
    b.push([row("w"), row("v")]);
    b.flush();
    expect(batches.at(-1)).toEqual({ add: [row("w"), row("v")], update: [], remove: [row("x"), row("y")] });
    expect(b.rows().map((r) => r.key)).toEqual(["z", "w", "v"]);
  });
});

describe("blotter filters", () => {
  it("round-trips the view through the URL, with yesterday as the default history day", () => {
    const now = new Date(2025, 4, 10, 12);
    const view = viewFromParams(new URLSearchParams("symbol=XAU*&side=sell&minLots=0.5&mode=history&from=2025-05-01&to=2025-05-02&platforms=a,b"), now);
    expect(view).toMatchObject({
      mode: "history",
      from: "2025-05-01",
      to: "2025-05-02",
      filters: { symbol: "XAU*", side: "sell", minLots: "0.5", platforms: ["a", "b"] },
    });
    expect(viewFromParams(paramsOfView(view), now)).toEqual(view);
    expect(viewFromParams(new URLSearchParams("side=long&mode=x"), now)).toMatchObject({
      mode: "live",
      from: "2025-05-09",
      to: "2025-05-09",
      filters: { side: "" },
    });
    expect(activeFilterCount(view.filters)).toBe(4);
    expect(invalidLots({ ...view.filters, minLots: "2", maxLots: "1" })).toEqual(["minLots"]);
    expect(invalidLots({ ...view.filters, minLots: "x", maxLots: "1" })).toEqual(["minLots"]);
    const range = dayRange("2025-05-01", "2025-05-02");
    expect(new Date(range.to).getTime() - new Date(range.from).getTime()).toBe(2 * 24 * 3600_000);
  });

  it("matches rows as the server does: platforms, logins, masks, side, lots, text", () => {
    const parse = (q: string) => BlotterFiltersSchema.parse(Object.fromEntries(new URLSearchParams(q)));
    const matches = (q: string, r: BlotterRow) => blotterRowFilter(parse(q))(r);
    expect(matches("symbol=EUR*,!EURGBP", row("a"))).toBe(true);
    expect(matches("symbol=EUR*,!EURUSD", row("a"))).toBe(false);
    expect(matches("group=real\\*", row("a"))).toBe(true);
    expect(matches("login=1002, 1001", row("a"))).toBe(true);
    expect(matches("login=1002", row("a"))).toBe(false);
    expect(matches("side=sell", row("a"))).toBe(false);
    expect(matches("minLots=1&maxLots=1", row("a"))).toBe(true);
    expect(matches("minLots=1.01", row("a"))).toBe(false);
    expect(matches("text=hedge", row("a", { comment: "Hedge #4" }))).toBe(true);
    expect(() => parse("minLots=3&maxLots=1")).toThrow(/minLots must not be above maxLots/);
  });
});

describe("totals and exposure", () => {
  it("sums the view and nets open positions per symbol (lots and notional); deals when there are no positions", () => {
    const rows = [
      row("p1", { kind: "position", state: "open", side: "buy", volume: 20_000, price: 1.1, profit: 1_000 }),
      row("p2", { kind: "position", state: "open", side: "sell", volume: 5_000, price: 1.1, profit: -200 }),
      row("p3", { kind: "position", state: "open", symbol: "XAUUSD", side: "sell", volume: 10_000, price: 2000, contractSize: 100 }),
      row("p4", { kind: "position", state: "closed", side: "buy", volume: 90_000 }),
      row("d1", { commission: -700 }),
    ];
    expect(totalsOf(rows)).toEqual({
      deals: 1,
      openPositions: 3,
      volume: 45_000,
      profit: 800,
      commission: -700,
      swap: 0,
      deposits: 0,
      withdrawals: 0,
      credit: 0,
    });
    expect(exposureOf(rows)).toEqual([
      { symbol: "XAUUSD", netLots: -1, notional: -200_000, lotPrice: -2000 },
      { symbol: "EURUSD", netLots: 1.5, notional: expect.closeTo(165_000, 6), lotPrice: expect.closeTo(1.65, 9) },
    ]);
    expect(exposureOf([row("d1"), row("d2", { side: "sell", volume: 2_500 }), row("d3", { side: "balance", symbol: null })])).toEqual([
      { symbol: "EURUSD", netLots: 0.75, notional: expect.closeTo(82_500, 6), lotPrice: expect.closeTo(0.825, 9) },
    ]);
  });
});
