/**
 * The copy rules' decisions, each against a hand-worked expectation: direction and stops,
 * symbols, filters, delay and deviation, risk stops, close-only, pending orders, existing
 * positions, disabled followers, and request ids.
 */
import { describe, expect, it } from "vitest";
import { copyRequestId, decide, mapSymbolName, symbolFilter, type SourceAction } from "../../../core/copier/index.ts";
import { SymbolMappingSchema } from "../../../core/schemas/copier.ts";
import { UUID_PATTERN } from "../../../core/ids.ts";
import { context, order, position, settings, symbol } from "./fixtures.ts";

const open = (patch = {}, time = 1_000_000): SourceAction => ({ type: "open", time, position: position(patch) });
const copied = { positionId: "9001", symbol: "EURUSD", side: "buy" as const, volume: 1000, openPrice: 1.10012 };

describe("direction and stops", () => {
  it("reverse: a buy with SL 1.09500 and TP 1.11000 becomes a sell with SL 1.11000 and TP 1.09500", () => {
    const d = decide(open({ sl: 1.095, tp: 1.11 }), settings({ direction: "reverse" }), context());
    expect(d).toMatchObject({ kind: "copy", action: { type: "open", side: "sell", sl: 1.11, tp: 1.095 } });
  });

  it("a reversed stops change swaps too", () => {
    const d = decide(
      { type: "stops", time: 1, position: position({ sl: 1.096, tp: 1.12 }) },
      settings({ direction: "reverse" }),
      context({ copied: { ...copied, side: "sell" } }),
    );
    expect(d).toMatchObject({ kind: "copy", action: { type: "modify", positionId: "9001", sl: 1.12, tp: 1.096 } });
  });

  it("a stops change follows the copy's own direction when the setting changed since it was copied", () => {
    const change = { type: "stops" as const, time: 1, position: position({ sl: 1.096, tp: 1.12 }) };
    // Copied as a buy, the follower since set to reverse: its TP stays above, its SL below.
    expect(decide(change, settings({ direction: "reverse" }), context({ copied }))).toMatchObject({ action: { sl: 1.096, tp: 1.12 } });
    // Copied reversed (a sell), the follower since set back to same: still swapped.
    expect(decide(change, settings({ direction: "same" }), context({ copied: { ...copied, side: "sell" } }))).toMatchObject({
      action: { sl: 1.12, tp: 1.096 },
    });
    const moved = { type: "orderModified" as const, time: 1, order: order({ type: "buyLimit", price: 1.095, sl: 1.09, tp: 1.105 }) };
    const copiedOrder = { orderId: "7001", symbol: "EURUSD", type: "buyLimit" as const, volume: 1000, price: 1.095 };
    expect(decide(moved, settings({ direction: "reverse" }), context({ copiedOrder }))).toMatchObject({ action: { sl: 1.09, tp: 1.105 } });
  });

  it("none: no stops; a later stops change is nothing to do", () => {
    const s = settings({ stops: { mode: "none" } });
    expect(decide(open({ sl: 1.095, tp: 1.11 }), s, context())).toMatchObject({ action: { sl: null, tp: null } });
    expect(decide({ type: "stops", time: 1, position: position({ sl: 1.09 }) }, s, context({ copied }))).toEqual({ kind: "nothing", why: "stopsNotCopied" });
  });

  it("fixed 200/300 points from a buy at the follower's ask 1.10012: SL 1.09812, TP 1.10312; a sell at the bid 1.10000: SL 1.10200, TP 1.09700", () => {
    const s = settings({ stops: { mode: "fixed", slPoints: 200, tpPoints: 300 } });
    const ctx = context({ price: { bid: 1.1, ask: 1.10012 } });
    expect(decide(open({ sl: 1.05 }), s, ctx)).toMatchObject({ action: { side: "buy", sl: 1.09812, tp: 1.10312 } });
    expect(decide(open({ side: "sell" }), s, ctx)).toMatchObject({ action: { side: "sell", sl: 1.102, tp: 1.097 } });
  });

  it("a reversed buy limit is a sell stop at the same level, its stops swapped", () => {
    const d = decide(
      { type: "orderPlaced", time: 1_000_000, order: order({ type: "buyLimit", price: 1.095, sl: 1.09, tp: 1.105 }) },
      settings({ direction: "reverse" }),
      context(),
    );
    expect(d).toMatchObject({ kind: "copy", action: { type: "placeOrder", orderType: "sellStop", price: 1.095, sl: 1.105, tp: 1.09, volume: 1000 } });
  });
});

describe("symbols", () => {
  const mapping = SymbolMappingSchema.parse({ pairs: [{ source: "GOLD", follower: "XAUUSD" }], sourceSuffix: ".m", followerPrefix: "fx" });

  it("an explicit pair first (without letter case), then the prefix and suffix", () => {
    expect(mapSymbolName(mapping, "gold")).toBe("XAUUSD");
    expect(mapSymbolName(mapping, "EURUSD.m")).toBe("fxEURUSD");
    expect(mapSymbolName(mapping, "EURUSD")).toBe("fxEURUSD");
  });

  it("the mapped symbol must exist on the follower's server (an exact name, else one equal without case)", () => {
    const s = settings({ symbols: { pairs: [{ source: "EURUSD", follower: "eurusd.pro" }] } });
    expect(decide(open(), s, context({}, [symbol("EURUSD.PRO")]))).toMatchObject({ kind: "copy", action: { symbol: "EURUSD.PRO" } });
    expect(decide(open(), s, context({}, [symbol("GBPUSD")]))).toEqual({ kind: "skip", reason: "symbolMissing" });
  });

  it("blocked is checked before allowed; an empty allowed mask allows all", () => {
    expect(symbolFilter("*", "XAU*", "XAUUSD")).toBe("symbolBlocked");
    expect(symbolFilter("EUR*,GBP*", "", "USDJPY")).toBe("symbolNotAllowed");
    expect(symbolFilter("", "", "USDJPY")).toBeNull();
    expect(decide(open(), settings({ allowedSymbols: "EUR*", blockedSymbols: "EURUSD" }), context())).toEqual({ kind: "skip", reason: "symbolBlocked" });
  });
});

describe("delay and deviation", () => {
  it("a 6-second-old open with a 5-second maximum is too late; its close an hour later is still copied", () => {
    const s = settings({ maxDelaySeconds: 5 });
    expect(decide(open({}, 1_000_000), s, context({ now: 1_006_000 }))).toEqual({ kind: "skip", reason: "tooLate" });
    expect(decide(open({}, 1_000_000), s, context({ now: 1_005_000 }))).toMatchObject({ kind: "copy" });
    const close: SourceAction = { type: "close", time: 1_000_000, position: { ...position(), closeTime: 1, closePrice: 1.1, closeReason: "client" } };
    expect(decide(close, s, context({ now: 4_600_000, copied }))).toMatchObject({ kind: "copy", action: { type: "close", volume: 1000, whole: true } });
  });

  it("the source bought at 1.10012; a follower ask of 1.10025 is 13 points away (≥ 10: skipped), 1.10020 is 8 (sent, guarded at 10)", () => {
    const s = settings({ maxDeviationPoints: 10 });
    expect(decide(open(), s, context({ price: { bid: 1.1001, ask: 1.10025 } }))).toEqual({ kind: "skip", reason: "priceDeviation" });
    expect(decide(open(), s, context({ price: { bid: 1.1001, ask: 1.1002 } }))).toMatchObject({
      kind: "copy",
      action: { expectedPrice: 1.1002, maxDeviationPoints: 10 },
    });
  });
});

describe("risk stops and close-only", () => {
  it("equity 999.99 under a floor of 1,000: new positions skipped with the stop's action; the copy's close still goes", () => {
    const s = settings({ equityFloor: { amount: 1000, action: "closeAndSuspend" } });
    const ctx = context({ follower: { balance: 100_000, equity: 99_999 } });
    expect(decide(open(), s, ctx)).toEqual({ kind: "skip", reason: "equityFloor", riskStop: { stop: "equityFloor", action: "closeAndSuspend" } });
    expect(decide(open(), s, context({ follower: { balance: 100_000, equity: 100_000 } }))).toMatchObject({ kind: "copy" });
    const close: SourceAction = { type: "close", time: 1, position: { ...position(), closeTime: 1, closePrice: 1.1, closeReason: "client" } };
    expect(decide(close, s, { ...ctx, copied })).toMatchObject({ kind: "copy" });
  });

  it("a day's loss of 200.00 reaches a limit of 200", () => {
    const s = settings({ dailyLossLimit: { amount: 200, action: "suspend" } });
    expect(decide(open(), s, context({ dailyProfit: -20_000 }))).toMatchObject({ kind: "skip", reason: "dailyLossLimit", riskStop: { action: "suspend" } });
    expect(decide(open(), s, context({ dailyProfit: -19_999 }))).toMatchObject({ kind: "copy" });
  });

  it("close-only: no new positions or orders; stops changes, partial closes and order cancels still copied", () => {
    const s = settings({ closeOnly: true });
    expect(decide(open(), s, context())).toEqual({ kind: "skip", reason: "closeOnly" });
    expect(decide({ type: "orderPlaced", time: 1_000_000, order: order() }, s, context())).toEqual({ kind: "skip", reason: "closeOnly" });
    expect(decide({ type: "stops", time: 1, position: position({ sl: 1.09 }) }, s, context({ copied }))).toMatchObject({
      kind: "copy",
      action: { type: "modify" },
    });
    const copiedOrder = { orderId: "8001", symbol: "EURUSD", type: "buyLimit" as const, volume: 1000 };
    expect(decide({ type: "orderCancelled", time: 1, order: order() }, s, context({ copiedOrder }))).toMatchObject({
      kind: "copy",
      action: { type: "cancelOrder", orderId: "8001" },
    });
  });
});

describe("pending orders, existing positions, disabled", () => {
  it("pending orders off: placing is skipped, and the source's fill opens a market copy instead", () => {
    const s = settings({ copyPendingOrders: false });
    expect(decide({ type: "orderPlaced", time: 1_000_000, order: order() }, s, context())).toEqual({ kind: "skip", reason: "pendingOrdersOff" });
    expect(decide({ type: "orderFilled", time: 1_000_000, order: order(), position: position() }, s, context())).toMatchObject({
      kind: "copy",
      action: { type: "open", side: "buy", volume: 1000 },
    });
  });

  it("a copied order fills on its own: nothing to send", () => {
    const copiedOrder = { orderId: "8001", symbol: "EURUSD", type: "buyLimit" as const, volume: 1000 };
    expect(decide({ type: "orderFilled", time: 1, order: order(), position: position() }, settings(), context({ copiedOrder }))).toEqual({
      kind: "nothing",
      why: "orderFillsItself",
    });
  });

  it("a modified order moves the copy (level rounded to the follower's digits)", () => {
    const copiedOrder = { orderId: "8001", symbol: "EURUSD", type: "buyLimit" as const, volume: 1000 };
    const d = decide({ type: "orderModified", time: 5, order: order({ price: 1.0940001, sl: 1.09 }) }, settings(), context({ copiedOrder }));
    expect(d).toMatchObject({ kind: "copy", action: { type: "modifyOrder", orderId: "8001", price: 1.094, sl: 1.09, tp: null } });
  });

  it("positions open before the follower was added: skipped unless copyExistingPositions, and then max delay does not apply", () => {
    const existing: SourceAction = { type: "open", time: 0, position: position(), existing: true };
    expect(decide(existing, settings(), context())).toEqual({ kind: "skip", reason: "existingPosition" });
    expect(decide(existing, settings({ copyExistingPositions: true, maxDelaySeconds: 1 }), context({ now: 10_000_000 }))).toMatchObject({ kind: "copy" });
  });

  it("a disabled link or follower copies nothing, not even closes", () => {
    const close: SourceAction = { type: "close", time: 1, position: { ...position(), closeTime: 1, closePrice: 1.1, closeReason: "client" } };
    expect(decide(close, settings({ enabled: false }), context({ copied }))).toEqual({ kind: "skip", reason: "followerDisabled" });
    expect(decide(close, settings(), context({ copied, linkEnabled: false }))).toEqual({ kind: "skip", reason: "linkDisabled" });
    expect(decide(close, settings(), context())).toEqual({ kind: "skip", reason: "notCopied" });
  });
});

describe("request ids", () => {
  it("the same link, follower, source position and action give the same UUID-shaped id; another action another id", () => {
    const a = copyRequestId("link", "p:1", open());
    expect(a).toMatch(UUID_PATTERN);
    expect(copyRequestId("link", "p:1", open())).toBe(a);
    const close: SourceAction = { type: "close", time: 1, position: { ...position(), closeTime: 1, closePrice: 1.1, closeReason: "client" } };
    const ids = new Set([
      a,
      copyRequestId("link", "p:2", open()),
      copyRequestId("other", "p:1", open()),
      copyRequestId("link", "p:1", open({ id: "5002" })),
      copyRequestId("link", "p:1", close),
      copyRequestId("link", "p:1", { type: "partialClose", time: 1, position: position({ volume: 600 }), closedVolume: 400 }),
      copyRequestId("link", "p:1", { type: "partialClose", time: 2, position: position({ volume: 300 }), closedVolume: 300 }),
    ]);
    expect(ids.size).toBe(7);
  });

  it("a decision carries it, and a retry of the same action decides the same id", () => {
    const first = decide(open(), settings(), context());
    const again = decide(open(), settings(), context({ now: 2_000_000 }));
    if (first.kind !== "copy" || again.kind !== "copy") throw new Error("not copied");
    expect(again.action.requestId).toBe(first.action.requestId);
  });
});
