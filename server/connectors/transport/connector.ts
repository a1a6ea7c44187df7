/**
 * A connector over a vendor transport that learns the server's time zone at each handshake (and
 * each ping): the platform's codec and the WireConnector both read the zone the transport holds
 * now, so times convert with the latest one. The MT5 Web API and the MT4 gateway connectors are
 * this with their codec and transport.
 */
import { systemClock, type Clock } from "../clock.ts";
import type { TradePlatformConnector } from "../connector.ts";
import type { PlatformCodec } from "../wire/codec.ts";
import type { NativeTypes, WireCredentials, WireTransport } from "../wire/wire.ts";
import { WireConnector } from "../wire/wireConnector.ts";

export interface ZonedConnectorOptions {
  credentials: WireCredentials;
  clock?: Clock;
  requestTimeoutMs?: number;
  connectTimeoutMs?: number;
  retainedEvents?: number;
  onProtocolError?: (error: unknown) => void;
}

export interface ZonedTransport<N extends NativeTypes> extends WireTransport<N> {
  /** The server's offset from UTC as last learnt. */
  readonly timeZoneOffsetMinutes: number;
}

/** `transport` is made with the connector's clock (the system's unless given). */
export function zonedConnector<N extends NativeTypes, T extends ZonedTransport<N>>(
  options: ZonedConnectorOptions,
  transport: (clock: Clock) => T,
  codec: (options: { timeZoneOffsetMinutes: () => number }) => PlatformCodec<N>,
): TradePlatformConnector & { transport: T } {
  const clock = options.clock ?? systemClock;
  const made = transport(clock);
  const offset = () => made.timeZoneOffsetMinutes;
  const connector = new WireConnector<N>({
    codec: codec({ timeZoneOffsetMinutes: offset }),
    transport: made,
    credentials: options.credentials,
    timeZoneOffsetMinutes: offset,
    clock,
    requestTimeoutMs: options.requestTimeoutMs,
    connectTimeoutMs: options.connectTimeoutMs,
    retainedEvents: options.retainedEvents,
    onProtocolError: options.onProtocolError,
  });
  return Object.assign(connector, { transport: made });
}
