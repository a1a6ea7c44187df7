/** MT4 Manager API return codes ↔ ConnectorError. */
import { ConnectorError, type RejectReason } from "../errors.ts";
import type { Codec } from "../wire/codec.ts";
import { MT4_RET, type Mt4Error } from "./native.ts";

export const mt4ErrorCodec: Codec<ConnectorError, Mt4Error> = {
  encode: (e) => ({ code: errorCode(e), message: e.message }),
  decode: (e) => errorFromCode(e.code, e.message),
};

/** MT4 has no return code of its own for an amount past the server's limits: it is a common error, read back as "other" (the message says why). */
const REJECT_CODES: Record<RejectReason, number> = {
  notEnoughMoney: MT4_RET.noMoney,
  marketClosed: MT4_RET.marketClosed,
  tradeDisabled: MT4_RET.tradeDisabled,
  accountDisabled: MT4_RET.accountDisabled,
  invalidVolume: MT4_RET.badVolume,
  invalidStops: MT4_RET.badStops,
  invalidPrice: MT4_RET.badPrices,
  invalidExpiration: MT4_RET.expirationDenied,
  priceChanged: MT4_RET.priceChanged,
  tooManyPositions: MT4_RET.tooManyOrders,
  serverBusy: MT4_RET.brokerBusy,
  maxMoney: MT4_RET.error,
  other: MT4_RET.error,
};

function errorCode(e: ConnectorError): number {
  switch (e.code) {
    case "rejected":
      return REJECT_CODES[e.reason ?? "other"];
    case "unreachable":
      return MT4_RET.noConnect;
    case "credentialsRefused":
      return MT4_RET.badAccountInfo;
    case "timeout":
      return MT4_RET.tradeTimeout;
    case "notFound":
      return MT4_RET.notFound;
    case "invalidRequest":
      return MT4_RET.invalidData;
    case "resyncRequired":
      return MT4_RET.gone;
  }
}

function errorFromCode(code: number, message: string): ConnectorError {
  const reason = code === REJECT_CODES.other ? "other" : (Object.keys(REJECT_CODES) as RejectReason[]).find((r) => REJECT_CODES[r] === code);
  if (reason) return new ConnectorError("rejected", message, reason);
  if (code === MT4_RET.noConnect) return new ConnectorError("unreachable", message);
  if (code === MT4_RET.badAccountInfo) return new ConnectorError("credentialsRefused", message);
  if (code === MT4_RET.tradeTimeout) return new ConnectorError("timeout", message);
  if (code === MT4_RET.notFound) return new ConnectorError("notFound", message);
  if (code === MT4_RET.gone) return new ConnectorError("resyncRequired", message);
  if (code === MT4_RET.invalidData) return new ConnectorError("invalidRequest", message);
  return new ConnectorError("rejected", message, "other");
}
