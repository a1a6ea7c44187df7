/** A connector to a real MT4 server through the MT4 manager gateway: the MT4 codec over the HTTPS transport. */
import type { TradePlatformConnector } from "../connector.ts";
import { mt4Codec } from "../mt4/codec.ts";
import { zonedConnector, type ZonedConnectorOptions } from "../transport/connector.ts";
import { Mt4GatewayTransport, type Mt4GatewayTransportOptions } from "./transport.ts";

export interface Mt4GatewayConnectorOptions extends Omit<Mt4GatewayTransportOptions, "clock">, ZonedConnectorOptions {}

export function createMt4GatewayConnector(options: Mt4GatewayConnectorOptions): TradePlatformConnector & { transport: Mt4GatewayTransport } {
  // The server's zone (daylight time included) is learnt at each login; times convert with the latest one.
  return zonedConnector(options, (clock) => new Mt4GatewayTransport({ ...options, clock }), mt4Codec);
}
