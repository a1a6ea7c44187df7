/** A connector to a real MT4 server through the MT4 manager gateway: the MT4 codec over the HTTPS transport. */
import type { Clock } from "../clock.ts";
import { systemClock } from "../clock.ts";
import type { TradePlatformConnector } from "../connector.ts";
import { mt4Codec } from "../mt4/codec.ts";
import type { WireCredentials } from "../wire/wire.ts";
import { WireConnector } from "../wire/wireConnector.ts";
import { Mt4GatewayTransport, type Mt4GatewayTransportOptions } from "./transport.ts";

export interface Mt4GatewayConnectorOptions extends Omit<Mt4GatewayTransportOptions, "clock"> {
  credentials: WireCredentials;
  clock?: Clock;
  requestTimeoutMs?: number;
  connectTimeoutMs?: number;
  retainedEvents?: number;
  onProtocolError?: (error: unknown) => void;
}

export function createMt4GatewayConnector(options: Mt4GatewayConnectorOptions): TradePlatformConnector & { transport: Mt4GatewayTransport } {
  const clock = options.clock ?? systemClock;
  const transport = new Mt4GatewayTransport({ ...options, clock });
  // The server's zone (daylight time included) is learnt at each login; times convert with the latest one.
  const offset = () => transport.timeZoneOffsetMinutes;
  const connector = new WireConnector({
    codec: mt4Codec({ timeZoneOffsetMinutes: offset }),
    transport,
    credentials: options.credentials,
    timeZoneOffsetMinutes: offset,
    clock,
    requestTimeoutMs: options.requestTimeoutMs,
    connectTimeoutMs: options.connectTimeoutMs,
    retainedEvents: options.retainedEvents,
    onProtocolError: options.onProtocolError,
  });
  return Object.assign(connector, { transport });
}
