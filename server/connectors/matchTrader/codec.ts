/** The Match-Trader Broker API codec, assembled from its parts; ledgers and position requests are here. */
import { lotsToVolume, moneyFromDecimal, moneyToDecimal } from "../../../core/trading/index.ts";
import { connectorErrors } from "../errors.ts";
import type { PlatformCodec } from "../wire/codec.ts";
import { codeTable, dropUndefined, volumeAsLots } from "../wire/convert.ts";
import { matchTraderAccountCodecs } from "./accounts.ts";
import { matchTraderConfigCodecs } from "./config.ts";
import { matchTraderErrorCodec } from "./errors.ts";
import { isUuid } from "../../../core/ids.ts";
import { matchTraderIds } from "./ids.ts";
import type { MatchTraderNative } from "./native.ts";
import { matchTraderOrderCodecs } from "./orders.ts";
import { matchTraderReason, matchTraderTradeCodecs } from "./trades.ts";

const rfc3339 = {
  encode: (ms: number) => new Date(ms).toISOString(),
  decode: (text: string) => {
    const ms = Date.parse(text);
    if (Number.isNaN(ms)) throw connectorErrors.invalidRequest(`"${text}" is not a valid time.`);
    return ms;
  },
};

const ledgerType = codeTable({ deposit: "DEPOSIT", withdrawal: "WITHDRAWAL", creditIn: "CREDIT_IN", creditOut: "CREDIT_OUT" } as const, "ledger type");
const level = codeTable({ ok: "OK", trade: "TRADE", login: "LOGIN", warning: "WARNING", error: "ERROR", attention: "ATTENTION" } as const, "journal level");

function login(value: string): string {
  if (!/^\d{1,15}$/.test(value)) throw connectorErrors.invalidRequest(`Login "${value}" is not valid: it must be a number.`);
  return value;
}

function positionId(value: string): string {
  if (!isUuid(value)) throw connectorErrors.invalidRequest(`"${value}" is not a Match-Trader position id.`);
  return value;
}

export function matchTraderCodec(): PlatformCodec<MatchTraderNative> {
  const accounts = matchTraderAccountCodecs(rfc3339);
  const requests: Pick<
    PlatformCodec<MatchTraderNative>,
    "journal" | "balanceRequest" | "balanceResult" | "orderRequest" | "modifyRequest" | "closeRequest" | "orderResult"
  > = {
    journal: {
      encode: (j) => ({
        id: j.id,
        timestamp: rfc3339.encode(j.time),
        level: level.encode(j.level),
        ip: j.sourceIp,
        login: j.login,
        message: j.message,
      }),
      decode: (j) => ({
        id: j.id,
        time: rfc3339.decode(j.timestamp),
        level: level.decode(j.level),
        sourceIp: j.ip,
        login: j.login,
        message: j.message,
      }),
    },
    balanceRequest: {
      encode: (r) => ({
        requestId: r.operationId,
        login: login(r.login),
        type: ledgerType.encode(r.type),
        amount: moneyToDecimal(r.amount),
        comment: r.comment,
      }),
      decode: (r) => ({
        operationId: r.requestId,
        login: r.login,
        type: ledgerType.decode(r.type),
        amount: moneyFromDecimal(r.amount),
        comment: r.comment,
      }),
    },
    balanceResult: {
      encode: (r) => ({
        requestId: r.operationId,
        login: r.login,
        type: ledgerType.encode(r.type),
        amount: moneyToDecimal(r.amount),
        comment: "",
        ledgerId: r.dealId,
        time: rfc3339.encode(r.time),
        balance: moneyToDecimal(r.balance),
        credit: moneyToDecimal(r.credit),
      }),
      decode: (r) => ({
        operationId: r.requestId,
        login: r.login,
        type: ledgerType.decode(r.type),
        amount: moneyFromDecimal(r.amount),
        dealId: r.ledgerId,
        time: rfc3339.decode(r.time),
        balance: moneyFromDecimal(r.balance),
        credit: moneyFromDecimal(r.credit),
      }),
    },
    orderRequest: {
      encode: (o) => ({
        requestId: o.requestId,
        login: login(o.login),
        instrument: o.symbol,
        side: o.side === "buy" ? "BUY" : "SELL",
        volume: volumeAsLots(o.volume, "Match-Trader"),
        stopLoss: o.sl ?? null,
        takeProfit: o.tp ?? null,
        expectedPrice: o.expectedPrice ?? null,
        slippage: o.maxDeviationPoints ?? null,
        comment: o.comment ?? "",
        reason: matchTraderReason.encode(o.reason ?? "dealer"),
      }),
      decode: (r) =>
        dropUndefined({
          requestId: r.requestId,
          login: r.login,
          symbol: r.instrument,
          side: r.side === "BUY" ? ("buy" as const) : ("sell" as const),
          volume: lotsToVolume(r.volume),
          sl: r.stopLoss,
          tp: r.takeProfit,
          expectedPrice: r.expectedPrice ?? undefined,
          maxDeviationPoints: r.slippage ?? undefined,
          comment: r.comment,
          reason: matchTraderReason.decode(r.reason),
        }),
    },
    modifyRequest: {
      encode: (m) => ({ requestId: m.requestId, positionId: positionId(m.positionId), stopLoss: m.sl, takeProfit: m.tp }),
      decode: (r) => ({ requestId: r.requestId, positionId: r.positionId, sl: r.stopLoss, tp: r.takeProfit }),
    },
    closeRequest: {
      encode: (c) => ({
        requestId: c.requestId,
        positionId: positionId(c.positionId),
        volume: c.volume === undefined ? null : volumeAsLots(c.volume, "Match-Trader"),
        comment: c.comment ?? "",
        reason: matchTraderReason.encode(c.reason ?? "dealer"),
      }),
      decode: (r) =>
        dropUndefined({
          requestId: r.requestId,
          positionId: r.positionId,
          volume: r.volume === null ? undefined : lotsToVolume(r.volume),
          comment: r.comment,
          reason: matchTraderReason.decode(r.reason),
        }),
    },
    orderResult: {
      encode: (r) => ({
        requestId: r.requestId,
        operation: r.dealId === null ? "EDIT" : r.dealId === matchTraderIds.entryDeal(r.positionId) ? "OPEN" : "CLOSE",
        positionId: r.positionId,
        closeId: r.dealId === null || r.dealId === matchTraderIds.entryDeal(r.positionId) ? null : r.dealId,
        price: r.price,
        volume: volumeAsLots(r.volume, "Match-Trader"),
        time: rfc3339.encode(r.time),
      }),
      decode: (r) => ({
        requestId: r.requestId,
        positionId: r.positionId,
        dealId: r.operation === "EDIT" ? null : r.operation === "OPEN" ? matchTraderIds.entryDeal(r.positionId) : r.closeId,
        price: r.price,
        volume: lotsToVolume(r.volume),
        time: rfc3339.decode(r.time),
      }),
    },
  };
  return {
    platform: "MatchTrader",
    login: { encode: login, decode: (l) => l },
    positionId: { encode: positionId, decode: (p) => p },
    time: rfc3339,
    ...accounts,
    ...matchTraderConfigCodecs(rfc3339),
    ...requests,
    ...matchTraderOrderCodecs(rfc3339, matchTraderReason),
    ...matchTraderTradeCodecs(rfc3339, accounts.account, matchTraderOrderCodecs(rfc3339, matchTraderReason)),
    error: matchTraderErrorCodec,
  };
}
