/**
 * The Match-Trader Broker API's pending-order routes on the protocol server, as the vendor
 * publishes them (PROTOCOLS.md §2.5, confirmed by the vendor-path C# client): `pending-order/create`
 * (login, instrument, orderSide, volume, slPrice, tpPrice, activationPrice, type LIMIT or STOP: no
 * comment, no expiration, no client id), `pending-order/cancel` (login, instrument, orderId), both
 * answered `{status, orderId}`; the account's active orders (`trading-data/active-orders`) and the
 * order history by logins (`trading-data/order-history`, filtered by `statuses`). There is no call
 * to change a pending order in the Broker API, so there is none here.
 */
import { randomUUID } from "node:crypto";
import { volumeAsLots } from "../../connectors/wire/convert.ts";
import type { MatchTraderNative, MtError } from "../../connectors/matchTrader/native.ts";
import type { SimulatedEngine } from "../../connectors/simulated/engine/engine.ts";
import { NativeError, type WireSession } from "../../connectors/wire/wire.ts";

type Body = Record<string, unknown>;
/** rest.ts's request and answer (repeated here: rest.ts imports this file). */
interface RestRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
}
interface RestAnswer {
  status: number;
  body?: unknown;
}

function badRequest(message: string): NativeError<MtError> {
  return new NativeError<MtError>({ status: 400, errorCode: "INVALID_REQUEST", message });
}

/** What the routes need of rest.ts's readers (passed in, so this file does not import them back in a cycle). */
export interface Readers {
  object(body: unknown): Body;
  text(from: Body | URLSearchParams, name: string): string;
  price(from: Body, name: string): number | null;
  lots(from: Body, name: string): number;
  checkSystem(from: Body | URLSearchParams): void;
}

/** The order-history entry as the vendor's clients read it: no side, the level as `limit` or `stop`. */
export interface MtHistoricalOrder {
  orderId: string;
  created: string;
  symbol: string;
  volume: number;
  closingOrderId: string | null;
  takeProfit: number | null;
  stopLoss: number | null;
  limit: number | null;
  stop: number | null;
}

const STATUSES = ["FILLED", "CANCELLED", "REJECTED", "ADDED", "ACTIVE_ORDER_PRICE_EDITED"] as const;

async function trading(run: () => Promise<{ orderId: string }>): Promise<RestAnswer> {
  try {
    return { status: 200, body: { status: "OK", orderId: (await run()).orderId } };
  } catch (error) {
    if (error instanceof NativeError && (error.native as MtError).status === 422) {
      const native = error.native as MtError;
      return { status: 200, body: { status: "REJECTED", orderId: null, errorCode: native.errorCode, message: native.message } };
    }
    throw error;
  }
}

/** Filled, cancelled and expired orders of these logins (an expiry is a cancellation to the vendor), in the window by creation time. */
function orderHistory(engine: SimulatedEngine, logins: string[], statuses: Set<string>, from: number, to: number) {
  return logins.map((login) => {
    const account = engine.ctx.state.accounts.get(login);
    const finished = engine.ctx.state.finishedOrdersByLogin.get(login) ?? [];
    const historicalOrders: MtHistoricalOrder[] = finished
      .filter((f) => statuses.has(f.state === "filled" ? "FILLED" : "CANCELLED") && f.order.placedTime >= from && f.order.placedTime <= to)
      .map(({ order, positionId }) => ({
        orderId: order.id,
        created: new Date(order.placedTime).toISOString(),
        symbol: order.symbol,
        volume: volumeAsLots(order.volume, "Match-Trader"),
        closingOrderId: positionId,
        takeProfit: order.tp,
        stopLoss: order.sl,
        limit: order.type.endsWith("Limit") ? order.price : null,
        stop: order.type.endsWith("Stop") ? order.price : null,
      }));
    return { login, group: account?.group ?? "", historicalOrders };
  });
}

function time(from: Body, name: string, fallback: number): number {
  const value = from[name];
  if (value === undefined || value === null) return fallback;
  const ms = typeof value === "string" ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) throw badRequest(`"${name}" must be an RFC 3339 time.`);
  return ms;
}

export async function orderRoute(
  session: WireSession<MatchTraderNative>,
  request: RestRequest,
  read: Readers,
  engine: SimulatedEngine | null,
): Promise<RestAnswer | null> {
  const { method, path, query } = request;
  switch (`${method} ${path}`) {
    case "POST /v1/trading-accounts/pending-order/create": {
      const body = read.object(request.body);
      read.checkSystem(body);
      const side = read.text(body, "orderSide");
      if (side !== "BUY" && side !== "SELL") throw badRequest('"orderSide" must be BUY or SELL.');
      const type = read.text(body, "type");
      if (type !== "LIMIT" && type !== "STOP") throw badRequest('"type" must be LIMIT or STOP.');
      const price = read.price(body, "activationPrice");
      if (price === null) throw badRequest('"activationPrice" is required.');
      return trading(() =>
        session.placePendingOrder({
          requestId: randomUUID(),
          login: read.text(body, "login"),
          instrument: read.text(body, "instrument"),
          side,
          type,
          price,
          volume: read.lots(body, "volume"),
          stopLoss: read.price(body, "slPrice"),
          takeProfit: read.price(body, "tpPrice"),
          // The published body has no expiration and no comment: good till cancelled, no comment.
          expiration: null,
          comment: "",
          reason: "API",
        }),
      );
    }
    case "POST /v1/trading-accounts/pending-order/cancel": {
      const body = read.object(request.body);
      read.checkSystem(body);
      const login = read.text(body, "login");
      const orderId = read.text(body, "orderId");
      const order = (await session.pendingOrders(login)).find((o) => o.id === orderId);
      if (!order || order.instrument !== read.text(body, "instrument"))
        return { status: 200, body: { status: "REJECTED", orderId: null, errorCode: "NOT_FOUND", message: `No active order ${orderId} of ${login}.` } };
      return trading(() => session.cancelPendingOrder({ requestId: randomUUID(), orderId }));
    }
    case "GET /v1/trading-accounts/trading-data/active-orders":
      read.checkSystem(query);
      // The vendor's read is one account's: a login is required.
      return { status: 200, body: { orders: await session.pendingOrders(read.text(query, "login")) } };
    case "POST /v1/trading-accounts/trading-data/order-history": {
      const body = read.object(request.body);
      read.checkSystem(body);
      const logins = body.logins;
      if (!Array.isArray(logins) || !logins.every((l) => typeof l === "string")) throw badRequest('"logins" must be a list of logins.');
      const statuses = body.statuses ?? STATUSES;
      if (!Array.isArray(statuses) || !statuses.every((s) => (STATUSES as readonly unknown[]).includes(s)))
        throw badRequest(`"statuses" must be a list of ${STATUSES.join(", ")}.`);
      if (!engine) return { status: 200, body: logins.map((login) => ({ login, group: "", historicalOrders: [] })) };
      return {
        status: 200,
        body: orderHistory(engine, logins, new Set(statuses as string[]), time(body, "from", 0), time(body, "to", Number.MAX_SAFE_INTEGER)),
      };
    }
    default:
      return null;
  }
}
