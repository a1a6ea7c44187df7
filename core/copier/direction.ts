/**
 * Reverse copying (docs/trades-copier.md "Direction"): the follower takes the other side. Each
 * function here is its own inverse, so reversing twice is the identity.
 *  - A buy becomes a sell and back.
 *  - SL and TP swap: the source's take profit is where the reversed position loses.
 *  - Pending orders keep their level and the moment they trigger: a buy limit (waiting for the
 *    price to fall to the level) becomes a sell stop (a sell at a level below the price, which
 *    also triggers when the price falls to it); a buy stop becomes a sell limit, and back.
 */
import type { PendingOrderType } from "../trading/pendingOrder.ts";
import type { Side } from "../trading/position.ts";

export type Direction = "same" | "reverse";

export function sideFor(direction: Direction, side: Side): Side {
  if (direction === "same") return side;
  return side === "buy" ? "sell" : "buy";
}

const REVERSED_TYPE: Record<PendingOrderType, PendingOrderType> = {
  buyLimit: "sellStop",
  sellStop: "buyLimit",
  buyStop: "sellLimit",
  sellLimit: "buyStop",
};

export function orderTypeFor(direction: Direction, type: PendingOrderType): PendingOrderType {
  return direction === "same" ? type : REVERSED_TYPE[type];
}

export function stopsFor(direction: Direction, stops: { sl: number | null; tp: number | null }): { sl: number | null; tp: number | null } {
  return direction === "same" ? { sl: stops.sl, tp: stops.tp } : { sl: stops.tp, tp: stops.sl };
}
