/**
 * What the catch-up (./engine.ts) decides for one open source position and one follower, from
 * the ledger's record of it — each with the request id the live event would have had, so what
 * was already done is not done again:
 *  - its open, or, when the follower holds a copy of the order that opened it (MT4 and MT5
 *    positions keep their order's ticket), its fill (./fills.ts): never a second, market copy;
 *  - a partial close missed while no node worked the link: the source holds less than the ledger
 *    last recorded, so the copy is brought to its share of what the source holds now, under the
 *    request id of a partial close down to that volume (the last one missed: a repeat, or that
 *    event replayed later, finds the row and does nothing).
 */
import type { SourceAction } from "../../../../core/copier/index.ts";
import type { PendingOrder, Position, Timestamp } from "../../../../core/trading/index.ts";
import type { CopyState } from "./ledgerRepository.ts";

export function catchUpActions(position: Position, states: ReadonlyMap<string, CopyState>, addedAt: Timestamp, now: Timestamp): SourceAction[] {
  const state = states.get(`position:${position.id}`);
  const order = states.get(`order:${position.id}`);
  const actions: SourceAction[] = [];
  if (!state?.opened && order?.followerId) {
    const filled: PendingOrder = {
      id: position.id,
      login: position.login,
      symbol: position.symbol,
      type: position.side === "buy" ? "buyLimit" : "sellLimit",
      volume: position.volume,
      price: position.openPrice,
      sl: position.sl,
      tp: position.tp,
      expiration: null,
      placedTime: position.openTime,
      comment: "",
      reason: position.reason,
      native: { platform: "MT5", order: 0 },
    };
    actions.push({ type: "orderFilled", time: position.openTime, order: filled, position });
  } else {
    actions.push({ type: "open", time: position.openTime, position, existing: position.openTime < addedAt });
  }
  const last = state?.lastSourceVolume ?? null;
  if (state?.opened && last !== null && position.volume > 0 && position.volume < last) {
    actions.push({ type: "partialClose", time: now, position, closedVolume: last - position.volume });
  }
  return actions;
}
