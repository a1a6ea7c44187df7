/** A connector to a real MT5 server over its Web API: the MT5 codec over the HTTPS transport. */
import type { TradePlatformConnector } from "../connector.ts";
import { mt5Codec } from "../mt5/codec.ts";
import { zonedConnector, type ZonedConnectorOptions } from "../transport/connector.ts";
import { Mt5WebApiTransport, type Mt5WebApiTransportOptions } from "./transport.ts";

export interface Mt5WebApiConnectorOptions extends Omit<Mt5WebApiTransportOptions, "clock">, ZonedConnectorOptions {}

/** Live quotes over the Web API are polling `/api/tick/last` (docs/quotes-monitor.md): not built yet. */
export const MT5_QUOTES_REFUSAL =
  "Live quotes from an MT5 server through its Web API (polling tick/last) are not available in Toolbox yet; the Quotes Monitor shows simulated MT5 servers only.";

export function createMt5WebApiConnector(options: Mt5WebApiConnectorOptions): TradePlatformConnector & { transport: Mt5WebApiTransport } {
  // The server's zone is learnt at each handshake; times convert with the latest one.
  return zonedConnector({ ...options, quotesRefusal: MT5_QUOTES_REFUSAL }, (clock) => new Mt5WebApiTransport({ ...options, clock }), mt5Codec);
}
