/**
 * Pending orders exactly once over the MT5 Web API (docs/connectors.md, "Orders exactly once").
 * Dealer requests TA_DEALER_ORD_PENDING (201), _ORD_MODIFY (203) and _ORD_REMOVE (204) run every
 * time they are sent, so each is first looked for on the server:
 *
 * - place: the request's comment ends with Toolbox's tag (as for market orders, orders.ts), which
 *   MT5 keeps on the order (and on the position and deal a fill makes); the account's open orders,
 *   then its order history (filled, cancelled, expired) are searched for it;
 * - modify: leaves no tag (IMTRequest for 203 changes no comment), so it is recognised from the
 *   order: an open order, or one already gone to the history, whose price, stops and expiration
 *   are those asked is not sent again;
 * - cancel: an order already in the history as cancelled is not cancelled again.
 *
 * Operations with the same request id run one after the other in this process and the first
 * result is kept (OrdersOnce, with the market orders: one id is one operation of any kind).
 */
import { connectorErrors } from "../errors.ts";
import { MT5_ORDER_STATE, MT5_REQUEST_ACTION, type Mt5DealerAnswer, type Mt5Order, type Mt5PendingRequest } from "../mt5/native.ts";
import { operationAlreadyUsed, operationTag, taggedComment } from "../operationOnce.ts";

/** The user's comment keeps 20 of the vendor's 32 characters, as for market orders. */
const MAX_TAGGED_PENDING_COMMENT = 20;
const DONE = "10009 Request completed";
const PLACED = "10008 Order placed";

export interface PendingWire {
  /** Server time now, in milliseconds. */
  now(): number;
  /** How far back an account's order history is searched for a tag. */
  lookback: number;
  /** The open orders of an account (`/api/order/get_page`). */
  openOrders(login: string): Promise<Mt5Order[]>;
  /** Orders of an account that left the book within [from, to], unix seconds of server time (`/api/history/get_page`). */
  historyOrders(login: string, fromSeconds: number, toSeconds: number): Promise<Mt5Order[]>;
  /** The open order with this ticket, or null (`/api/order/get`). */
  order(ticket: string): Promise<Mt5Order | null>;
  /** The order with this ticket in the history, or null (`/api/history/get`). */
  historyOrder(ticket: string): Promise<Mt5Order | null>;
  /** Sends the dealer request and reads its result back: the order it placed or changed. */
  send(request: Omit<Mt5PendingRequest, "RequestId">): Promise<string>;
}

export function pendingOnce(request: Mt5PendingRequest, wire: PendingWire): Promise<Mt5DealerAnswer> {
  if (request.Action === MT5_REQUEST_ACTION.orderPending) return place(request, wire);
  if (request.Action === MT5_REQUEST_ACTION.orderModify) return modify(request, wire);
  return cancel(request, wire);
}

async function place(request: Mt5PendingRequest, wire: PendingWire): Promise<Mt5DealerAnswer> {
  const tag = operationTag(request.RequestId);
  const find = async () => {
    const open = (await wire.openOrders(request.Login)).find((o) => o.Comment.endsWith(tag));
    if (open) return open;
    const now = wire.now();
    const history = await wire.historyOrders(request.Login, Math.floor((now - wire.lookback) / 1000), Math.ceil(now / 1000) + 86_400);
    return history.find((o) => o.Comment.endsWith(tag)) ?? null;
  };
  const done = await find();
  if (done) {
    if (done.Symbol !== request.Symbol || done.Type !== request.Type || done.VolumeInitial !== request.Volume) throw operationAlreadyUsed();
    return fromOrder(request.RequestId, done, PLACED, done.TimeSetupMsc);
  }
  const { RequestId, ...sent } = request;
  const ticket = await wire.send({ ...sent, Comment: taggedComment(sent.Comment, RequestId, MAX_TAGGED_PENDING_COMMENT) });
  const placed = (await wire.order(ticket)) ?? (await wire.historyOrder(ticket));
  if (!placed) throw connectorErrors.unreachable("The trading server placed the order but it could not be read back.");
  return fromOrder(request.RequestId, placed, PLACED, placed.TimeSetupMsc);
}

async function modify(request: Mt5PendingRequest, wire: PendingWire): Promise<Mt5DealerAnswer> {
  const open = await wire.order(request.Order);
  // Changed already, perhaps before it filled or was cancelled: not sent again.
  const already = open ?? (await wire.historyOrder(request.Order));
  if (already && asAsked(already, request)) return fromOrder(request.RequestId, already, DONE, wire.now());
  // Not as asked: sent. An order no longer open is refused by the server, never changed after the fact.
  const { RequestId: _id, ...sent } = request;
  await wire.send(sent);
  const after = await wire.order(request.Order);
  if (!after) throw connectorErrors.unreachable("The trading server changed the order but it could not be read back.");
  return fromOrder(request.RequestId, after, DONE, wire.now());
}

async function cancel(request: Mt5PendingRequest, wire: PendingWire): Promise<Mt5DealerAnswer> {
  const gone = (await wire.order(request.Order)) ? null : await wire.historyOrder(request.Order);
  if (gone?.State === MT5_ORDER_STATE.canceled) return fromOrder(request.RequestId, gone, DONE, gone.TimeDoneMsc);
  // Open, or not found, filled or expired: sent, and the server says which.
  const { RequestId: _id, ...sent } = request;
  await wire.send(sent);
  const cancelled = await wire.historyOrder(request.Order);
  if (!cancelled) throw connectorErrors.unreachable("The trading server cancelled the order but it could not be read back.");
  return fromOrder(request.RequestId, cancelled, DONE, cancelled.TimeDoneMsc);
}

function asAsked(order: Mt5Order, request: Mt5PendingRequest): boolean {
  return (
    order.PriceOrder === request.PriceOrder &&
    order.PriceSL === request.PriceSL &&
    order.PriceTP === request.PriceTP &&
    order.TypeTime === request.TypeTime &&
    order.TimeExpiration === request.TimeExpiration
  );
}

function fromOrder(requestId: string, order: Mt5Order, retcode: string, timeMsc: number): Mt5DealerAnswer {
  return {
    RequestId: requestId,
    Retcode: retcode,
    Deal: "0",
    Order: order.Order,
    Position: "0",
    Price: order.PriceOrder,
    Volume: order.VolumeInitial,
    TimeMsc: timeMsc,
  };
}
