/**
 * The risk stops' pure rules (core/copier/risk.ts): today's P/L of a follower's copies, a
 * persisted suspension refusing new exposure while closes still go, when a suspension lifts by
 * itself, and the request ids of its closes.
 */
import { describe, expect, it } from "vitest";
import { dailyProfitOf, decide, riskCloseRequestId, suspensionAt, suspensionUntil, type SourceAction } from "../../../core/copier/index.ts";
import type { Deal } from "../../../core/trading/index.ts";
import { context, order, position, settings } from "./fixtures.ts";

const DAY_START = 1_700_000_000_000;
const deal = (patch: Partial<Deal>): Deal => ({
  id: "d",
  login: "2001",
  time: DAY_START + 1000,
  action: "sell",
  entry: "out",
  positionId: "c1",
  symbol: "EURUSD",
  volume: 1000,
  price: 1.1,
  profit: 0,
  commission: 0,
  swap: 0,
  comment: "",
  reason: "api",
  native: { platform: "MT5", deal: 1, order: 1, position: 1 },
  ...patch,
});

describe("today's P/L of the copies", () => {
  it("sums the copies' closing deals of today (profit + swap + commission) and the open copies' profit + swap, nothing else", () => {
    const got = dailyProfitOf({
      deals: [
        deal({ positionId: "c1", profit: -12_345, swap: -55, commission: -700 }),
        // The entry deal of a copy: not a close.
        deal({ positionId: "c2", entry: "in", commission: -300 }),
        // A copy closed yesterday.
        deal({ positionId: "c3", time: DAY_START - 1, profit: -99_999 }),
        // The follower's own position.
        deal({ positionId: "own", profit: -50_000 }),
        // A balance deal.
        deal({ positionId: null, entry: null, action: "balance", profit: 1_000_000 }),
        // A partial close of a copy that is still open, at the day's very start.
        deal({ positionId: "c2", time: DAY_START, profit: 2_000, swap: -10 }),
      ],
      open: [position({ id: "c2", profit: -4_000, swap: -20 }), position({ id: "own", profit: -70_000 })],
      copies: new Set(["c1", "c2", "c3"]),
      dayStart: DAY_START,
    });
    expect(got).toEqual({ realized: -12_345 - 55 - 700 + 2_000 - 10, floating: -4_020, total: -12_345 - 55 - 700 + 2_000 - 10 - 4_020 });
  });
});

describe("a persisted suspension", () => {
  const s = settings({ equityFloor: { amount: 1000, action: "suspend" } });
  const rich = { follower: { balance: 10_000_000, equity: 10_000_000 } };

  it("refuses new positions and orders with its stop, even once equity is back above the floor; closes and stop changes still go", () => {
    const suspended = context({ ...rich, suspension: { stop: "equityFloor", action: "suspend" } });
    expect(decide({ type: "open", time: 1_000_000, position: position() }, s, suspended)).toEqual({
      kind: "skip",
      reason: "equityFloor",
      riskStop: { stop: "equityFloor", action: "suspend" },
    });
    expect(decide({ type: "orderPlaced", time: 1_000_000, order: order() }, s, suspended)).toMatchObject({ kind: "skip", reason: "equityFloor" });
    const copied = { positionId: "9001", symbol: "EURUSD", side: "buy" as const, volume: 1000, openPrice: 1.1 };
    const close: SourceAction = { type: "close", time: 1, position: { ...position(), closeTime: 1, closePrice: 1.1, closeReason: "client" } };
    expect(decide(close, s, { ...suspended, copied })).toMatchObject({ kind: "copy", action: { type: "close" } });
    const partial: SourceAction = { type: "partialClose", time: 1, position: position({ volume: 500 }), closedVolume: 500 };
    expect(decide(partial, s, { ...suspended, copied })).toMatchObject({ kind: "copy", action: { type: "close", whole: false } });
    expect(decide({ type: "stops", time: 1, position: position({ sl: 1.09 }) }, s, { ...suspended, copied })).toMatchObject({
      kind: "copy",
      action: { type: "modify" },
    });
    expect(decide({ type: "open", time: 1_000_000, position: position() }, s, context(rich))).toMatchObject({ kind: "copy" });
  });

  it("the daily loss limit lifts at the next day's start; the equity floor only when a member resumes it", () => {
    const next = DAY_START + 86_400_000;
    expect(suspensionUntil("dailyLossLimit", next)).toBe(next);
    expect(suspensionUntil("equityFloor", next)).toBeNull();
    const daily = { stop: "dailyLossLimit" as const, action: "suspend" as const, at: DAY_START + 5, until: next };
    expect(suspensionAt(daily, next - 1)).toBe(daily);
    expect(suspensionAt(daily, next)).toBeNull();
    const floor = { ...daily, stop: "equityFloor" as const, until: null };
    expect(suspensionAt(floor, next * 2)).toBe(floor);
    expect(suspensionAt(null, next)).toBeNull();
  });

  it("closes a copy under an id of the link, follower, source and suspension: the same again, another for a later suspension", () => {
    const a = riskCloseRequestId("link", "p:1", "position:5", 1000);
    expect(riskCloseRequestId("link", "p:1", "position:5", 1000)).toBe(a);
    expect(new Set([a, riskCloseRequestId("link", "p:1", "position:5", 1001), riskCloseRequestId("link", "p:1", "position:6", 1000)]).size).toBe(3);
  });
});
