/** A connector to a simulated server: the same WireConnector the real protocols use, over an in-process transport. */
import type { TradePlatformType } from "../../../core/trading/index.ts";
import type { Clock } from "../clock.ts";
import type { TradePlatformConnector } from "../connector.ts";
import { matchTraderCodec } from "../matchTrader/codec.ts";
import { mt4Codec } from "../mt4/codec.ts";
import { mt5Codec } from "../mt5/codec.ts";
import type { PlatformCodec } from "../wire/codec.ts";
import type { NativeTypes, WireCredentials, WireTransport } from "../wire/wire.ts";
import { WireConnector, type WireConnectorOptions } from "../wire/wireConnector.ts";
import { DEFAULT_MANAGER, type SimulatedServer, type SimulatedServerOptions } from "./server.ts";

export interface SimulatedConnectorOptions {
  credentials?: WireCredentials;
  clock?: Clock;
  requestTimeoutMs?: number;
  connectTimeoutMs?: number;
  retainedEvents?: number;
  onProtocolError?: (error: unknown) => void;
}

/**
 * Where simulated servers are reached when not in this process's own registry: the platform
 * runtime's host, which runs each simulated platform on one node and reaches it over the bus from
 * the others (decision 0069).
 */
export interface SimulatedTransports {
  transport<N extends NativeTypes>(serverKey: string, options: Omit<SimulatedServerOptions, "clock">, codec: PlatformCodec<N>): WireTransport<N>;
}

/** The codec a simulated server of this platform speaks, with its time zone. */
export function simulatedCodec(platform: TradePlatformType, timeZoneOffsetMinutes: number): PlatformCodec<NativeTypes> {
  switch (platform) {
    case "MT4":
      return mt4Codec({ timeZoneOffsetMinutes });
    case "MT5":
      return mt5Codec({ timeZoneOffsetMinutes });
    case "MatchTrader":
      return matchTraderCodec();
  }
}

/** A simulated server's time zone when its options do not say: MetaTrader on broker time (UTC+2), Match-Trader on UTC. */
export function simulatedTimeZoneOffset(platform: TradePlatformType, given: number | undefined): number {
  return given ?? (platform === "MatchTrader" ? 0 : 120);
}

export function createSimulatedConnector(server: SimulatedServer, options: SimulatedConnectorOptions = {}): TradePlatformConnector {
  const codec = simulatedCodec(server.platform, server.timeZoneOffsetMinutes);
  return wire(codec, server.transport(codec), server.timeZoneOffsetMinutes, { ...options, clock: options.clock ?? server.clock });
}

/** A connector to a simulated server reached through `transports` (maybe on another node). */
export function createHostedSimulatedConnector(
  transports: SimulatedTransports,
  serverKey: string,
  server: Omit<SimulatedServerOptions, "clock">,
  options: SimulatedConnectorOptions = {},
): TradePlatformConnector {
  const offset = simulatedTimeZoneOffset(server.platform, server.timeZoneOffsetMinutes);
  const codec = simulatedCodec(server.platform, offset);
  return wire(codec, transports.transport(serverKey, { ...server, timeZoneOffsetMinutes: offset }, codec), offset, options);
}

function wire<N extends NativeTypes>(codec: PlatformCodec<N>, transport: WireTransport<N>, timeZoneOffsetMinutes: number, options: SimulatedConnectorOptions) {
  const config: WireConnectorOptions<N> = {
    codec,
    transport,
    credentials: options.credentials ?? DEFAULT_MANAGER,
    timeZoneOffsetMinutes,
    clock: options.clock,
    requestTimeoutMs: options.requestTimeoutMs,
    connectTimeoutMs: options.connectTimeoutMs,
    retainedEvents: options.retainedEvents,
    onProtocolError: options.onProtocolError,
  };
  return new WireConnector(config);
}
