import type { Money } from "./money.ts";
import type { NativePositionRef } from "./native.ts";
import type { Timestamp } from "./platform.ts";
import type { Volume } from "./volume.ts";

export const SIDES = ["buy", "sell"] as const;
export type Side = (typeof SIDES)[number];

/** Who or what caused a trade, in MetaTrader's terms. */
export type TradeReason = "client" | "mobile" | "web" | "expert" | "dealer" | "api" | "sl" | "tp" | "stopOut";

/** An open position. `profit` is floating, at `currentPrice`, in the account currency. */
export interface Position {
  id: string;
  login: string;
  symbol: string;
  side: Side;
  volume: Volume;
  openTime: Timestamp;
  openPrice: number;
  /** Bid for a buy, ask for a sell: the price it would close at now. */
  currentPrice: number;
  sl: number | null;
  tp: number | null;
  profit: Money;
  swap: Money;
  /** What the trader or dealer wrote, without Toolbox's tag. */
  comment: string;
  /**
   * The tag Toolbox wrote into the platform's comment to find the order again (e.g. `~1a2b3c4d5e`,
   * server/connectors/operationOnce.ts `operationTag(requestId)`): how the copier recognises its own
   * positions after a crash. Absent on positions Toolbox did not open. Never shown as the comment.
   */
  tag?: string;
  reason: TradeReason;
  /**
   * MT4 closes part of a trade by closing its ticket and opening a new one for the rest; the new
   * position names the one it continues. Null everywhere else.
   */
  previousId: string | null;
  /** The pending order this position was opened by (core/trading/pendingOrder.ts); absent for a market order. */
  orderId?: string;
  native: NativePositionRef;
}

/** A position, or the part of it, that was closed. `volume` is the closed volume, `profit` realized. */
export interface ClosedPosition extends Position {
  closeTime: Timestamp;
  closePrice: number;
  closeReason: TradeReason;
}

/**
 * What a platform records per position, including its share of the entry commission. Platforms
 * that keep commission on the trade record (MT4, Match-Trader) need it to rebuild entry deals;
 * the normalized Position leaves it out because MT5 keeps commission on deals only.
 */
export type PositionRecord = Position & { commission: Money };
export type ClosedPositionRecord = ClosedPosition & { commission: Money };

export function withoutCommission<T extends { commission: Money }>(record: T): Omit<T, "commission"> {
  const { commission: _commission, ...rest } = record;
  return rest;
}

export function oppositeSide(side: Side): Side {
  return side === "buy" ? "sell" : "buy";
}
