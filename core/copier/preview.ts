/**
 * "Had this link existed over the period": the source's actions (./history.ts) run through the
 * copy rules for one follower, keeping what the follower would have held (its copies and copied
 * orders), so partial closes and closes find their copy. Today's figures stand in for the past:
 * the follower's and the source's equity and balance now, no price (max deviation is not checked)
 * and no delay (each signal is seen when it happened); daily losses are not replayed.
 */
import type { FollowerSettings } from "../schemas/copier.ts";
import { SKIP_REASON_TEXTS } from "../schemas/copier.ts";
import type { PreviewSignal } from "../schemas/copierPreview.ts";
import { pendingOrderSide } from "../trading/pendingOrder.ts";
import { formatLots } from "../trading/volume.ts";
import type { TradeSymbol } from "../trading/symbol.ts";
import { decide } from "./decide.ts";
import { findSymbol, mapSymbolName } from "./symbols.ts";
import type { CopiedOrder, CopiedPosition, Decision, FollowerContext, SourceAction } from "./types.ts";

/** What stays the same over the period for one follower; the symbol-specific parts are looked up per action. */
export interface PreviewContext extends Omit<FollowerContext, "copied" | "copiedOrder" | "now" | "price" | "dailyProfit" | "sourceSymbol" | "profitRate"> {
  /** The source's symbols on its server, by name. */
  sourceSymbols: ReadonlyMap<string, TradeSymbol>;
  /** The follower symbol's profit currency → the follower's account currency, when known. */
  profitRateOf: (followerSymbol: TradeSymbol) => number | undefined;
}

function symbolOf(action: SourceAction): string {
  return "position" in action ? action.position.symbol : action.order.symbol;
}

function sourceOf(action: SourceAction): PreviewSignal["source"] {
  if (action.type === "orderPlaced" || action.type === "orderModified" || action.type === "orderCancelled") {
    const o = action.order;
    return {
      action: action.type,
      positionId: null,
      orderId: o.id,
      symbol: o.symbol,
      side: pendingOrderSide(o.type),
      orderType: o.type,
      volume: formatLots(o.volume),
    };
  }
  const p = action.position;
  const volume = action.type === "partialClose" ? action.closedVolume : p.volume;
  const orderId = action.type === "orderFilled" ? action.order.id : null;
  const orderType = action.type === "orderFilled" ? action.order.type : null;
  return { action: action.type, positionId: p.id, orderId, symbol: p.symbol, side: p.side, orderType, volume: formatLots(volume) };
}

function followerOf(decision: Decision, copied: CopiedPosition | null, order: CopiedOrder | null): PreviewSignal["follower"] {
  if (decision.kind !== "copy") return null;
  const a = decision.action;
  switch (a.type) {
    case "open":
      return { action: a.type, symbol: a.symbol, side: a.side, orderType: null, volume: formatLots(a.volume), sl: a.sl, tp: a.tp };
    case "placeOrder":
      return {
        action: a.type,
        symbol: a.symbol,
        side: pendingOrderSide(a.orderType),
        orderType: a.orderType,
        volume: formatLots(a.volume),
        sl: a.sl,
        tp: a.tp,
      };
    case "modify":
    case "close":
      return {
        action: a.type,
        symbol: copied!.symbol,
        side: copied!.side,
        orderType: null,
        volume: a.type === "close" ? formatLots(a.volume) : null,
        sl: a.type === "modify" ? a.sl : null,
        tp: a.type === "modify" ? a.tp : null,
      };
    case "modifyOrder":
    case "cancelOrder":
      return {
        action: a.type,
        symbol: order!.symbol,
        side: pendingOrderSide(order!.type),
        orderType: order!.type,
        volume: null,
        sl: a.type === "modifyOrder" ? a.sl : null,
        tp: a.type === "modifyOrder" ? a.tp : null,
      };
  }
}

/** Each action's outcome for one follower, in order. */
export function previewFollower(actions: readonly SourceAction[], settings: FollowerSettings, base: PreviewContext): PreviewSignal[] {
  const copies = new Map<string, CopiedPosition>();
  const orders = new Map<string, CopiedOrder>();
  let made = 0;
  const signals: PreviewSignal[] = [];
  for (const action of actions) {
    const positionId = "position" in action ? action.position.id : null;
    const orderId = "order" in action ? action.order.id : null;
    const copied = positionId === null ? null : (copies.get(positionId) ?? null);
    const copiedOrder = orderId === null ? null : (orders.get(orderId) ?? null);
    const { sourceSymbols, profitRateOf, ...fixed } = base;
    const mapped = findSymbol(base.followerSymbols, mapSymbolName(settings.symbols, symbolOf(action)));
    const decision = decide(action, settings, {
      ...fixed,
      sourceSymbol: sourceSymbols.get(symbolOf(action)),
      profitRate: mapped ? profitRateOf(mapped) : undefined,
      now: action.time,
      price: null,
      dailyProfit: 0,
      copied,
      copiedOrder,
    });
    if (decision.kind === "copy") {
      const a = decision.action;
      if (a.type === "open" && positionId !== null) {
        copies.set(positionId, {
          positionId: `preview-${++made}`,
          symbol: a.symbol,
          side: a.side,
          volume: a.volume,
          openPrice: "position" in action ? action.position.openPrice : 0,
          // Its share of the source, as the engine records it: later partial closes bring it to that share.
          ...("position" in action ? { opened: { volume: a.volume, sourceVolume: action.position.volume } } : {}),
        });
      } else if (a.type === "close" && positionId !== null && copied) {
        if (a.whole) copies.delete(positionId);
        else copies.set(positionId, { ...copied, volume: copied.volume - a.volume });
      } else if (a.type === "placeOrder" && orderId !== null) {
        orders.set(orderId, { orderId: `preview-${++made}`, symbol: a.symbol, type: a.orderType, volume: a.volume });
      } else if (a.type === "cancelOrder" && orderId !== null) {
        orders.delete(orderId);
      }
    } else if (decision.kind === "nothing" && decision.why === "orderFillsItself" && copiedOrder && positionId !== null && action.type === "orderFilled") {
      orders.delete(action.order.id);
      const side = pendingOrderSide(copiedOrder.type);
      copies.set(positionId, {
        positionId: copiedOrder.orderId,
        symbol: copiedOrder.symbol,
        side,
        volume: copiedOrder.volume,
        openPrice: action.order.price,
        opened: { volume: copiedOrder.volume, sourceVolume: action.position.volume },
      });
    }
    signals.push({
      time: new Date(action.time).toISOString(),
      source: sourceOf(action),
      outcome: decision.kind,
      reason: decision.kind === "skip" ? decision.reason : null,
      reasonText: decision.kind === "skip" ? SKIP_REASON_TEXTS[decision.reason] : null,
      follower: followerOf(decision, copied, copiedOrder),
    });
  }
  return signals;
}
