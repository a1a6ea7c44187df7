/**
 * Pending orders on the simulated server: placing, changing and cancelling them with the checks a
 * trade server makes (the same as for positions: the account may trade, the symbol is open to its
 * group and in session, the volume within the symbol's minimum, maximum and step, the stops at
 * least the stops level away; and the order's price on its side of the market by the stops level,
 * the expiration in the future), and what the server does on its own at each tick: orders whose
 * expiration passed are cancelled as expired, orders the price reached fill into a position.
 */
import {
  compileMask,
  formatLots,
  PENDING_ORDER_TYPE_LABELS,
  pendingOrderSide,
  pendingOrderTriggers,
  pointSize,
  type CancelPendingOrderRequest,
  type ModifyPendingOrderRequest,
  type PendingOrder,
  type PendingOrderResult,
  type PendingOrderType,
  type PlacePendingOrderRequest,
  type Quote,
  type TradeSymbol,
} from "../../../../core/trading/index.ts";
import { connectorErrors, isConnectorError } from "../../errors.ts";
import { commit, now, type EngineContext } from "./context.ts";
import * as rules from "./rules.ts";
import { openPosition } from "./trading.ts";
import { quoteOf } from "./valuation.ts";

export function pendingOrders(ctx: EngineContext, login: string | null): PendingOrder[] {
  if (login !== null) ctx.state.account(login);
  const orders: PendingOrder[] = [];
  for (const order of ctx.state.orders.values()) if (login === null || order.login === login) orders.push(structuredClone(order));
  return orders;
}

export function placePendingOrder(ctx: EngineContext, request: PlacePendingOrderRequest): PendingOrderResult {
  const account = ctx.state.account(request.login);
  rules.requireMayOpen(account);
  const symbol = ctx.state.symbol(request.symbol);
  const group = ctx.state.group(account.group);
  if (!compileMask(group.symbols)(symbol.name) || symbol.tradeMode !== "full")
    throw connectorErrors.rejected("tradeDisabled", `${symbol.name} cannot be traded in group '${group.name}'.`);
  rules.requireMarketOpen(ctx, symbol);
  rules.requireVolume(symbol, request.volume);
  const time = now(ctx);
  requireOrderPrice(symbol, request.type, quoteOf(ctx, symbol.name), request.price);
  rules.requireStops(symbol, pendingOrderSide(request.type), request.price, request.sl, request.tp);
  const expiration = atResolution(ctx, request.expiration ?? null);
  requireExpiration(expiration, time);
  const ids = ctx.flavour.newOrder();
  const order: PendingOrder = {
    id: ids.id,
    login: account.login,
    symbol: symbol.name,
    type: request.type,
    volume: request.volume,
    price: request.price,
    sl: request.sl ?? null,
    tp: request.tp ?? null,
    expiration,
    placedTime: time,
    comment: request.comment ?? "",
    reason: request.reason ?? "dealer",
    native: ids.native,
  };
  ctx.state.orders.set(order.id, order);
  ctx.journal.write(time, "trade", `'${account.login}': order #${order.id} ${describe(order)} placed`, account.login);
  commit(ctx, [{ type: "orderPlaced", time, login: account.login, order }]);
  return { requestId: request.requestId, orderId: order.id, operation: "place", price: order.price, volume: order.volume, time };
}

export function modifyPendingOrder(ctx: EngineContext, request: ModifyPendingOrderRequest): PendingOrderResult {
  const order = ctx.state.order(request.orderId);
  const symbol = ctx.state.symbol(order.symbol);
  rules.requireMarketOpen(ctx, symbol);
  const time = now(ctx);
  requireOrderPrice(symbol, order.type, quoteOf(ctx, symbol.name), request.price);
  rules.requireStops(symbol, pendingOrderSide(order.type), request.price, request.sl, request.tp);
  const expiration = atResolution(ctx, request.expiration);
  requireExpiration(expiration, time);
  order.price = request.price;
  order.sl = request.sl;
  order.tp = request.tp;
  order.expiration = expiration;
  ctx.journal.write(time, "trade", `'${order.login}': modify order #${order.id} ${describe(order)}`, order.login);
  commit(ctx, [{ type: "orderModified", time, login: order.login, order }]);
  return { requestId: request.requestId, orderId: order.id, operation: "modify", price: order.price, volume: order.volume, time };
}

export function cancelPendingOrder(ctx: EngineContext, request: CancelPendingOrderRequest): PendingOrderResult {
  const order = ctx.state.order(request.orderId);
  const time = now(ctx);
  finish(ctx, order, "cancelled", time);
  return { requestId: request.requestId, orderId: order.id, operation: "cancel", price: order.price, volume: order.volume, time };
}

/**
 * After a price move: orders whose expiration passed are cancelled as expired; then each order the
 * price reached fills at the market price into a position that names it. A fill the server
 * refuses (the account was disabled, not enough money, …) cancels the order, as MetaTrader does,
 * with the reason in the journal.
 */
export function triggerOrders(ctx: EngineContext): void {
  if (ctx.state.orders.size === 0) return;
  const time = now(ctx);
  for (const order of [...ctx.state.orders.values()]) if (order.expiration !== null && time >= order.expiration) finish(ctx, order, "expired", time);
  const due: PendingOrder[] = [];
  for (const order of ctx.state.orders.values()) {
    const quote = ctx.feed.quote(order.symbol);
    if (quote && pendingOrderTriggers(order, quote.bid, quote.ask)) due.push(order);
  }
  for (const order of due) fill(ctx, order);
}

function fill(ctx: EngineContext, order: PendingOrder): void {
  const symbol = ctx.state.symbol(order.symbol);
  try {
    rules.requireMarketOpen(ctx, symbol);
  } catch {
    return; // its market just closed: it waits for the next session
  }
  const snapshot = structuredClone(order);
  try {
    const result = openPosition(
      ctx,
      {
        requestId: `server-fill-${order.id}`,
        login: order.login,
        symbol: order.symbol,
        side: pendingOrderSide(order.type),
        volume: order.volume,
        sl: order.sl,
        tp: order.tp,
        comment: order.comment,
        reason: order.reason,
      },
      snapshot,
    );
    ctx.state.orders.delete(order.id);
    recordFinished(ctx, snapshot, "filled", result.time, result.positionId);
  } catch (error) {
    if (!isConnectorError(error)) throw error;
    const time = now(ctx);
    ctx.journal.write(time, "warning", `'${order.login}': order #${order.id} could not fill: ${error.message}; cancelled`, order.login);
    finish(ctx, order, "cancelled", time);
  }
}

function finish(ctx: EngineContext, order: PendingOrder, cause: "cancelled" | "expired", time: number): void {
  const snapshot = structuredClone(order);
  ctx.state.orders.delete(order.id);
  recordFinished(ctx, snapshot, cause, time, null);
  ctx.journal.write(time, "trade", `'${order.login}': order #${order.id} ${describe(order)} ${cause}`, order.login);
  commit(ctx, [{ type: "orderCancelled", time, login: order.login, order: snapshot, cause }]);
}

function recordFinished(ctx: EngineContext, order: PendingOrder, state: "filled" | "cancelled" | "expired", time: number, positionId: string | null): void {
  ctx.state.finishOrder({ order, state, time, positionId });
}

function describe(order: PendingOrder): string {
  return `${PENDING_ORDER_TYPE_LABELS[order.type].toLowerCase()} ${formatLots(order.volume)} ${order.symbol} at ${order.price}`;
}

/** Expirations at the platform's resolution (whole seconds on MetaTrader), so what the server keeps is what a client reads back. */
function atResolution(ctx: EngineContext, expiration: number | null): number | null {
  if (expiration === null) return null;
  const unit = ctx.flavour.platform === "MatchTrader" ? 1 : 1000;
  return Math.floor(expiration / unit) * unit;
}

/**
 * A limit waits below the ask (buy) or above the bid (sell), a stop above the ask (buy) or below
 * the bid (sell), each at least the symbol's stops level away, as MetaTrader checks it
 * (TRADE_RETCODE_INVALID_PRICE otherwise).
 */
export function requireOrderPrice(symbol: TradeSymbol, type: PendingOrderType, quote: Quote, price: number): void {
  const point = pointSize(symbol.digits);
  const gap = Math.max(symbol.stopsLevel, 1) * point;
  const market = pendingOrderSide(type) === "buy" ? quote.ask : quote.bid;
  const below = type === "buyLimit" || type === "sellStop";
  const distance = below ? market - price : price - market;
  if (distance + point / 2 < gap) {
    const where = below ? "below" : "above";
    throw connectorErrors.rejected(
      "invalidPrice",
      `Invalid price for a ${PENDING_ORDER_TYPE_LABELS[type].toLowerCase()} of ${symbol.name}: ${price} must be ${where} the ${pendingOrderSide(type) === "buy" ? "ask" : "bid"} ${market} by at least ${Math.max(symbol.stopsLevel, 1)} points.`,
    );
  }
}

function requireExpiration(expiration: number | null, time: number): void {
  if (expiration !== null && expiration <= time)
    throw connectorErrors.rejected(
      "invalidExpiration",
      `The expiration ${new Date(expiration).toISOString()} has already passed; choose a later time or none.`,
    );
}
