/**
 * MT4 pending orders: trade records with cmd OP_BUY_LIMIT … OP_SELL_STOP (the order's price in
 * open_price, its expiration in server seconds) and the TradeTransactions that place, change and
 * delete them. MT4 keeps no tag for orders (the gateway's request id makes them exactly once).
 */
import { lotsToVolume, type PendingOrder, type PendingOrderType } from "../../../core/trading/index.ts";
import type { Codec, PlatformCodec } from "../wire/codec.ts";
import { codeTable, numericId, priceOrNull, priceOrZero, volumeAsLots } from "../wire/convert.ts";
import { mt4Ids } from "./ids.ts";
import { MT4_ACTIVATION, MT4_CMD, MT4_REASON, type Mt4Native, type Mt4PendingTransaction, type Mt4TradeRecord } from "./native.ts";

const reasons = codeTable(MT4_REASON, "trade reason");
export const mt4OrderType = codeTable<PendingOrderType, number>(
  { buyLimit: MT4_CMD.buyLimit, sellLimit: MT4_CMD.sellLimit, buyStop: MT4_CMD.buyStop, sellStop: MT4_CMD.sellStop },
  "order type",
);

export type Mt4OrderCodecs = Pick<
  PlatformCodec<Mt4Native>,
  "pendingOrder" | "finishedOrder" | "placePendingRequest" | "modifyPendingRequest" | "cancelPendingRequest" | "pendingResult"
>;

const BLANK: Omit<Mt4PendingTransaction, "request_id" | "type"> = {
  login: 0,
  order: 0,
  symbol: "",
  cmd: 0,
  volume: 0,
  price: 0,
  deviation: -1,
  sl: 0,
  tp: 0,
  comment: "",
  reason: MT4_REASON.dealer,
  expiration: 0,
};

export function mt4OrderCodecs(time: Codec<number, number>): Mt4OrderCodecs {
  const expirationOut = (expiration: number | null | undefined) => (expiration == null ? 0 : time.encode(expiration));
  const expirationIn = (seconds: number) => (seconds === 0 ? null : time.decode(seconds));
  const encode = (o: PendingOrder): Mt4TradeRecord => ({
    order: numericId(o.id, "Ticket"),
    login: numericId(o.login, "Login"),
    symbol: o.symbol,
    cmd: mt4OrderType.encode(o.type),
    volume: volumeAsLots(o.volume, "MT4"),
    open_time: time.encode(o.placedTime),
    open_price: o.price,
    close_time: 0,
    close_price: 0,
    sl: priceOrZero(o.sl),
    tp: priceOrZero(o.tp),
    commission: 0,
    storage: 0,
    profit: 0,
    magic: 0,
    comment: o.comment,
    reason: reasons.encode(o.reason),
    activation: MT4_ACTIVATION.none,
    close_reason: 0,
    expiration: expirationOut(o.expiration),
  });
  const decode = (r: Mt4TradeRecord): PendingOrder => ({
    id: mt4Ids.position(r.order),
    login: String(r.login),
    symbol: r.symbol,
    type: mt4OrderType.decode(r.cmd),
    volume: lotsToVolume(r.volume),
    price: r.open_price,
    sl: priceOrNull(r.sl),
    tp: priceOrNull(r.tp),
    expiration: expirationIn(r.expiration),
    placedTime: time.decode(r.open_time),
    comment: r.comment,
    reason: reasons.decode(r.reason),
    native: { platform: "MT4", ticket: r.order },
  });
  return {
    pendingOrder: { encode, decode },
    // Deleted or expired: the order's record closed when it left (an expiry: at or after its expiration).
    finishedOrder: {
      encode: (f) => ({ ...encode(f.order), close_time: time.encode(f.time ?? f.order.placedTime), close_price: f.order.price }),
      decode: (r) => ({
        order: decode(r),
        state: r.expiration !== 0 && r.close_time >= r.expiration ? "expired" : "cancelled",
        time: time.decode(r.close_time),
        positionId: null,
      }),
    },
    placePendingRequest: {
      encode: (r) => ({
        ...BLANK,
        request_id: r.requestId,
        type: "open",
        login: numericId(r.login, "Login"),
        symbol: r.symbol,
        cmd: mt4OrderType.encode(r.type),
        volume: volumeAsLots(r.volume, "MT4"),
        price: r.price,
        sl: priceOrZero(r.sl),
        tp: priceOrZero(r.tp),
        expiration: expirationOut(r.expiration),
        comment: r.comment ?? "",
        reason: reasons.encode(r.reason ?? "dealer"),
      }),
      decode: (t) => ({
        requestId: t.request_id,
        login: String(t.login),
        symbol: t.symbol,
        type: mt4OrderType.decode(t.cmd),
        volume: lotsToVolume(t.volume),
        price: t.price,
        sl: priceOrNull(t.sl),
        tp: priceOrNull(t.tp),
        expiration: expirationIn(t.expiration),
        comment: t.comment,
        reason: reasons.decode(t.reason),
      }),
    },
    modifyPendingRequest: {
      encode: (r) => ({
        ...BLANK,
        request_id: r.requestId,
        type: "modify",
        login: r.login === undefined ? 0 : numericId(r.login, "Login"),
        order: numericId(r.orderId, "Ticket"),
        price: r.price,
        sl: priceOrZero(r.sl),
        tp: priceOrZero(r.tp),
        expiration: expirationOut(r.expiration),
      }),
      decode: (t) => ({
        requestId: t.request_id,
        orderId: String(t.order),
        price: t.price,
        sl: priceOrNull(t.sl),
        tp: priceOrNull(t.tp),
        expiration: expirationIn(t.expiration),
        ...(t.login ? { login: String(t.login) } : {}),
      }),
    },
    cancelPendingRequest: {
      encode: (r) => ({
        ...BLANK,
        request_id: r.requestId,
        type: "delete",
        login: r.login === undefined ? 0 : numericId(r.login, "Login"),
        order: numericId(r.orderId, "Ticket"),
      }),
      decode: (t) => ({ requestId: t.request_id, orderId: String(t.order), ...(t.login ? { login: String(t.login) } : {}) }),
    },
    pendingResult: {
      encode: (r) => ({
        request_id: r.requestId,
        type: r.operation === "modify" ? "modify" : r.operation === "cancel" ? "delete" : "open",
        order: numericId(r.orderId, "Ticket"),
        price: r.price,
        volume: volumeAsLots(r.volume, "MT4"),
        time: time.encode(r.time),
      }),
      decode: (r) => ({
        requestId: r.request_id,
        orderId: mt4Ids.position(r.order),
        operation: r.type === "modify" ? ("modify" as const) : r.type === "delete" ? ("cancel" as const) : ("place" as const),
        price: r.price,
        volume: lotsToVolume(r.volume),
        time: time.decode(r.time),
      }),
    },
  };
}
