/** A connector to a simulated server: the same WireConnector the real protocols use, over an in-process transport. */
import type { Clock } from "../clock.ts";
import type { TradePlatformConnector } from "../connector.ts";
import { matchTraderCodec } from "../matchTrader/codec.ts";
import { mt4Codec } from "../mt4/codec.ts";
import { mt5Codec } from "../mt5/codec.ts";
import type { PlatformCodec } from "../wire/codec.ts";
import type { NativeTypes, WireCredentials } from "../wire/wire.ts";
import { WireConnector, type WireConnectorOptions } from "../wire/wireConnector.ts";
import { DEFAULT_MANAGER, type SimulatedServer } from "./server.ts";

export interface SimulatedConnectorOptions {
  credentials?: WireCredentials;
  clock?: Clock;
  requestTimeoutMs?: number;
  connectTimeoutMs?: number;
  retainedEvents?: number;
  onProtocolError?: (error: unknown) => void;
}

export function createSimulatedConnector(server: SimulatedServer, options: SimulatedConnectorOptions = {}): TradePlatformConnector {
  const offset = server.timeZoneOffsetMinutes;
  switch (server.platform) {
    case "MT4":
      return wire(server, mt4Codec({ timeZoneOffsetMinutes: offset }), options);
    case "MT5":
      return wire(server, mt5Codec({ timeZoneOffsetMinutes: offset }), options);
    case "MatchTrader":
      return wire(server, matchTraderCodec(), options);
  }
}

function wire<N extends NativeTypes>(server: SimulatedServer, codec: PlatformCodec<N>, options: SimulatedConnectorOptions) {
  const config: WireConnectorOptions<N> = {
    codec,
    transport: server.transport(codec),
    credentials: options.credentials ?? DEFAULT_MANAGER,
    timeZoneOffsetMinutes: server.timeZoneOffsetMinutes,
    clock: options.clock ?? server.clock,
    requestTimeoutMs: options.requestTimeoutMs,
    connectTimeoutMs: options.connectTimeoutMs,
    retainedEvents: options.retainedEvents,
    onProtocolError: options.onProtocolError,
  };
  return new WireConnector(config);
}
