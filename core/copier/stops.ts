/**
 * The follower's SL and TP (docs/trades-copier.md "Stops"): the source's (swapped on reverse),
 * none, or at fixed distances in the follower symbol's points from the follower's own price (a
 * position's open price, a pending order's level). Prices are rounded to the follower's digits.
 */
import type { CopyStops } from "../schemas/copier.ts";
import type { Side } from "../trading/position.ts";
import { pointsToPrice, roundPrice } from "../trading/price.ts";
import { stopsFor, type Direction } from "./direction.ts";

export interface Stops {
  sl: number | null;
  tp: number | null;
}

export function followerStops(mode: CopyStops, direction: Direction, source: Stops, followerSide: Side, basePrice: number, digits: number): Stops {
  switch (mode.mode) {
    case "none":
      return { sl: null, tp: null };
    case "copy": {
      const swapped = stopsFor(direction, source);
      return { sl: swapped.sl === null ? null : roundPrice(swapped.sl, digits), tp: swapped.tp === null ? null : roundPrice(swapped.tp, digits) };
    }
    case "fixed": {
      const sign = followerSide === "buy" ? 1 : -1;
      const at = (points: number | null, towards: 1 | -1) =>
        points === null ? null : roundPrice(basePrice + towards * sign * pointsToPrice(points, digits), digits);
      return { sl: at(mode.slPoints, -1), tp: at(mode.tpPoints, 1) };
    }
  }
}
