/**
 * Pending orders: an order to open a position when the price reaches a level (buy/sell limit,
 * buy/sell stop). The platform keeps them and triggers them itself on its price feed; when one
 * fills, the position it opens names it (`Position.orderId`). Like positions, the comment is what
 * the trader or dealer wrote and Toolbox's tag is carried apart (`tag`).
 */
import type { NativeOrderRef } from "./native.ts";
import type { Timestamp } from "./platform.ts";
import type { Position, Side, TradeReason } from "./position.ts";
import type { Volume } from "./volume.ts";

export const PENDING_ORDER_TYPES = ["buyLimit", "sellLimit", "buyStop", "sellStop"] as const;
export type PendingOrderType = (typeof PENDING_ORDER_TYPES)[number];

export const PENDING_ORDER_TYPE_LABELS: Record<PendingOrderType, string> = {
  buyLimit: "Buy limit",
  sellLimit: "Sell limit",
  buyStop: "Buy stop",
  sellStop: "Sell stop",
};

/** The side of the position the order opens. */
export function pendingOrderSide(type: PendingOrderType): Side {
  return type === "buyLimit" || type === "buyStop" ? "buy" : "sell";
}

/** A limit waits for a better price than now (a buy below the ask, a sell above the bid); a stop for a worse one. */
export function isLimitOrder(type: PendingOrderType): boolean {
  return type === "buyLimit" || type === "sellLimit";
}

/**
 * Whether the order triggers at this quote: a buy fills at the ask, a sell at the bid; a limit
 * when that price reaches its level from the favourable side (buy limit: ask ≤ price), a stop from
 * the other (buy stop: ask ≥ price).
 */
export function pendingOrderTriggers(order: Pick<PendingOrder, "type" | "price">, bid: number, ask: number): boolean {
  switch (order.type) {
    case "buyLimit":
      return ask <= order.price;
    case "sellLimit":
      return bid >= order.price;
    case "buyStop":
      return ask >= order.price;
    case "sellStop":
      return bid <= order.price;
  }
}

/** An order waiting on the platform. */
export interface PendingOrder {
  id: string;
  login: string;
  symbol: string;
  type: PendingOrderType;
  volume: Volume;
  /** The level it triggers at. */
  price: number;
  /** Stop loss and take profit the position gets when the order fills. */
  sl: number | null;
  tp: number | null;
  /** When the platform cancels it if it has not filled; null: good till cancelled. */
  expiration: Timestamp | null;
  placedTime: Timestamp;
  /** What the trader or dealer wrote, without Toolbox's tag. */
  comment: string;
  /** Toolbox's tag (see Position.tag): how the copier recognises its own orders. Never shown as the comment. */
  tag?: string;
  reason: TradeReason;
  native: NativeOrderRef;
}

/** How an order left the book without filling: a dealer or trader cancelled it, or its expiration passed. */
export type PendingOrderCancelCause = "cancelled" | "expired";

/** What became of an order, as the history keeps it. */
export type PendingOrderState = "placed" | "filled" | "cancelled" | "expired";

/**
 * A pending order that left the book, as the platform's order history tells it: how (filled,
 * cancelled, expired), when, and the position a fill opened where the platform says it.
 */
export interface FinishedPendingOrder {
  order: PendingOrder;
  state: Exclude<PendingOrderState, "placed">;
  /** When it left the book; null where the platform's history does not say (Match-Trader). */
  time: Timestamp | null;
  positionId: string | null;
}

/** Place a pending order; exactly once per `requestId`. */
export interface PlacePendingOrderRequest {
  requestId: string;
  login: string;
  symbol: string;
  type: PendingOrderType;
  volume: Volume;
  price: number;
  sl?: number | null;
  tp?: number | null;
  expiration?: Timestamp | null;
  comment?: string;
  reason?: TradeReason;
}

/** Move a pending order's level, stops or expiration (null removes a stop, or the expiration); exactly once per `requestId`. */
export interface ModifyPendingOrderRequest {
  requestId: string;
  orderId: string;
  price: number;
  sl: number | null;
  tp: number | null;
  expiration: Timestamp | null;
  /**
   * The account the order belongs to, where the caller knows it: MT4 looks a finished order up in
   * that account's history, so a delete already made is recognised by a fresh connector too
   * (docs/connectors.md, "MT4 manager gateway"). Not part of the request's identity elsewhere.
   */
  login?: string;
}

/** Cancel a pending order; exactly once per `requestId`. */
export interface CancelPendingOrderRequest {
  requestId: string;
  orderId: string;
  /**
   * The account the order belongs to, where the caller knows it: MT4 looks a finished order up in
   * that account's history, so a delete already made is recognised by a fresh connector too
   * (docs/connectors.md, "MT4 manager gateway"). Not part of the request's identity elsewhere.
   */
  login?: string;
}

export interface PendingOrderResult {
  requestId: string;
  orderId: string;
  /**
   * Which operation this answers, where the platform's answer says it (MT4's TradeTransaction
   * result: open, modify, delete); absent where it does not.
   */
  operation?: "place" | "modify" | "cancel";
  /** The order's level after the operation. */
  price: number;
  volume: Volume;
  time: Timestamp;
}

/** The position a filled order opened, with the order as it stood when it filled. */
export interface PendingOrderFill {
  order: PendingOrder;
  position: Position;
}
