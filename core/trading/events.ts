import type { Account } from "./account.ts";
import type { Deal } from "./deal.ts";
import type { DistributiveOmit, Timestamp } from "./platform.ts";
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

export type TradeEvent = PositionOpenedEvent | PositionModifiedEvent | PositionClosedEvent | DealAddedEvent | AccountChangedEvent;

export type TradeEventType = TradeEvent["type"];

/** An event before the connector numbered it. */
export type UnsequencedTradeEvent = DistributiveOmit<TradeEvent, "sequence">;
