/** Builds the connector a platform's configuration asks for. The one place that knows every kind. */
import type { Clock } from "./clock.ts";
import type { ConnectorConfig } from "./config.ts";
import type { TradePlatformConnector } from "./connector.ts";
import { NO_INTERNAL_TARGETS, type TargetPolicy } from "./target.ts";
import type { OrderJournal } from "./matchTraderApi/orderJournal.ts";
import { createMatchTraderApiConnector } from "./matchTraderApi/transport.ts";
import { createMt4GatewayConnector } from "./mt4Gateway/connector.ts";
import { createMt5WebApiConnector } from "./mt5WebApi/connector.ts";
import { createHostedSimulatedConnector, createSimulatedConnector, type SimulatedTransports } from "./simulated/connector.ts";
import { SimulatedServerRegistry } from "./simulated/registry.ts";

export interface ConnectorDependencies {
  clock?: Clock;
  simulatedServers: SimulatedServerRegistry;
  /** Where simulated servers run when they are not this process's own (the platform runtime's host, decision 0069). */
  simulatedTransports?: SimulatedTransports;
  /**
   * The platform's supervisor: where a failure of the platform's own background work goes
   * (timers, event delivery) instead of the event loop. A simulated server started here keeps it.
   */
  onFault?: (error: unknown) => void;
  /** Internal addresses real trade servers may have (TRADE_SERVER_ALLOWED_TARGETS); none by default. */
  tradeServerTargets?: TargetPolicy;
  /** Where the Match-Trader connector writes orders down before sending them; durable across restarts when the host keeps it. */
  orderJournal?: OrderJournal;
}

/** The process's simulated servers, for callers that do not bring their own registry. */
export const defaultSimulatedServers = new SimulatedServerRegistry();

export function createConnector(
  config: ConnectorConfig,
  dependencies: ConnectorDependencies = { simulatedServers: defaultSimulatedServers },
): TradePlatformConnector {
  switch (config.kind) {
    case "simulated": {
      if (dependencies.simulatedTransports)
        return createHostedSimulatedConnector(
          dependencies.simulatedTransports,
          config.serverKey,
          { platform: config.platform, ...config.server, onFault: dependencies.onFault },
          {
            credentials: config.credentials,
            clock: dependencies.clock,
            requestTimeoutMs: config.requestTimeoutMs,
            connectTimeoutMs: config.connectTimeoutMs,
          },
        );
      const server = dependencies.simulatedServers.obtain(config.serverKey, {
        platform: config.platform,
        ...config.server,
        onFault: dependencies.onFault,
      });
      return createSimulatedConnector(server, {
        credentials: config.credentials,
        clock: dependencies.clock,
        requestTimeoutMs: config.requestTimeoutMs,
        connectTimeoutMs: config.connectTimeoutMs,
      });
    }
    case "mt5WebApi":
      return createMt5WebApiConnector({
        url: `https://${config.address}`,
        ca: config.caCertificate,
        credentials: config.credentials,
        targets: dependencies.tradeServerTargets ?? NO_INTERNAL_TARGETS,
        clock: dependencies.clock,
        requestTimeoutMs: config.requestTimeoutMs,
        connectTimeoutMs: config.connectTimeoutMs,
      });
    case "mt4Gateway":
      return createMt4GatewayConnector({
        url: `https://${config.address}`,
        ca: config.caCertificate,
        credentials: config.credentials,
        targets: dependencies.tradeServerTargets ?? NO_INTERNAL_TARGETS,
        clock: dependencies.clock,
        requestTimeoutMs: config.requestTimeoutMs,
        connectTimeoutMs: config.connectTimeoutMs,
      });
    case "matchTraderApi":
      return createMatchTraderApiConnector({
        apiUrl: config.apiUrl,
        grpcAddress: config.grpcAddress,
        quotesGroup: config.quotesGroup,
        token: config.apiKey,
        ca: config.caCertificate,
        targets: dependencies.tradeServerTargets ?? NO_INTERNAL_TARGETS,
        requestsPerMinute: config.requestsPerMinute,
        retriesOn429: config.retriesOn429,
        orderJournal: dependencies.orderJournal,
        clock: dependencies.clock,
        requestTimeoutMs: config.requestTimeoutMs,
        connectTimeoutMs: config.connectTimeoutMs,
      });
  }
}
