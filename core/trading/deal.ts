import type { Money } from "./money.ts";
import type { NativeDealRef } from "./native.ts";
import type { Timestamp } from "./platform.ts";
import type { PositionRecord, ClosedPositionRecord, TradeReason } from "./position.ts";
import type { Volume } from "./volume.ts";

/** Deals follow MetaTrader 5: every trade and every money movement is one deal. */
export const DEAL_ACTIONS = ["buy", "sell", "balance", "credit"] as const;
export type DealAction = (typeof DEAL_ACTIONS)[number];
export const DEAL_ENTRIES = ["in", "out"] as const;
export type DealEntry = (typeof DEAL_ENTRIES)[number];

export interface Deal {
  id: string;
  login: string;
  time: Timestamp;
  action: DealAction;
  /** In or out of a position; null for balance and credit deals. */
  entry: DealEntry | null;
  positionId: string | null;
  symbol: string | null;
  volume: Volume;
  price: number;
  /** Realized profit; for balance and credit deals, the signed amount moved. */
  profit: Money;
  commission: Money;
  swap: Money;
  comment: string;
  reason: TradeReason;
  native: NativeDealRef;
}

/** The deal that opened a position (volume and commission summed over MT4's re-issued tickets). */
export function entryDeal(position: PositionRecord, id: string, native: NativeDealRef): Deal {
  return {
    id,
    login: position.login,
    time: position.openTime,
    action: position.side,
    entry: "in",
    positionId: position.id,
    symbol: position.symbol,
    volume: position.volume,
    price: position.openPrice,
    profit: 0,
    commission: position.commission,
    swap: 0,
    comment: position.comment,
    reason: position.reason,
    native,
  };
}

/** The deal that closed (part of) a position: opposite side, realized profit, no commission (charged at entry). */
export function exitDeal(closed: ClosedPositionRecord, id: string, native: NativeDealRef): Deal {
  return {
    id,
    login: closed.login,
    time: closed.closeTime,
    action: closed.side === "buy" ? "sell" : "buy",
    entry: "out",
    positionId: closed.id,
    symbol: closed.symbol,
    volume: closed.volume,
    price: closed.closePrice,
    profit: closed.profit,
    commission: 0,
    swap: closed.swap,
    comment: closed.comment,
    reason: closed.closeReason,
    native,
  };
}

/** What a deal did to the balance. Credit deals move credit instead. */
export function balanceEffect(deal: Deal): Money {
  return deal.action === "credit" ? 0 : deal.profit + deal.commission + deal.swap;
}
