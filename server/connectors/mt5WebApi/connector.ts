/** A connector to a real MT5 server over its Web API: the MT5 codec over the HTTPS transport. */
import type { Clock } from "../clock.ts";
import { systemClock } from "../clock.ts";
import type { TradePlatformConnector } from "../connector.ts";
import { mt5Codec } from "../mt5/codec.ts";
import type { WireCredentials } from "../wire/wire.ts";
import { WireConnector } from "../wire/wireConnector.ts";
import { Mt5WebApiTransport, type Mt5WebApiTransportOptions } from "./transport.ts";

export interface Mt5WebApiConnectorOptions extends Omit<Mt5WebApiTransportOptions, "clock"> {
  credentials: WireCredentials;
  clock?: Clock;
  requestTimeoutMs?: number;
  connectTimeoutMs?: number;
  retainedEvents?: number;
  onProtocolError?: (error: unknown) => void;
}

export function createMt5WebApiConnector(options: Mt5WebApiConnectorOptions): TradePlatformConnector & { transport: Mt5WebApiTransport } {
  const clock = options.clock ?? systemClock;
  const transport = new Mt5WebApiTransport({ ...options, clock });
  // The server's zone is learnt at each handshake; times convert with the latest one.
  const offset = () => transport.timeZoneOffsetMinutes;
  const connector = new WireConnector({
    codec: mt5Codec({ timeZoneOffsetMinutes: offset }),
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
