/** Builds the connector a platform's configuration asks for. The one place that knows every kind. */
import type { Clock } from "./clock.ts";
import type { ConnectorConfig } from "./config.ts";
import type { TradePlatformConnector } from "./connector.ts";
import { createSimulatedConnector } from "./simulated/connector.ts";
import { SimulatedServerRegistry } from "./simulated/registry.ts";

export interface ConnectorDependencies {
  clock?: Clock;
  simulatedServers: SimulatedServerRegistry;
}

/** The process's simulated servers, for callers that do not bring their own registry. */
export const defaultSimulatedServers = new SimulatedServerRegistry();

export function createConnector(
  config: ConnectorConfig,
  dependencies: ConnectorDependencies = { simulatedServers: defaultSimulatedServers },
): TradePlatformConnector {
  switch (config.kind) {
    case "simulated": {
      const server = dependencies.simulatedServers.obtain(config.serverKey, { platform: config.platform, ...config.server });
      return createSimulatedConnector(server, {
        credentials: config.credentials,
        clock: dependencies.clock,
        requestTimeoutMs: config.requestTimeoutMs,
        connectTimeoutMs: config.connectTimeoutMs,
      });
    }
  }
}
