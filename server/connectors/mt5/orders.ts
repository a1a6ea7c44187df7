/**
 * MT5 pending orders (IMTOrder) and the dealer requests that place, change and remove them
 * (TA_DEALER_ORD_PENDING 201, _ORD_MODIFY 203, _ORD_REMOVE 204). An order's expiration is whole
 * seconds of server time (TypeTime SPECIFIED), GTC otherwise.
 */
import type { PendingOrder, PendingOrderType } from "../../../core/trading/index.ts";
import type { Codec, PlatformCodec } from "../wire/codec.ts";
import { splitTag } from "../operationOnce.ts";
import { codeTable, numericId, priceOrNull, priceOrZero } from "../wire/convert.ts";
import {
  MT5_ORDER_STATE,
  MT5_ORDER_TIME,
  MT5_ORDER_TYPE,
  MT5_REASON,
  MT5_REQUEST_ACTION,
  MT5_RETCODE,
  type Mt5Native,
  type Mt5Order,
  type Mt5PendingRequest,
} from "./native.ts";

const mt5Reason = codeTable(MT5_REASON, "trade reason");
const mt5OrderState = codeTable<"filled" | "cancelled" | "expired", number>(
  { filled: MT5_ORDER_STATE.filled, cancelled: MT5_ORDER_STATE.canceled, expired: MT5_ORDER_STATE.expired },
  "order state",
);
export const mt5OrderType = codeTable<PendingOrderType, number>(MT5_ORDER_TYPE, "order type");

type OrderCodecs = Pick<
  PlatformCodec<Mt5Native>,
  "pendingOrder" | "finishedOrder" | "placePendingRequest" | "modifyPendingRequest" | "cancelPendingRequest" | "pendingResult"
>;

const BLANK: Omit<Mt5PendingRequest, "RequestId" | "Action"> = {
  Login: "0",
  Symbol: "",
  Type: -1,
  Volume: "0",
  Position: "0",
  Order: "0",
  PriceOrder: 0,
  PriceDeviation: -1,
  PriceSL: 0,
  PriceTP: 0,
  TypeTime: MT5_ORDER_TIME.gtc,
  TimeExpiration: 0,
  Comment: "",
  Reason: MT5_REASON.dealer,
};

export interface Mt5OrderCodecs extends OrderCodecs {
  /** An order in a given state (MT5_ORDER_STATE), done at `done` (0 while placed), with the position it opened. */
  encodeOrder: (o: PendingOrder, state: number, done: number, positionId: string | null) => Mt5Order;
}

export function mt5OrderCodecs(time: Codec<number, number>): Mt5OrderCodecs {
  const id = (value: string, what: string) => String(numericId(value, what));
  const expirationOut = (expiration: number | null) => (expiration === null ? 0 : Math.floor(time.encode(expiration) / 1000));
  const expirationIn = (typeTime: number, seconds: number) => (typeTime === MT5_ORDER_TIME.specified ? time.decode(seconds * 1000) : null);
  const encodeOrder = (o: PendingOrder, state: number, done: number, positionId: string | null): Mt5Order => ({
    Order: id(o.id, "Order"),
    Login: id(o.login, "Login"),
    Symbol: o.symbol,
    Type: mt5OrderType.encode(o.type),
    TypeTime: o.expiration === null ? MT5_ORDER_TIME.gtc : MT5_ORDER_TIME.specified,
    TimeExpiration: expirationOut(o.expiration),
    TimeSetupMsc: time.encode(o.placedTime),
    TimeDoneMsc: done === 0 ? 0 : time.encode(done),
    State: state,
    PriceOrder: o.price,
    PriceSL: priceOrZero(o.sl),
    PriceTP: priceOrZero(o.tp),
    VolumeInitial: String(o.volume),
    VolumeCurrent: String(state === MT5_ORDER_STATE.filled ? 0 : o.volume),
    PositionID: positionId === null ? "0" : id(positionId, "Position"),
    Comment: o.tag === undefined ? o.comment : o.comment === "" ? o.tag : `${o.comment} ${o.tag}`,
    Reason: mt5Reason.encode(o.reason),
  });
  const decodeOrder = (o: Mt5Order): PendingOrder => {
    const { comment, tag } = splitTag(o.Comment);
    return {
      id: o.Order,
      login: o.Login,
      symbol: o.Symbol,
      type: mt5OrderType.decode(o.Type),
      volume: Number(o.VolumeInitial),
      price: o.PriceOrder,
      sl: priceOrNull(o.PriceSL),
      tp: priceOrNull(o.PriceTP),
      expiration: expirationIn(o.TypeTime, o.TimeExpiration),
      placedTime: time.decode(o.TimeSetupMsc),
      comment,
      ...(tag === null ? {} : { tag }),
      reason: mt5Reason.decode(o.Reason),
      native: { platform: "MT5", order: Number(o.Order) },
    };
  };
  return {
    encodeOrder,
    pendingOrder: { encode: (o) => encodeOrder(o, MT5_ORDER_STATE.placed, 0, null), decode: decodeOrder },
    finishedOrder: {
      encode: (f) => encodeOrder(f.order, mt5OrderState.encode(f.state), f.time ?? f.order.placedTime, f.positionId),
      decode: (o) => ({
        order: decodeOrder(o),
        state: mt5OrderState.decode(o.State),
        time: o.TimeDoneMsc === 0 ? null : time.decode(o.TimeDoneMsc),
        positionId: o.PositionID === "0" ? null : o.PositionID,
      }),
    },
    placePendingRequest: {
      encode: (r) => ({
        ...BLANK,
        RequestId: r.requestId,
        Action: MT5_REQUEST_ACTION.orderPending,
        Login: id(r.login, "Login"),
        Symbol: r.symbol,
        Type: mt5OrderType.encode(r.type),
        Volume: String(r.volume),
        PriceOrder: r.price,
        PriceSL: priceOrZero(r.sl),
        PriceTP: priceOrZero(r.tp),
        TypeTime: r.expiration == null ? MT5_ORDER_TIME.gtc : MT5_ORDER_TIME.specified,
        TimeExpiration: expirationOut(r.expiration ?? null),
        Comment: r.comment ?? "",
        Reason: mt5Reason.encode(r.reason ?? "dealer"),
      }),
      decode: (r) => ({
        requestId: r.RequestId,
        login: r.Login,
        symbol: r.Symbol,
        type: mt5OrderType.decode(r.Type),
        volume: Number(r.Volume),
        price: r.PriceOrder,
        sl: priceOrNull(r.PriceSL),
        tp: priceOrNull(r.PriceTP),
        expiration: expirationIn(r.TypeTime, r.TimeExpiration),
        comment: r.Comment,
        reason: mt5Reason.decode(r.Reason),
      }),
    },
    modifyPendingRequest: {
      encode: (r) => ({
        ...BLANK,
        RequestId: r.requestId,
        Action: MT5_REQUEST_ACTION.orderModify,
        Order: id(r.orderId, "Order"),
        PriceOrder: r.price,
        PriceSL: priceOrZero(r.sl),
        PriceTP: priceOrZero(r.tp),
        TypeTime: r.expiration === null ? MT5_ORDER_TIME.gtc : MT5_ORDER_TIME.specified,
        TimeExpiration: expirationOut(r.expiration),
      }),
      decode: (r) => ({
        requestId: r.RequestId,
        orderId: r.Order,
        price: r.PriceOrder,
        sl: priceOrNull(r.PriceSL),
        tp: priceOrNull(r.PriceTP),
        expiration: expirationIn(r.TypeTime, r.TimeExpiration),
      }),
    },
    cancelPendingRequest: {
      encode: (r) => ({ ...BLANK, RequestId: r.requestId, Action: MT5_REQUEST_ACTION.orderRemove, Order: id(r.orderId, "Order") }),
      decode: (r) => ({ requestId: r.RequestId, orderId: r.Order }),
    },
    pendingResult: {
      encode: (r) => ({
        RequestId: r.requestId,
        Retcode: MT5_RETCODE.done,
        Deal: "0",
        Order: id(r.orderId, "Order"),
        Position: "0",
        Price: r.price,
        Volume: String(r.volume),
        TimeMsc: time.encode(r.time),
      }),
      decode: (r) => ({ requestId: r.RequestId, orderId: r.Order, price: r.Price, volume: Number(r.Volume), time: time.decode(r.TimeMsc) }),
    },
  };
}
