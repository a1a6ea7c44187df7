/**
 * Match-Trader pending orders (the active orders: LIMIT or STOP with a side, the activation price,
 * lots, RFC 3339 expiration) and the requests that create, edit and cancel them.
 */
import { lotsToVolume, type PendingOrder, type PendingOrderType, type TradeReason } from "../../../core/trading/index.ts";
import { connectorErrors } from "../errors.ts";
import type { Codec, PlatformCodec } from "../wire/codec.ts";
import { volumeAsLots } from "../wire/convert.ts";
import { isUuid } from "../../../core/ids.ts";
import type { MatchTraderNative, MtPendingOrder, MtReason, MtSide } from "./native.ts";

export type MatchTraderOrderCodecs = Pick<
  PlatformCodec<MatchTraderNative>,
  "pendingOrder" | "finishedOrder" | "placePendingRequest" | "modifyPendingRequest" | "cancelPendingRequest" | "pendingResult"
>;

const TYPES: Record<PendingOrderType, { side: MtSide; type: "LIMIT" | "STOP" }> = {
  buyLimit: { side: "BUY", type: "LIMIT" },
  sellLimit: { side: "SELL", type: "LIMIT" },
  buyStop: { side: "BUY", type: "STOP" },
  sellStop: { side: "SELL", type: "STOP" },
};

function typeOf(side: MtSide, type: "LIMIT" | "STOP"): PendingOrderType {
  if (type !== "LIMIT" && type !== "STOP") throw connectorErrors.invalidRequest(`Unknown order type ${String(type)} from the trading server.`);
  return `${side === "BUY" ? "buy" : "sell"}${type === "LIMIT" ? "Limit" : "Stop"}`;
}

function orderId(value: string): string {
  if (!isUuid(value)) throw connectorErrors.invalidRequest(`"${value}" is not a Match-Trader order id.`);
  return value;
}

export function matchTraderOrderCodecs(time: Codec<number, string>, reason: Codec<TradeReason, MtReason>): MatchTraderOrderCodecs {
  const expirationOut = (expiration: number | null | undefined) => (expiration == null ? null : time.encode(expiration));
  const expirationIn = (expiration: string | null) => (expiration === null ? null : time.decode(expiration));
  const encode = (o: PendingOrder): MtPendingOrder => ({
    id: o.id,
    login: o.login,
    instrument: o.symbol,
    ...TYPES[o.type],
    price: o.price,
    volume: volumeAsLots(o.volume, "Match-Trader"),
    stopLoss: o.sl,
    takeProfit: o.tp,
    expiration: expirationOut(o.expiration),
    comment: o.comment,
    reason: reason.encode(o.reason),
    createdTime: time.encode(o.placedTime),
  });
  const decode = (o: MtPendingOrder): PendingOrder => ({
    id: o.id,
    login: o.login,
    symbol: o.instrument,
    type: typeOf(o.side, o.type),
    volume: lotsToVolume(o.volume),
    price: o.price,
    sl: o.stopLoss,
    tp: o.takeProfit,
    expiration: expirationIn(o.expiration),
    placedTime: time.decode(o.createdTime),
    comment: o.comment,
    ...(o.tag === undefined ? {} : { tag: o.tag }),
    reason: reason.decode(o.reason),
    native: { platform: "MatchTrader", orderId: o.id },
  });
  return {
    pendingOrder: { encode, decode },
    finishedOrder: {
      encode: (f) => ({
        ...encode(f.order),
        status: f.state === "filled" ? "FILLED" : "CANCELLED",
        ...(f.state === "expired" ? { expired: true } : {}),
        closedTime: f.time === null ? null : time.encode(f.time),
        positionId: f.positionId,
      }),
      decode: (o) => {
        const { status, expired, closedTime, positionId, ...order } = o;
        return {
          order: decode(order),
          state: status === "FILLED" ? "filled" : expired === true ? "expired" : "cancelled",
          time: closedTime === null ? null : time.decode(closedTime),
          positionId,
        };
      },
    },
    placePendingRequest: {
      encode: (r) => ({
        requestId: r.requestId,
        login: r.login,
        instrument: r.symbol,
        ...TYPES[r.type],
        price: r.price,
        volume: volumeAsLots(r.volume, "Match-Trader"),
        stopLoss: r.sl ?? null,
        takeProfit: r.tp ?? null,
        expiration: expirationOut(r.expiration),
        comment: r.comment ?? "",
        reason: reason.encode(r.reason ?? "dealer"),
      }),
      decode: (r) => ({
        requestId: r.requestId,
        login: r.login,
        symbol: r.instrument,
        type: typeOf(r.side, r.type),
        volume: lotsToVolume(r.volume),
        price: r.price,
        sl: r.stopLoss,
        tp: r.takeProfit,
        expiration: expirationIn(r.expiration),
        comment: r.comment,
        reason: reason.decode(r.reason),
      }),
    },
    modifyPendingRequest: {
      encode: (r) => ({
        requestId: r.requestId,
        orderId: orderId(r.orderId),
        price: r.price,
        stopLoss: r.sl,
        takeProfit: r.tp,
        expiration: expirationOut(r.expiration),
      }),
      decode: (r) => ({ requestId: r.requestId, orderId: r.orderId, price: r.price, sl: r.stopLoss, tp: r.takeProfit, expiration: expirationIn(r.expiration) }),
    },
    cancelPendingRequest: {
      encode: (r) => ({ requestId: r.requestId, orderId: orderId(r.orderId) }),
      decode: (r) => ({ requestId: r.requestId, orderId: r.orderId }),
    },
    pendingResult: {
      encode: (r) => ({
        requestId: r.requestId,
        operation: "CREATE_ORDER",
        orderId: r.orderId,
        price: r.price,
        volume: volumeAsLots(r.volume, "Match-Trader"),
        time: time.encode(r.time),
      }),
      decode: (r) => ({ requestId: r.requestId, orderId: r.orderId, price: r.price, volume: lotsToVolume(r.volume), time: time.decode(r.time) }),
    },
  };
}
