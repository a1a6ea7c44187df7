/** MT5 retcodes ↔ ConnectorError. The retcode text is MetaTrader's; the message is the server's explanation. */
import { ConnectorError, type ConnectorErrorCode, type RejectReason } from "../errors.ts";
import type { Codec } from "../wire/codec.ts";
import { MT5_RETCODE, type Mt5Error } from "./native.ts";

const REJECTS: Record<RejectReason, string> = {
  notEnoughMoney: MT5_RETCODE.noMoney,
  marketClosed: MT5_RETCODE.marketClosed,
  tradeDisabled: MT5_RETCODE.tradeDisabled,
  accountDisabled: MT5_RETCODE.accountDisabled,
  invalidVolume: MT5_RETCODE.invalidVolume,
  invalidStops: MT5_RETCODE.invalidStops,
  invalidPrice: MT5_RETCODE.invalidPrice,
  invalidExpiration: MT5_RETCODE.invalidExpiration,
  priceChanged: MT5_RETCODE.priceChanged,
  tooManyPositions: MT5_RETCODE.limitPositions,
  serverBusy: MT5_RETCODE.frequent,
  maxMoney: MT5_RETCODE.maxMoney,
  other: MT5_RETCODE.reject,
};

const CODES: Record<Exclude<ConnectorErrorCode, "rejected">, string> = {
  unreachable: MT5_RETCODE.network,
  credentialsRefused: MT5_RETCODE.authInvalid,
  timeout: MT5_RETCODE.timeout,
  notFound: MT5_RETCODE.notFound,
  invalidRequest: MT5_RETCODE.params,
  resyncRequired: MT5_RETCODE.data,
};

export const mt5ErrorCodec: Codec<ConnectorError, Mt5Error> = {
  encode: (e) => ({
    retcode: e.code === "rejected" ? REJECTS[e.reason ?? "other"] : CODES[e.code],
    message: e.message,
  }),
  decode: (e) => {
    const message = e.message || e.retcode.replace(/^\d+\s*/, "");
    const reason = (Object.keys(REJECTS) as RejectReason[]).find((r) => REJECTS[r] === e.retcode);
    if (reason) return new ConnectorError("rejected", message, reason);
    const code = (Object.keys(CODES) as (keyof typeof CODES)[]).find((c) => CODES[c] === e.retcode);
    return code ? new ConnectorError(code, message) : new ConnectorError("rejected", message, "other");
  },
};
