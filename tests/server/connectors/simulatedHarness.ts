/** The contract harness over an in-process simulated server, on a manual clock. */
import type { TradePlatformType } from "../../../core/trading/index.ts";
import { ManualClock } from "../../../server/connectors/clock.ts";
import { createSimulatedConnector } from "../../../server/connectors/simulated/connector.ts";
import { SimulatedServer, type SimulatedServerOptions } from "../../../server/connectors/simulated/server.ts";
import type { ConnectorHarness } from "./contract.ts";

export const REQUEST_TIMEOUT_MS = 2_000;

export function simulatedHarness(platform: TradePlatformType, options: Partial<SimulatedServerOptions> = {}) {
  return async (): Promise<ConnectorHarness & { server: SimulatedServer; clock: ManualClock }> => {
    const clock = new ManualClock();
    // Traders act only when a test asks (trade()); prices move as time passes.
    const server = new SimulatedServer({ platform, clock, seed: 42, accounts: 150, tradeRate: 0, ...options });
    server.start();
    const connectors: ReturnType<typeof createSimulatedConnector>[] = [];
    const connect = (credentials?: { login: string; password: string }) => {
      const connector = createSimulatedConnector(server, { clock, credentials, requestTimeoutMs: REQUEST_TIMEOUT_MS, connectTimeoutMs: REQUEST_TIMEOUT_MS });
      connectors.push(connector);
      return connector;
    };
    const connector = connect();
    return {
      server,
      clock,
      connector,
      connectorWith: connect,
      simulation: server,
      async restarted() {
        const fresh = connect();
        await fresh.connect();
        return fresh;
      },
      now: () => clock.now(),
      advance: (ms) => clock.advance(ms),
      tick: (ms) => clock.advance(ms),
      async trade(actions) {
        server.traders.step(actions);
        await clock.advance(0);
      },
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      pendingOrders: { modify: true, comment: true },
      holidays: platform !== "MatchTrader",
      faults: {
        dropConnection: () => server.faults.disconnect(),
        refuseConnections: () => server.faults.disconnect({ refuseReconnect: true }),
        slowAnswers: (ms) => server.faults.slowAnswers(ms),
        rejectNext: (count) => server.faults.rejectNext(count),
        duplicateEvents: (on) => server.faults.duplicate(on),
        loseNextOrderAnswer: () => {
          server.faults.dropAfterNextOrder = true;
        },
        slowNextOrder: (ms) => {
          server.faults.slowNextOrderMs = ms;
        },
        restore: () => server.faults.restore(),
      },
      async close() {
        for (const c of connectors) await c.disconnect();
        server.stop();
      },
    };
  };
}
