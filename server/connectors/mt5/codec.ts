/** The MT5 Web API codec, assembled from its parts; money operations and dealer requests are here. */
import { balanceOperationType, isCreditOperation, moneyFromDecimal, moneyToDecimal, signedAmount, type JournalLevel } from "../../../core/trading/index.ts";
import type { PlatformCodec } from "../wire/codec.ts";
import { dropUndefined, numericId, priceOrNull, priceOrZero, serverTimeCodec } from "../wire/convert.ts";
import { mt5AccountCodecs } from "./accounts.ts";
import { mt5ConfigCodecs } from "./config.ts";
import { mt5ErrorCodec } from "./errors.ts";
import { MT5_DEAL_ACTION, MT5_REASON, MT5_REQUEST_ACTION, MT5_RETCODE, type Mt5DealerRequest, type Mt5Native } from "./native.ts";
import { mt5OrderCodecs } from "./orders.ts";
import { mt5PluginCodecs } from "./plugins.ts";
import { mt5Reason, mt5TradeCodecs } from "./trades.ts";

export interface Mt5CodecOptions {
  /**
   * The server's offset from UTC; MT5 stamps times in server time, with milliseconds. A function
   * when the connector learns it from the server at each handshake (MT5 Web API).
   */
  timeZoneOffsetMinutes: number | (() => number);
}

const BLANK_REQUEST: Omit<Mt5DealerRequest, "RequestId" | "Action"> = {
  Login: "0",
  Symbol: "",
  Type: -1,
  Volume: "0",
  Position: "0",
  PriceOrder: 0,
  PriceDeviation: -1,
  PriceSL: 0,
  PriceTP: 0,
  Comment: "",
  Reason: MT5_REASON.dealer,
};

export function mt5Codec(options: Mt5CodecOptions): PlatformCodec<Mt5Native> {
  const time = serverTimeCodec(options.timeZoneOffsetMinutes, 1);
  const numeric = (value: string, what: string) => String(numericId(value, what));
  const accounts = mt5AccountCodecs(time);
  const { encodeOrder: _encodeOrder, ...orders } = mt5OrderCodecs(time);
  const requests: Pick<
    PlatformCodec<Mt5Native>,
    "journal" | "balanceRequest" | "balanceResult" | "orderRequest" | "modifyRequest" | "closeRequest" | "orderResult"
  > = {
    journal: {
      encode: (j) => ({
        ID: j.id,
        TimeMsc: time.encode(j.time),
        Level: j.level,
        IP: j.sourceIp ?? "",
        Login: j.login ?? "0",
        Message: j.message,
      }),
      decode: (j) => ({
        id: j.ID,
        time: time.decode(j.TimeMsc),
        level: j.Level as JournalLevel,
        sourceIp: j.IP === "" ? null : j.IP,
        login: j.Login === "0" ? null : j.Login,
        message: j.Message,
      }),
    },
    balanceRequest: {
      encode: (r) => ({
        RequestId: r.operationId,
        Login: numeric(r.login, "Login"),
        Type: isCreditOperation(r.type) ? MT5_DEAL_ACTION.credit : MT5_DEAL_ACTION.balance,
        Balance: moneyToDecimal(signedAmount(r.type, r.amount)),
        Comment: r.comment,
      }),
      decode: (r) => {
        const signed = moneyFromDecimal(r.Balance);
        return {
          operationId: r.RequestId,
          login: r.Login,
          type: balanceOperationType(r.Type === MT5_DEAL_ACTION.credit, signed),
          amount: Math.abs(signed),
          comment: r.Comment,
        };
      },
    },
    balanceResult: {
      encode: (r) => ({
        RequestId: r.operationId,
        Ticket: numeric(r.dealId, "Deal"),
        Login: numeric(r.login, "Login"),
        Type: isCreditOperation(r.type) ? MT5_DEAL_ACTION.credit : MT5_DEAL_ACTION.balance,
        Balance: moneyToDecimal(signedAmount(r.type, r.amount)),
        TimeMsc: time.encode(r.time),
        NewBalance: moneyToDecimal(r.balance),
        NewCredit: moneyToDecimal(r.credit),
      }),
      decode: (r) => {
        const signed = moneyFromDecimal(r.Balance);
        return {
          operationId: r.RequestId,
          login: r.Login,
          type: balanceOperationType(r.Type === MT5_DEAL_ACTION.credit, signed),
          amount: Math.abs(signed),
          dealId: r.Ticket,
          time: time.decode(r.TimeMsc),
          balance: moneyFromDecimal(r.NewBalance),
          credit: moneyFromDecimal(r.NewCredit),
        };
      },
    },
    orderRequest: {
      encode: (o) => ({
        ...BLANK_REQUEST,
        RequestId: o.requestId,
        Action: MT5_REQUEST_ACTION.positionExecute,
        Login: numeric(o.login, "Login"),
        Symbol: o.symbol,
        Type: o.side === "buy" ? 0 : 1,
        Volume: String(o.volume),
        PriceOrder: o.expectedPrice ?? 0,
        PriceDeviation: o.maxDeviationPoints ?? -1,
        PriceSL: priceOrZero(o.sl),
        PriceTP: priceOrZero(o.tp),
        Comment: o.comment ?? "",
        Reason: mt5Reason.encode(o.reason ?? "dealer"),
      }),
      decode: (r) =>
        dropUndefined({
          requestId: r.RequestId,
          login: r.Login,
          symbol: r.Symbol,
          side: r.Type === 0 ? ("buy" as const) : ("sell" as const),
          volume: Number(r.Volume),
          sl: priceOrNull(r.PriceSL),
          tp: priceOrNull(r.PriceTP),
          expectedPrice: r.PriceOrder === 0 ? undefined : r.PriceOrder,
          maxDeviationPoints: r.PriceDeviation < 0 ? undefined : r.PriceDeviation,
          comment: r.Comment,
          reason: mt5Reason.decode(r.Reason),
        }),
    },
    modifyRequest: {
      encode: (m) => ({
        ...BLANK_REQUEST,
        RequestId: m.requestId,
        Action: MT5_REQUEST_ACTION.positionModify,
        Position: numeric(m.positionId, "Position"),
        PriceSL: priceOrZero(m.sl),
        PriceTP: priceOrZero(m.tp),
      }),
      decode: (r) => ({ requestId: r.RequestId, positionId: r.Position, sl: priceOrNull(r.PriceSL), tp: priceOrNull(r.PriceTP) }),
    },
    closeRequest: {
      // The server takes the side from the position (Type -1); Volume "0" closes it all.
      encode: (c) => ({
        ...BLANK_REQUEST,
        RequestId: c.requestId,
        Action: MT5_REQUEST_ACTION.positionExecute,
        Position: numeric(c.positionId, "Position"),
        Volume: String(c.volume ?? 0),
        Comment: c.comment ?? "",
        Reason: mt5Reason.encode(c.reason ?? "dealer"),
      }),
      decode: (r) =>
        dropUndefined({
          requestId: r.RequestId,
          positionId: r.Position,
          volume: r.Volume === "0" ? undefined : Number(r.Volume),
          comment: r.Comment,
          reason: mt5Reason.decode(r.Reason),
        }),
    },
    orderResult: {
      encode: (r) => ({
        RequestId: r.requestId,
        Retcode: MT5_RETCODE.done,
        Deal: r.dealId === null ? "0" : numeric(r.dealId, "Deal"),
        Order: "0",
        Position: numeric(r.positionId, "Position"),
        Price: r.price,
        Volume: String(r.volume),
        TimeMsc: time.encode(r.time),
      }),
      decode: (r) => ({
        requestId: r.RequestId,
        positionId: r.Position,
        dealId: r.Deal === "0" ? null : r.Deal,
        price: r.Price,
        volume: Number(r.Volume),
        time: time.decode(r.TimeMsc),
      }),
    },
  };
  return {
    platform: "MT5",
    login: { encode: (l) => numeric(l, "Login"), decode: (l) => l },
    positionId: { encode: (p) => numeric(p, "Position"), decode: (p) => p },
    time,
    ...accounts,
    ...mt5ConfigCodecs(time),
    ...requests,
    ...orders,
    ...mt5TradeCodecs(time, accounts.account, mt5OrderCodecs(time)),
    error: mt5ErrorCodec,
    ...mt5PluginCodecs,
  };
}
