/** A connector to a real MT5 server over its Web API: the MT5 codec over the HTTPS transport. */
import type { TradePlatformConnector } from "../connector.ts";
import { mt5Codec } from "../mt5/codec.ts";
import { zonedConnector, type ZonedConnectorOptions } from "../transport/connector.ts";
import { Mt5WebApiTransport, type Mt5WebApiTransportOptions } from "./transport.ts";

export interface Mt5WebApiConnectorOptions extends Omit<Mt5WebApiTransportOptions, "clock">, ZonedConnectorOptions {}

export function createMt5WebApiConnector(options: Mt5WebApiConnectorOptions): TradePlatformConnector & { transport: Mt5WebApiTransport } {
  // The server's zone is learnt at each handshake; times convert with the latest one.
  return zonedConnector(options, (clock) => new Mt5WebApiTransport({ ...options, clock }), mt5Codec);
}
