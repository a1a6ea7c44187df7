import type { Timestamp } from "./platform.ts";
import type { Side, TradeReason } from "./position.ts";
import type { Volume } from "./volume.ts";

/**
 * A market order, as the copier places it. `requestId` makes it exactly-once: the platform (or
 * the connector) remembers it, and a retry with the same id returns the first result instead of
 * opening a second position.
 */
export interface OrderRequest {
  requestId: string;
  login: string;
  symbol: string;
  side: Side;
  volume: Volume;
  sl?: number | null;
  tp?: number | null;
  /** With `maxDeviationPoints`, refuses to fill further than that from the price the caller saw. */
  expectedPrice?: number;
  maxDeviationPoints?: number;
  comment?: string;
  reason?: TradeReason;
}

/** Change the stops of an open position; null removes a stop. */
export interface ModifyPositionRequest {
  requestId: string;
  positionId: string;
  sl: number | null;
  tp: number | null;
}

/** Close a position, or only `volume` of it. */
export interface ClosePositionRequest {
  requestId: string;
  positionId: string;
  volume?: Volume;
  comment?: string;
  reason?: TradeReason;
}

export interface OrderResult {
  requestId: string;
  positionId: string;
  /** The deal the order produced; null for a stops change. */
  dealId: string | null;
  price: number;
  volume: Volume;
  time: Timestamp;
}
