import type { BlotterRow } from "../../core/schemas/blotterLive.ts";

/** A blotter row for unit tests: a 1-lot EURUSD buy deal on platform "p1", `extra` over it. */
export function blotterRow(key: string, extra: Partial<BlotterRow> = {}): BlotterRow {
  return {
    key,
    kind: "deal",
    platformId: "p1",
    login: "1001",
    group: "real\\a",
    time: 1,
    ticket: key,
    position: null,
    symbol: "EURUSD",
    side: "buy",
    entry: "in",
    volume: 10_000,
    price: 1.1,
    sl: null,
    tp: null,
    profit: 0,
    commission: 0,
    swap: 0,
    reason: "client",
    comment: "",
    state: null,
    contractSize: 100_000,
    ...extra,
  };
}
