/** Match-Trader HTTP error bodies ↔ ConnectorError. */
import { ConnectorError, type ConnectorErrorCode, type RejectReason } from "../errors.ts";
import type { Codec } from "../wire/codec.ts";
import type { MtError } from "./native.ts";

/** No documented error code for an amount past the server's limits: it goes as a plain rejection, read back as "other" (the message says why). */
const REJECTS: Record<RejectReason, string> = {
  notEnoughMoney: "NOT_ENOUGH_MONEY",
  marketClosed: "MARKET_CLOSED",
  tradeDisabled: "TRADING_DISABLED",
  accountDisabled: "ACCOUNT_DISABLED",
  invalidVolume: "INVALID_VOLUME",
  invalidStops: "INVALID_STOPS",
  invalidPrice: "INVALID_PRICE",
  invalidExpiration: "INVALID_EXPIRATION",
  priceChanged: "PRICE_CHANGED",
  tooManyPositions: "POSITIONS_LIMIT",
  serverBusy: "TOO_MANY_REQUESTS",
  maxMoney: "REJECTED",
  other: "REJECTED",
};

const CODES: Record<Exclude<ConnectorErrorCode, "rejected">, { status: number; errorCode: string }> = {
  unreachable: { status: 503, errorCode: "SERVICE_UNAVAILABLE" },
  credentialsRefused: { status: 401, errorCode: "UNAUTHORIZED" },
  timeout: { status: 504, errorCode: "GATEWAY_TIMEOUT" },
  notFound: { status: 404, errorCode: "NOT_FOUND" },
  invalidRequest: { status: 400, errorCode: "INVALID_REQUEST" },
  resyncRequired: { status: 410, errorCode: "GONE" },
};

export const matchTraderErrorCodec: Codec<ConnectorError, MtError> = {
  encode: (e) =>
    e.code === "rejected" ? { status: 422, errorCode: REJECTS[e.reason ?? "other"], message: e.message } : { ...CODES[e.code], message: e.message },
  decode: (e) => {
    const reason = e.errorCode === REJECTS.other ? "other" : (Object.keys(REJECTS) as RejectReason[]).find((r) => REJECTS[r] === e.errorCode);
    if (reason) return new ConnectorError("rejected", e.message, reason);
    const code = (Object.keys(CODES) as (keyof typeof CODES)[]).find((c) => CODES[c].errorCode === e.errorCode);
    return code ? new ConnectorError(code, e.message) : new ConnectorError("rejected", e.message, "other");
  },
};
