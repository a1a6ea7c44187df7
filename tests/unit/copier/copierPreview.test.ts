/**
 * The preview on a hand-written history: the source's deals and orders rebuilt into actions in
 * time order, and one follower's outcome for each, checked against figures worked out by hand
 * (multiplier 0.5; gold blocked).
 */
import { expect, it } from "vitest";
import { previewFollower, sourceActionsOf, type HistoryDeal, type HistoryOrder } from "../../../core/copier/index.ts";
import { previewContext, settings, symbol } from "./fixtures.ts";

const deal = (
  id: string,
  time: number,
  action: "buy" | "sell",
  entry: "in" | "out",
  positionId: string,
  volume: number,
  symbolName = "EURUSD",
  sl: number | null = null,
): HistoryDeal => ({
  id,
  time,
  action,
  entry,
  positionId,
  symbol: symbolName,
  volume,
  price: 1.1,
  sl,
  tp: null,
});
const order = (
  id: string,
  type: HistoryOrder["type"],
  volume: number,
  placedTime: number,
  state: HistoryOrder["state"],
  doneTime: number | null,
  positionId: string | null,
): HistoryOrder => ({
  id,
  symbol: "EURUSD",
  type,
  volume,
  price: 1.095,
  sl: null,
  tp: null,
  expiration: null,
  placedTime,
  state,
  positionId,
  doneTime,
});

it("copies, skips and follows each source action of the period with the follower's volumes", () => {
  const history = {
    login: "1001",
    deals: [
      deal("d0", 110, "sell", "out", "P0", 10_000),
      deal("d1", 150, "buy", "in", "P1", 10_000, "EURUSD", 1.09),
      deal("d2", 160, "buy", "in", "P3", 100, "XAUUSD"),
      deal("d3", 200, "buy", "in", "P2", 5000),
      deal("d4", 250, "sell", "out", "P1", 4000),
      deal("d5", 300, "sell", "out", "P1", 6000),
      deal("d6", 400, "sell", "out", "P2", 5000),
      deal("late", 1000, "sell", "out", "P3", 100, "XAUUSD"),
    ],
    orders: [order("O1", "buyLimit", 5000, 100, "filled", 200, "P2"), order("O2", "sellStop", 2000, 120, "cancelled", 350, null)],
  };
  const actions = sourceActionsOf(history, 100, 1000);
  const s = settings({ volume: { mode: "multiplier", multiplier: 0.5 }, blockedSymbols: "XAU*" });
  const signals = previewFollower(actions, s, previewContext({}, [symbol("EURUSD")]));
  const brief = signals.map((x) => [
    x.source.action,
    x.source.positionId ?? x.source.orderId,
    x.outcome,
    x.reason,
    x.follower?.action ?? null,
    x.follower?.orderType ?? x.follower?.side ?? null,
    x.follower?.volume ?? null,
  ]);
  expect(brief).toEqual([
    ["orderPlaced", "O1", "copy", null, "placeOrder", "buyLimit", "0.25"],
    ["orderPlaced", "O2", "copy", null, "placeOrder", "sellStop", "0.1"],
    ["open", "P1", "copy", null, "open", "buy", "0.5"],
    ["open", "P3", "skip", "symbolBlocked", null, null, null],
    ["orderFilled", "P2", "nothing", null, null, null, null],
    // 0.40 of the source's 1.00 closed: 0.40 × 0.50 = 0.20 of the follower's.
    ["partialClose", "P1", "copy", null, "close", "buy", "0.2"],
    ["close", "P1", "copy", null, "close", "buy", "0.3"],
    ["orderCancelled", "O2", "copy", null, "cancelOrder", "sellStop", null],
    // The copied order filled on its own into 0.25 lot, closed whole.
    ["close", "P2", "copy", null, "close", "buy", "0.25"],
  ]);
  expect(signals[2]!.follower).toMatchObject({ symbol: "EURUSD", sl: 1.09, tp: null });
  expect(signals[3]!.reasonText).toBe("The symbol is blocked");
  expect(signals[0]!.time).toBe(new Date(100).toISOString());
});

it("follows MT4's re-issued ticket: a partial close (exit 'to #124') then the rest closed under ticket 124 is one position", () => {
  const history = {
    login: "1001",
    deals: [
      deal("123:in", 100, "buy", "in", "123", 10_000),
      { ...deal("123:out", 200, "sell", "out", "123", 4000), continuedBy: "124" },
      { ...deal("124:out", 300, "sell", "out", "124", 2000), continuedBy: "125" },
      deal("125:out", 400, "sell", "out", "125", 4000),
    ],
    orders: [],
  };
  const signals = previewFollower(sourceActionsOf(history, 0, 1000), settings(), previewContext());
  expect(signals.map((x) => [x.source.action, x.source.positionId, x.follower?.action, x.follower?.volume])).toEqual([
    ["open", "123", "open", "1"],
    ["partialClose", "123", "close", "0.4"],
    // 0.20 of the 0.60 the source held: a third of the follower's 0.60.
    ["partialClose", "123", "close", "0.2"],
    ["close", "123", "close", "0.4"],
  ]);
});

it("brings a copy to its share of what the source keeps, as the engine does: two partial closes at multiplier 0.35", () => {
  const history = {
    login: "1001",
    deals: [
      deal("7:in", 100, "buy", "in", "7", 10_000),
      deal("7:out1", 200, "sell", "out", "7", 3000),
      deal("7:out2", 300, "sell", "out", "7", 3000),
      deal("7:out3", 400, "sell", "out", "7", 4000),
    ],
    orders: [],
  };
  const signals = previewFollower(sourceActionsOf(history, 0, 1000), settings({ volume: { mode: "multiplier", multiplier: 0.35 } }), previewContext());
  // 0.35 × 0.7 = 0.245 → 0.25 kept (0.10 closed); 0.35 × 0.4 = 0.14 kept (0.11 closed: a fraction of
  // what the copy held, 3/7 of 0.25 = 0.107, would have closed 0.10 and left a step too much).
  expect(signals.map((x) => [x.source.action, x.follower?.action, x.follower?.volume])).toEqual([
    ["open", "open", "0.35"],
    ["partialClose", "close", "0.1"],
    ["partialClose", "close", "0.11"],
    ["close", "close", "0.14"],
  ]);
});
