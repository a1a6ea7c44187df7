/**
 * The copy rules' vocabulary (docs/trades-copier.md "Copy rules"): a source action, as the engine
 * reads it from the source's trade events (core/trading/events.ts); what the rules know of one
 * follower when they decide; and what they decide: an action for the follower's platform, a skip
 * with a reason (SKIP_REASONS), or nothing to do.
 */
import type { SkipReason } from "../schemas/copier.ts";
import type { Money } from "../trading/money.ts";
import type { PendingOrder, PendingOrderType } from "../trading/pendingOrder.ts";
import type { Timestamp } from "../trading/platform.ts";
import type { ClosedPosition, Position, Side } from "../trading/position.ts";
import type { TradeSymbol } from "../trading/symbol.ts";
import type { Volume } from "../trading/volume.ts";
import type { OpenedShare } from "./volume.ts";

/**
 * One thing the source did. `time` is the source event's time (its age decides "too late").
 *  - open: a market position opened (positionOpened); `existing` when it was already open as the
 *    follower was added (then max delay does not apply, copyExistingPositions decides).
 *  - stops: its SL/TP changed (positionModified, change "stops").
 *  - partialClose: part was closed; `position` is what remains, `closedVolume` what was closed
 *    (positionModified "partialClose"; MT4's close-and-reissue is turned into this by the engine).
 *  - close: the whole position closed (positionClosed).
 *  - order*: a pending order placed, modified, cancelled or expired, filled (the order events).
 */
export type SourceAction =
  | { type: "open"; time: Timestamp; position: Position; existing?: boolean }
  | { type: "stops"; time: Timestamp; position: Position }
  | { type: "partialClose"; time: Timestamp; position: Position; closedVolume: Volume }
  | { type: "close"; time: Timestamp; position: ClosedPosition }
  | { type: "orderPlaced"; time: Timestamp; order: PendingOrder }
  | { type: "orderModified"; time: Timestamp; order: PendingOrder }
  | { type: "orderCancelled"; time: Timestamp; order: PendingOrder }
  | { type: "orderFilled"; time: Timestamp; order: PendingOrder; position: Position };

export type SourceActionType = SourceAction["type"];

/** The follower's copy of the source position (found by the request id's tag), as it stands. */
export interface CopiedPosition {
  positionId: string;
  symbol: string;
  side: Side;
  volume: Volume;
  openPrice: number;
  /**
   * What the copy opened with and the source's volume then, when the ledger knows both: a partial
   * close brings the copy to its share of what the source keeps (copyShare). Unknown: the closed
   * fraction of the copy's volume now (partialCloseVolume).
   */
  opened?: OpenedShare;
}

/** The follower's copy of a source pending order. */
export interface CopiedOrder {
  orderId: string;
  symbol: string;
  type: PendingOrderType;
  volume: Volume;
}

/** An account's money, in minor units of its currency (core/trading/money.ts). */
export interface AccountMoney {
  balance: Money;
  equity: Money;
}

/** What the rules know of one follower when they decide one source action. */
export interface FollowerContext {
  linkId: string;
  linkEnabled: boolean;
  /** The follower's symbols on its own server, by name (exact; a case-insensitive match is tried next). */
  followerSymbols: ReadonlyMap<string, TradeSymbol>;
  /** The source symbol's spec on the source's server (contract size, digits); undefined when unknown. */
  sourceSymbol: TradeSymbol | undefined;
  follower: AccountMoney;
  source: AccountMoney;
  /** The follower symbol's current quote; null when unknown (max deviation is then not checked). */
  price: { bid: number; ask: number } | null;
  /**
   * One unit of the follower symbol's profit currency in the follower's account currency (the
   * tick value for risk percent: contract size × price distance × this); undefined when unknown.
   */
  profitRate: number | undefined;
  now: Timestamp;
  /** The follower's copy of this source position / order, if it has one. */
  copied: CopiedPosition | null;
  copiedOrder: CopiedOrder | null;
  /** Today's P/L of the follower's copied positions, realized and floating (negative is a loss). */
  dailyProfit: Money;
  /** The risk stop the follower is suspended by (persisted; until a member resumes it), if any: no new exposure. */
  suspension?: RiskStopTrip | null;
  /** The follower action's request id (copyRequestId), when the caller has it already; derived otherwise. */
  requestId?: string;
}

/** What the follower's platform is asked to do: the shapes of core/trading/order.ts and pendingOrder.ts, with the request id. */
export type FollowerAction =
  | {
      type: "open";
      requestId: string;
      symbol: string;
      side: Side;
      volume: Volume;
      sl: number | null;
      tp: number | null;
      /** The price the follower saw and the deviation it accepts, when max deviation is set. */
      expectedPrice?: number;
      maxDeviationPoints?: number;
    }
  | { type: "modify"; requestId: string; positionId: string; sl: number | null; tp: number | null }
  | { type: "close"; requestId: string; positionId: string; volume: Volume; whole: boolean }
  | {
      type: "placeOrder";
      requestId: string;
      symbol: string;
      orderType: PendingOrderType;
      volume: Volume;
      price: number;
      sl: number | null;
      tp: number | null;
      expiration: Timestamp | null;
    }
  | { type: "modifyOrder"; requestId: string; orderId: string; price: number; sl: number | null; tp: number | null; expiration: Timestamp | null }
  | { type: "cancelOrder"; requestId: string; orderId: string };

/** A risk stop that tripped: the engine suspends the follower, and with closeAndSuspend closes its copied positions too. */
export interface RiskStopTrip {
  stop: "equityFloor" | "dailyLossLimit";
  action: "suspend" | "closeAndSuspend";
}

export type Decision =
  | { kind: "copy"; action: FollowerAction }
  | { kind: "skip"; reason: SkipReason; riskStop?: RiskStopTrip }
  /** Nothing to send, and nothing was refused: e.g. a stops change while stops are not copied, a fill of the follower's own copied order. */
  | { kind: "nothing"; why: "stopsNotCopied" | "orderFillsItself" };
