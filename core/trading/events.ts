import type { Account } from "./account.ts";
import type { Deal } from "./deal.ts";
import type { DistributiveOmit, Timestamp } from "./platform.ts";
import type { PendingOrder, PendingOrderCancelCause } from "./pendingOrder.ts";
import type { ClosedPosition, Position } from "./position.ts";

/**
 * The live stream a connector delivers. `sequence` starts at 1 and grows by exactly one per
 * event within one connector, so a consumer that stored the last sequence it handled can
 * resubscribe after any interruption and tell a gap from a duplicate by arithmetic alone.
 */
interface TradeEventBase {
  sequence: number;
  time: Timestamp;
  login: string;
}

export interface PositionOpenedEvent extends TradeEventBase {
  type: "positionOpened";
  position: Position;
}

/** Stops changed, or part of the position was closed (platforms that keep the id, MT5 and Match-Trader). */
export interface PositionModifiedEvent extends TradeEventBase {
  type: "positionModified";
  position: Position;
  change: "stops" | "partialClose";
}

export interface PositionClosedEvent extends TradeEventBase {
  type: "positionClosed";
  position: ClosedPosition;
}

export interface DealAddedEvent extends TradeEventBase {
  type: "dealAdded";
  deal: Deal;
}

/** Settings, balance or credit of an account changed. Not sent for every price tick: equity moves with prices, read it with getAccount. */
export interface AccountChangedEvent extends TradeEventBase {
  type: "accountChanged";
  account: Account;
}

/** A pending order was placed. */
export interface OrderPlacedEvent extends TradeEventBase {
  type: "orderPlaced";
  order: PendingOrder;
}

/** A pending order's level, stops or expiration changed. */
export interface OrderModifiedEvent extends TradeEventBase {
  type: "orderModified";
  order: PendingOrder;
}

/** A pending order left the book without filling: cancelled, or expired. */
export interface OrderCancelledEvent extends TradeEventBase {
  type: "orderCancelled";
  order: PendingOrder;
  cause: PendingOrderCancelCause;
}

/**
 * A pending order triggered and opened `position` (whose `orderId` names the order). The same
 * transaction then carries the position's `positionOpened` and its entry `dealAdded`, so a consumer
 * of positions and deals needs to know nothing of orders (decision 0068).
 */
export interface OrderFilledEvent extends TradeEventBase {
  type: "orderFilled";
  order: PendingOrder;
  position: Position;
}

export type PendingOrderEvent = OrderPlacedEvent | OrderModifiedEvent | OrderCancelledEvent | OrderFilledEvent;

export type TradeEvent =
  | PositionOpenedEvent
  | PositionModifiedEvent
  | PositionClosedEvent
  | DealAddedEvent
  | AccountChangedEvent
  | OrderPlacedEvent
  | OrderModifiedEvent
  | OrderCancelledEvent
  | OrderFilledEvent;

export type TradeEventType = TradeEvent["type"];

/** An event before the connector numbered it. */
export type UnsequencedTradeEvent = DistributiveOmit<TradeEvent, "sequence">;
