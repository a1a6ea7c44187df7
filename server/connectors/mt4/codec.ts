/**
 * The MT4 gateway codec, assembled from its parts: accounts, configuration, trades and events,
 * errors; money operations and trade transactions are here.
 */
import {
  balanceOperationType,
  isCreditOperation,
  lotsToVolume,
  moneyToNumber,
  roundToMinor,
  signedAmount,
  type JournalLevel,
} from "../../../core/trading/index.ts";
import type { PlatformCodec } from "../wire/codec.ts";
import { dropUndefined, numericId, priceOrNull, priceOrZero, serverTimeCodec, volumeAsLots } from "../wire/convert.ts";
import { mt4AccountCodecs } from "./accounts.ts";
import { mt4ConfigCodecs } from "./config.ts";
import { mt4ErrorCodec } from "./errors.ts";
import { mt4Ids } from "./ids.ts";
import { MT4_CMD, MT4_REASON, type Mt4Native } from "./native.ts";
import { mt4OrderCodecs } from "./orders.ts";
import { mt4PluginCodecs } from "./plugins.ts";
import { mt4Reason, mt4TradeCodecs } from "./trades.ts";

export interface Mt4CodecOptions {
  /** The server's offset from UTC; MT4 stamps every time in server time. A function when learnt from the server (the MT4 gateway's CfgRequestCommon). */
  timeZoneOffsetMinutes: number | (() => number);
}

export function mt4Codec(options: Mt4CodecOptions): PlatformCodec<Mt4Native> {
  const time = serverTimeCodec(options.timeZoneOffsetMinutes, 1000);
  const login = { encode: (l: string) => numericId(l, "Login"), decode: (l: number) => String(l) };
  const accounts = mt4AccountCodecs(time, login);
  const requests: Pick<
    PlatformCodec<Mt4Native>,
    "journal" | "balanceRequest" | "balanceResult" | "orderRequest" | "modifyRequest" | "closeRequest" | "orderResult"
  > = {
    journal: {
      encode: (j) => ({
        time: time.encode(j.time),
        id: Number(j.id),
        level: j.level,
        ip: j.sourceIp ?? "",
        login: j.login === null ? 0 : login.encode(j.login),
        message: j.message,
      }),
      decode: (j) => ({
        id: String(j.id),
        time: time.decode(j.time),
        level: j.level as JournalLevel,
        sourceIp: j.ip === "" ? null : j.ip,
        login: j.login === 0 ? null : String(j.login),
        message: j.message,
      }),
    },
    balanceRequest: {
      encode: (r) => ({
        request_id: r.operationId,
        login: login.encode(r.login),
        cmd: isCreditOperation(r.type) ? MT4_CMD.credit : MT4_CMD.balance,
        amount: moneyToNumber(signedAmount(r.type, r.amount)),
        comment: r.comment,
      }),
      decode: (r) => {
        const signed = roundToMinor(r.amount);
        return {
          operationId: r.request_id,
          login: String(r.login),
          type: balanceOperationType(r.cmd === MT4_CMD.credit, signed),
          amount: Math.abs(signed),
          comment: r.comment,
        };
      },
    },
    balanceResult: {
      encode: (r) => ({
        request_id: r.operationId,
        order: numericId(r.dealId, "Ticket"),
        login: login.encode(r.login),
        cmd: isCreditOperation(r.type) ? MT4_CMD.credit : MT4_CMD.balance,
        amount: moneyToNumber(signedAmount(r.type, r.amount)),
        time: time.encode(r.time),
        balance: moneyToNumber(r.balance),
        credit: moneyToNumber(r.credit),
      }),
      decode: (r) => {
        const signed = roundToMinor(r.amount);
        return {
          operationId: r.request_id,
          login: String(r.login),
          type: balanceOperationType(r.cmd === MT4_CMD.credit, signed),
          amount: Math.abs(signed),
          dealId: mt4Ids.moneyDeal(r.order),
          time: time.decode(r.time),
          balance: roundToMinor(r.balance),
          credit: roundToMinor(r.credit),
        };
      },
    },
    orderRequest: {
      encode: (o) => ({
        request_id: o.requestId,
        type: "open",
        login: login.encode(o.login),
        order: 0,
        symbol: o.symbol,
        cmd: o.side === "buy" ? MT4_CMD.buy : MT4_CMD.sell,
        volume: volumeAsLots(o.volume, "MT4"),
        price: o.expectedPrice ?? 0,
        deviation: o.maxDeviationPoints ?? -1,
        sl: priceOrZero(o.sl),
        tp: priceOrZero(o.tp),
        comment: o.comment ?? "",
        reason: mt4Reason.encode(o.reason ?? "dealer"),
      }),
      decode: (t) =>
        dropUndefined({
          requestId: t.request_id,
          login: String(t.login),
          symbol: t.symbol,
          side: t.cmd === MT4_CMD.buy ? ("buy" as const) : ("sell" as const),
          volume: lotsToVolume(t.volume),
          sl: priceOrNull(t.sl),
          tp: priceOrNull(t.tp),
          expectedPrice: t.price === 0 ? undefined : t.price,
          maxDeviationPoints: t.deviation < 0 ? undefined : t.deviation,
          comment: t.comment,
          reason: mt4Reason.decode(t.reason),
        }),
    },
    modifyRequest: {
      encode: (m) => ({
        ...EMPTY_TRANSACTION,
        request_id: m.requestId,
        type: "modify",
        order: numericId(m.positionId, "Ticket"),
        sl: priceOrZero(m.sl),
        tp: priceOrZero(m.tp),
      }),
      decode: (t) => ({ requestId: t.request_id, positionId: String(t.order), sl: priceOrNull(t.sl), tp: priceOrNull(t.tp) }),
    },
    closeRequest: {
      encode: (c) => ({
        ...EMPTY_TRANSACTION,
        request_id: c.requestId,
        type: "close",
        order: numericId(c.positionId, "Ticket"),
        volume: c.volume === undefined ? 0 : volumeAsLots(c.volume, "MT4"),
        comment: c.comment ?? "",
        reason: mt4Reason.encode(c.reason ?? "dealer"),
      }),
      decode: (t) =>
        dropUndefined({
          requestId: t.request_id,
          positionId: String(t.order),
          volume: t.volume === 0 ? undefined : lotsToVolume(t.volume),
          comment: t.comment,
          reason: mt4Reason.decode(t.reason),
        }),
    },
    orderResult: {
      encode: (r) => ({
        request_id: r.requestId,
        type: r.dealId === null ? "modify" : r.dealId.endsWith(":in") ? "open" : "close",
        order: numericId(r.positionId, "Ticket"),
        price: r.price,
        volume: volumeAsLots(r.volume, "MT4"),
        time: time.encode(r.time),
      }),
      decode: (r) => ({
        requestId: r.request_id,
        positionId: mt4Ids.position(r.order),
        dealId: r.type === "modify" ? null : r.type === "open" ? mt4Ids.entryDeal(r.order) : mt4Ids.exitDeal(r.order),
        price: r.price,
        volume: lotsToVolume(r.volume),
        time: time.decode(r.time),
      }),
    },
  };
  return {
    platform: "MT4",
    login,
    positionId: { encode: (id) => numericId(id, "Ticket"), decode: (t) => mt4Ids.position(t) },
    time,
    ...accounts,
    ...mt4ConfigCodecs(time),
    ...requests,
    ...mt4OrderCodecs(time),
    ...mt4TradeCodecs(time, accounts.account, mt4OrderCodecs(time)),
    error: mt4ErrorCodec,
    ...mt4PluginCodecs,
  };
}

const EMPTY_TRANSACTION = {
  login: 0,
  symbol: "",
  cmd: 0,
  volume: 0,
  price: 0,
  deviation: -1,
  sl: 0,
  tp: 0,
  comment: "",
  reason: MT4_REASON.dealer,
};
