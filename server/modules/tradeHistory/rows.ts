/**
 * Between the normalized model (money in cents, volume in 1/10000 lots, times in epoch ms) and the
 * store's columns (numeric, timestamptz): money and lots cross as exact decimal strings, never floats.
 */
import {
  formatLots,
  moneyToDecimal,
  type Deal,
  type NativeDealRef,
  type NativeOrderRef,
  type NativePositionRef,
  type PendingOrder,
  type PendingOrderState,
  type Position,
} from "../../../core/trading/index.ts";

/** A deal as `insertDeals` takes it (one element of its JSON document). */
export interface DealColumns {
  dealId: string;
  login: string;
  time: string;
  action: Deal["action"];
  entry: Deal["entry"];
  positionId: string | null;
  symbol: string | null;
  volume: string;
  price: number;
  sl: number | null;
  tp: number | null;
  profit: string;
  commission: string;
  swap: string;
  reason: string;
  comment: string;
  native: NativeDealRef;
}

export interface PositionColumns {
  positionId: string;
  login: string;
  symbol: string;
  side: Position["side"];
  volume: string;
  openTime: string;
  openPrice: number;
  currentPrice: number;
  sl: number | null;
  tp: number | null;
  profit: string;
  swap: string;
  reason: string;
  comment: string;
  native: NativePositionRef;
}

/** A pending order as `upsertOrders` takes it, in the state an event left it. */
export interface OrderColumns {
  orderId: string;
  login: string;
  symbol: string;
  type: PendingOrder["type"];
  volume: string;
  price: number;
  sl: number | null;
  tp: number | null;
  expiration: string | null;
  placedTime: string;
  /** `ended`: gone unseen (a backfill; ./repository/orders.ts, `endOrdersNotListed`). */
  state: PendingOrderState | "ended";
  positionId: string | null;
  doneTime: string | null;
  reason: string;
  comment: string;
  native: NativeOrderRef;
}

export function orderColumns(order: PendingOrder, state: PendingOrderState, done: { time: number; positionId: string | null } | null): OrderColumns {
  return {
    orderId: order.id,
    login: order.login,
    symbol: order.symbol,
    type: order.type,
    volume: formatLots(order.volume),
    price: order.price,
    sl: order.sl,
    tp: order.tp,
    expiration: order.expiration === null ? null : new Date(order.expiration).toISOString(),
    placedTime: new Date(order.placedTime).toISOString(),
    state,
    positionId: done?.positionId ?? null,
    doneTime: done === null ? null : new Date(done.time).toISOString(),
    reason: order.reason,
    comment: order.comment,
    native: order.native,
  };
}

/** Stops of a position the deal belongs to, when the store knows them. */
export interface Stops {
  sl: number | null;
  tp: number | null;
}

export function dealColumns(deal: Deal, stops?: Stops): DealColumns {
  return {
    dealId: deal.id,
    login: deal.login,
    time: new Date(deal.time).toISOString(),
    action: deal.action,
    entry: deal.entry,
    positionId: deal.positionId,
    symbol: deal.symbol,
    volume: formatLots(deal.volume),
    price: deal.price,
    // Deals carry no stops in the normalized model: the position's, where the store has them.
    sl: stops?.sl ?? null,
    tp: stops?.tp ?? null,
    profit: moneyToDecimal(deal.profit),
    commission: moneyToDecimal(deal.commission),
    swap: moneyToDecimal(deal.swap),
    reason: deal.reason,
    comment: deal.comment,
    native: deal.native,
  };
}

export function positionColumns(position: Position): PositionColumns {
  return {
    positionId: position.id,
    login: position.login,
    symbol: position.symbol,
    side: position.side,
    volume: formatLots(position.volume),
    openTime: new Date(position.openTime).toISOString(),
    openPrice: position.openPrice,
    currentPrice: position.currentPrice,
    sl: position.sl,
    tp: position.tp,
    profit: moneyToDecimal(position.profit),
    swap: moneyToDecimal(position.swap),
    reason: position.reason,
    comment: position.comment,
    native: position.native,
  };
}

/** The id a dealer knows a deal by on its platform: the MT4 ticket, the MT5 deal, the Match-Trader id. */
export function dealTicket(native: unknown, fallback: string): string {
  const ref = native as Partial<Record<string, unknown>> | null;
  if (!ref) return fallback;
  if (ref.platform === "MT4" && typeof ref.ticket === "number") return String(ref.ticket);
  if (ref.platform === "MT5" && typeof ref.deal === "number") return String(ref.deal);
  if (ref.platform === "MatchTrader") {
    for (const key of ["ledgerId", "closeId", "positionId"]) if (typeof ref[key] === "string") return ref[key];
  }
  return fallback;
}

/** The id a dealer knows a position by: the MT4 ticket, the MT5 position, the Match-Trader id. */
export function positionTicket(native: unknown, fallback: string): string {
  const ref = native as Partial<Record<string, unknown>> | null;
  if (!ref) return fallback;
  if (ref.platform === "MT4" && typeof ref.ticket === "number") return String(ref.ticket);
  if (ref.platform === "MT5" && typeof ref.position === "number") return String(ref.position);
  if (ref.platform === "MatchTrader" && typeof ref.positionId === "string") return ref.positionId;
  return fallback;
}

/** numeric(20,4) lots as the API shows them: "0.1", "5". */
export function lotsText(value: string): string {
  return value.includes(".") ? value.replace(/0+$/, "").replace(/\.$/, "") : value;
}
