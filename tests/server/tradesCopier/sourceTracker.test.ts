/**
 * The copier engine's reading of a source's trade events (server/modules/tradesCopier/engine/sourceTracker.ts):
 * MT4's close-and-reissue (the ticket closed "to #124", the rest opened as 124) is one partial close
 * of the first ticket, and the later close of 124 is the close of the first ticket; a fill's
 * positionOpened is not an open of its own; the same events again give the same actions (so the
 * same request ids).
 */
import { describe, expect, it } from "vitest";
import { copyRequestId } from "../../../core/copier/index.ts";
import type { ClosedPosition, PendingOrder, Position, TradeEvent } from "../../../core/trading/index.ts";
import { SourceTracker } from "../../../server/modules/tradesCopier/engine/sourceTracker.ts";

const position = (id: string, volume: number, extra: Partial<Position> = {}): Position => ({
  id,
  login: "7",
  symbol: "EURUSD",
  side: "buy",
  volume,
  openTime: 1000,
  openPrice: 1.1,
  currentPrice: 1.1,
  sl: null,
  tp: null,
  profit: 0,
  swap: 0,
  comment: "",
  reason: "client",
  previousId: null,
  native: { platform: "MT4", ticket: Number(id) },
  ...extra,
});
const closed = (p: Position, volume: number, comment = ""): ClosedPosition => ({
  ...p,
  volume,
  comment,
  closeTime: 2000,
  closePrice: 1.2,
  closeReason: "client",
});

describe("the copier's source tracker", () => {
  it("turns MT4's close-and-reissue into one partial close of the first ticket, and follows the new ticket", () => {
    const tracker = new SourceTracker("7");
    const first = position("123", 10_000);
    const events: TradeEvent[] = [
      { type: "positionOpened", sequence: 1, time: 1000, login: "7", position: first },
      { type: "positionClosed", sequence: 2, time: 2000, login: "7", position: closed(first, 3000, "to #124") },
      { type: "positionOpened", sequence: 3, time: 2000, login: "7", position: position("124", 7000, { previousId: "123", comment: "from #123" }) },
      { type: "positionClosed", sequence: 4, time: 3000, login: "7", position: closed(position("124", 7000, { previousId: "123" }), 7000) },
      { type: "positionOpened", sequence: 5, time: 3000, login: "8", position: position("999", 1000, { login: "8" }) },
    ];
    const actions = events.flatMap((e) => tracker.actionsOf(e));
    expect(actions.map((a) => [a.type, "position" in a ? a.position.id : null, "position" in a ? a.position.volume : null])).toEqual([
      ["open", "123", 10_000],
      ["partialClose", "123", 7000],
      ["close", "123", 7000],
    ]);
    expect(actions[1]).toMatchObject({ closedVolume: 3000 });

    // The same events again (a redelivery, a replay) give the same request ids.
    const again = new SourceTracker("7");
    const ids = (list: ReturnType<SourceTracker["actionsOf"]>) => list.map((a) => copyRequestId("link", "p:1", a));
    expect(ids(events.flatMap((e) => again.actionsOf(e)))).toEqual(ids(actions));
  });

  it("leaves a fill's positionOpened to its orderFilled, and reads a partial close's volume from what the position held", () => {
    const tracker = new SourceTracker("7");
    const order = { id: "55", login: "7", symbol: "EURUSD", type: "buyLimit", volume: 2000 } as unknown as PendingOrder;
    const filled = position("60", 2000, { orderId: "55" });
    const events: TradeEvent[] = [
      { type: "orderFilled", sequence: 1, time: 1000, login: "7", order, position: filled },
      { type: "positionOpened", sequence: 2, time: 1000, login: "7", position: filled },
      { type: "positionModified", sequence: 3, time: 2000, login: "7", position: { ...filled, volume: 1500 }, change: "partialClose" },
    ];
    expect(events.flatMap((e) => tracker.actionsOf(e)).map((a) => [a.type, "closedVolume" in a ? a.closedVolume : null])).toEqual([
      ["orderFilled", null],
      ["partialClose", 500],
    ]);
  });
});
