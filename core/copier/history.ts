/**
 * The source's actions over a period, rebuilt from its history as the trade history store keeps
 * it (deals, and pending orders with how they ended): an entry deal opens a position (or fills an
 * order, when a filled order names that position), an exit deal closes it or part of it; an order
 * is placed, then cancelled or expired. Stop changes and order modifications leave no record
 * there, so the preview does not see them. A position opened before the period is not followed.
 * MT4's partial close (the ticket closed, the rest re-issued) is one partial close of the first ticket.
 */
import type { DealAction, DealEntry } from "../trading/deal.ts";
import type { PendingOrder, PendingOrderState, PendingOrderType } from "../trading/pendingOrder.ts";
import type { Timestamp } from "../trading/platform.ts";
import type { Position, Side } from "../trading/position.ts";
import type { Volume } from "../trading/volume.ts";
import type { SourceAction } from "./types.ts";

export interface HistoryDeal {
  id: string;
  time: Timestamp;
  action: DealAction;
  entry: DealEntry | null;
  positionId: string | null;
  symbol: string | null;
  volume: Volume;
  price: number;
  sl: number | null;
  tp: number | null;
  /**
   * MT4 closes part of a trade by closing its ticket and re-issuing the rest under a new one
   * (the exit's comment "to #124"): the position id that continues this one; null elsewhere.
   */
  continuedBy?: string | null;
}

export interface HistoryOrder {
  id: string;
  symbol: string;
  type: PendingOrderType;
  volume: Volume;
  price: number;
  sl: number | null;
  tp: number | null;
  expiration: Timestamp | null;
  placedTime: Timestamp;
  state: PendingOrderState;
  positionId: string | null;
  doneTime: Timestamp | null;
}

export interface SourceHistory {
  login: string;
  deals: readonly HistoryDeal[];
  orders: readonly HistoryOrder[];
}

function positionOf(
  login: string,
  id: string,
  symbol: string,
  side: Side,
  volume: Volume,
  price: number,
  sl: number | null,
  tp: number | null,
  time: Timestamp,
): Position {
  return {
    id,
    login,
    symbol,
    side,
    volume,
    openTime: time,
    openPrice: price,
    currentPrice: price,
    sl,
    tp,
    profit: 0,
    swap: 0,
    comment: "",
    reason: "client",
    previousId: null,
    native: { platform: "MT5", position: 0 },
  };
}

function orderOf(login: string, o: HistoryOrder): PendingOrder {
  return { ...o, login, comment: "", reason: "client", native: { platform: "MT5", order: 0 } };
}

/** Within one millisecond: orders placed first, then entries, exits, and cancels last. */
const RANK: Record<SourceAction["type"], number> = {
  orderPlaced: 0,
  orderModified: 1,
  orderFilled: 2,
  open: 2,
  stops: 3,
  partialClose: 4,
  close: 4,
  orderCancelled: 5,
};

/** The source's actions in time order, from the deals and orders of [from, to). */
export function sourceActionsOf(history: SourceHistory, from: Timestamp, to: Timestamp): SourceAction[] {
  const within = (t: Timestamp | null) => t !== null && t >= from && t < to;
  const fills = new Map<string, HistoryOrder>();
  const actions: { at: number; seq: number; action: SourceAction }[] = [];
  let seq = 0;
  const push = (action: SourceAction) => actions.push({ at: action.time, seq: seq++, action });
  for (const o of history.orders) {
    if (within(o.placedTime)) push({ type: "orderPlaced", time: o.placedTime, order: orderOf(history.login, o) });
    if (o.state === "filled" && o.positionId !== null) fills.set(o.positionId, o);
    if ((o.state === "cancelled" || o.state === "expired") && within(o.doneTime)) {
      push({ type: "orderCancelled", time: o.doneTime!, order: orderOf(history.login, o) });
    }
  }
  const open = new Map<string, Position>();
  // MT4's re-issued tickets → the position they continue (as first opened), so the chain is one position.
  const rootOf = new Map<string, string>();
  const deals = [...history.deals].filter((d) => within(d.time)).sort((a, b) => a.time - b.time);
  for (const d of deals) {
    if ((d.action !== "buy" && d.action !== "sell") || d.positionId === null || d.symbol === null || d.volume <= 0) continue;
    if (d.entry === "in") {
      const known = open.get(d.positionId);
      if (known) {
        // A second entry into the same position (netting): it grows; the preview copies the first entry only.
        open.set(d.positionId, { ...known, volume: known.volume + d.volume });
        continue;
      }
      const position = positionOf(history.login, d.positionId, d.symbol, d.action, d.volume, d.price, d.sl, d.tp, d.time);
      open.set(d.positionId, position);
      const order = fills.get(d.positionId);
      if (order && within(order.placedTime)) push({ type: "orderFilled", time: d.time, order: orderOf(history.login, order), position });
      else push({ type: "open", time: d.time, position });
    } else if (d.entry === "out") {
      const root = rootOf.get(d.positionId) ?? d.positionId;
      const position = open.get(root);
      if (!position) continue;
      if (d.continuedBy) rootOf.set(d.continuedBy, root);
      if (d.volume >= position.volume) {
        open.delete(root);
        push({ type: "close", time: d.time, position: { ...position, closeTime: d.time, closePrice: d.price, closeReason: "client" } });
      } else {
        const rest = { ...position, volume: position.volume - d.volume };
        open.set(root, rest);
        push({ type: "partialClose", time: d.time, position: rest, closedVolume: d.volume });
      }
    }
  }
  return actions.sort((a, b) => a.at - b.at || RANK[a.action.type] - RANK[b.action.type] || a.seq - b.seq).map((a) => a.action);
}
