/**
 * The copy rules: one source action, one follower's settings and context in; that follower's
 * action, a skip with its reason, or nothing out (docs/trades-copier.md "Copy rules"). Pure and
 * deterministic: the engine, the preview and the tests call the same function.
 *
 * New exposure (an open, a pending order placed, a fill of an order that was not copied) passes
 * every check, in this order: existing position, close-only, risk stops, max delay, symbol
 * filters and mapping, volume, max deviation. What reduces or manages a copy already made
 * (closes, partial closes, stop changes, order changes and cancels) is copied whatever close-only,
 * the risk stops or the delay say; only a disabled link or follower stops everything.
 */
import type { FollowerSettings } from "../schemas/copier.ts";
import type { Position } from "../trading/position.ts";
import type { TradeSymbol } from "../trading/symbol.ts";
import { priceDistancePoints, roundPrice } from "../trading/price.ts";
import type { PendingOrder } from "../trading/pendingOrder.ts";
import { pendingOrderSide } from "../trading/pendingOrder.ts";
import type { Timestamp } from "../trading/platform.ts";
import { orderTypeFor, sideFor } from "./direction.ts";
import { copyRequestId, followerKey } from "./requestId.ts";
import { riskStopOf } from "./risk.ts";
import { followerStops } from "./stops.ts";
import { findSymbol, followerSymbolOf } from "./symbols.ts";
import type { Decision, FollowerContext, SourceAction } from "./types.ts";
import { closeToShare, copyShare, fitVolume, partialCloseVolume, rawVolume } from "./volume.ts";

const skip = (reason: Extract<Decision, { kind: "skip" }>["reason"]): Decision => ({ kind: "skip", reason });

export function decide(action: SourceAction, settings: FollowerSettings, ctx: FollowerContext): Decision {
  if (!ctx.linkEnabled) return skip("linkDisabled");
  if (!settings.enabled) return skip("followerDisabled");
  const requestId = ctx.requestId ?? copyRequestId(ctx.linkId, followerKey(settings.account), action);
  switch (action.type) {
    case "open":
      return decideOpen(action.position, action.time, action.existing === true, settings, ctx, requestId);
    case "orderFilled":
      // A copied order fills on the follower's own server at its own price.
      if (ctx.copiedOrder) return { kind: "nothing", why: "orderFillsItself" };
      return decideOpen(action.position, action.time, false, settings, ctx, requestId);
    case "stops": {
      if (!ctx.copied) return skip("notCopied");
      if (settings.stops.mode !== "copy") return { kind: "nothing", why: "stopsNotCopied" };
      const digits = findSymbol(ctx.followerSymbols, ctx.copied.symbol)?.digits ?? 10;
      // The copy's own direction, not the setting's: the setting may have changed since it was opened.
      const direction = ctx.copied.side === action.position.side ? "same" : "reverse";
      const stops = followerStops(settings.stops, direction, action.position, ctx.copied.side, ctx.copied.openPrice, digits);
      return { kind: "copy", action: { type: "modify", requestId, positionId: ctx.copied.positionId, ...stops } };
    }
    case "partialClose": {
      if (!ctx.copied) return skip("notCopied");
      if (!settings.copyPartialCloses) return skip("partialClosesOff");
      const symbol = findSymbol(ctx.followerSymbols, ctx.copied.symbol);
      if (ctx.copied.opened) {
        // To its share of what the source keeps: a repeat, or an older partial close seen after a later one, closes nothing.
        const toShare = closeToShare(ctx.copied.volume, copyShare(ctx.copied.opened, action.position.volume, symbol), symbol);
        if (!toShare) return skip("volumeZero");
        return { kind: "copy", action: { type: "close", requestId, positionId: ctx.copied.positionId, ...toShare } };
      }
      const part = partialCloseVolume(ctx.copied.volume, action.position.volume + action.closedVolume, action.closedVolume, symbol);
      if ("skip" in part) return skip(part.skip);
      return { kind: "copy", action: { type: "close", requestId, positionId: ctx.copied.positionId, volume: part.volume, whole: part.whole } };
    }
    case "close":
      if (!ctx.copied) return skip("notCopied");
      return { kind: "copy", action: { type: "close", requestId, positionId: ctx.copied.positionId, volume: ctx.copied.volume, whole: true } };
    case "orderPlaced":
      return decidePlace(action.order, action.time, settings, ctx, requestId);
    case "orderModified": {
      if (!settings.copyPendingOrders) return skip("pendingOrdersOff");
      if (!ctx.copiedOrder) return skip("notCopied");
      const symbol = findSymbol(ctx.followerSymbols, ctx.copiedOrder.symbol);
      const digits = symbol?.digits ?? 10;
      const price = roundPrice(action.order.price, digits);
      const copiedSide = pendingOrderSide(ctx.copiedOrder.type);
      const direction = copiedSide === pendingOrderSide(action.order.type) ? "same" : "reverse";
      const stops = followerStops(settings.stops, direction, action.order, copiedSide, price, digits);
      return {
        kind: "copy",
        action: { type: "modifyOrder", requestId, orderId: ctx.copiedOrder.orderId, price, ...stops, expiration: action.order.expiration },
      };
    }
    case "orderCancelled":
      if (!settings.copyPendingOrders) return skip("pendingOrdersOff");
      if (!ctx.copiedOrder) return skip("notCopied");
      return { kind: "copy", action: { type: "cancelOrder", requestId, orderId: ctx.copiedOrder.orderId } };
  }
}

/** The checks every new exposure passes, up to the symbol; answers the follower symbol or a skip. */
function newExposure(settings: FollowerSettings, ctx: FollowerContext, sourceSymbol: string, time: Timestamp, aged: boolean) {
  if (settings.closeOnly) return skip("closeOnly");
  const trip = ctx.suspension ?? riskStopOf(settings, { equity: ctx.follower.equity, dailyProfit: ctx.dailyProfit });
  if (trip) return { kind: "skip", reason: trip.stop, riskStop: trip } satisfies Decision;
  if (aged && settings.maxDelaySeconds !== null && ctx.now - time > settings.maxDelaySeconds * 1000) return skip("tooLate");
  const found = followerSymbolOf(settings, ctx.followerSymbols, sourceSymbol);
  return "skip" in found ? skip(found.skip) : found.symbol;
}

function stopDistance(openPrice: number, sl: number | null): number | null {
  return sl === null ? null : Math.abs(openPrice - sl);
}

/** The follower's volume for a source entry of `sourceVolume` (stop distance for risk percent), fitted to its symbol, or the skip. */
function followerVolume(
  settings: FollowerSettings,
  ctx: FollowerContext,
  symbol: TradeSymbol,
  sourceVolume: number,
  stopDistance: number | null,
): { volume: number } | Decision {
  const raw = rawVolume(settings, {
    sourceVolume,
    sourceSymbol: ctx.sourceSymbol,
    followerSymbol: symbol,
    source: ctx.source,
    follower: ctx.follower,
    stopDistance,
    profitRate: ctx.profitRate,
  });
  if (typeof raw === "string") return skip(raw);
  const fitted = fitVolume(raw, settings, symbol);
  return "skip" in fitted ? skip(fitted.skip) : fitted;
}

function decideOpen(position: Position, time: Timestamp, existing: boolean, settings: FollowerSettings, ctx: FollowerContext, requestId: string): Decision {
  if (existing && !settings.copyExistingPositions) return skip("existingPosition");
  const symbol = newExposure(settings, ctx, position.symbol, time, !existing);
  if ("kind" in symbol) return symbol;
  const fitted = followerVolume(settings, ctx, symbol, position.volume, stopDistance(position.openPrice, position.sl));
  if ("kind" in fitted) return fitted;
  const side = sideFor(settings.direction, position.side);
  const price = ctx.price === null ? null : side === "buy" ? ctx.price.ask : ctx.price.bid;
  const deviation = settings.maxDeviationPoints;
  if (deviation !== null && price !== null && priceDistancePoints(price, position.openPrice, symbol.digits) >= deviation) return skip("priceDeviation");
  const stops = followerStops(settings.stops, settings.direction, position, side, price ?? position.openPrice, symbol.digits);
  const guard = deviation !== null && price !== null ? { expectedPrice: price, maxDeviationPoints: deviation } : {};
  return { kind: "copy", action: { type: "open", requestId, symbol: symbol.name, side, volume: fitted.volume, ...stops, ...guard } };
}

function decidePlace(order: PendingOrder, time: Timestamp, settings: FollowerSettings, ctx: FollowerContext, requestId: string): Decision {
  if (!settings.copyPendingOrders) return skip("pendingOrdersOff");
  const symbol = newExposure(settings, ctx, order.symbol, time, true);
  if ("kind" in symbol) return symbol;
  const fitted = followerVolume(settings, ctx, symbol, order.volume, stopDistance(order.price, order.sl));
  if ("kind" in fitted) return fitted;
  const orderType = orderTypeFor(settings.direction, order.type);
  const price = roundPrice(order.price, symbol.digits);
  const stops = followerStops(settings.stops, settings.direction, order, pendingOrderSide(orderType), price, symbol.digits);
  return {
    kind: "copy",
    action: { type: "placeOrder", requestId, symbol: symbol.name, orderType, volume: fitted.volume, price, ...stops, expiration: order.expiration },
  };
}
