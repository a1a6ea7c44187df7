/**
 * The contract harness over HTTPS: an MT4 simulated server on a manual clock behind the local
 * MT4 manager gateway, and the MT4 gateway connector trusting the test's own CA. Letting time
 * pass also lets the network settle: the connector's requests in flight finish (unless the
 * server is answering slowly on purpose) and its pumping stream delivers what the gateway holds.
 */
import { ManualClock } from "../../../server/connectors/clock.ts";
import { createMt4GatewayConnector } from "../../../server/connectors/mt4Gateway/connector.ts";
import { tradeServerTargetPolicy } from "../../../server/connectors/target.ts";
import { DEFAULT_MANAGER, SimulatedServer, type SimulatedServerOptions } from "../../../server/connectors/simulated/server.ts";
import { selfSignedCertificate, type TestCertificate } from "../../../server/protocolServers/certificates.ts";
import { Mt4GatewayServer } from "../../../server/protocolServers/mt4Gateway/server.ts";
import type { ConnectorHarness } from "./contract.ts";

export const REQUEST_TIMEOUT_MS = 2_000;
/** The protocol server listens on loopback, which connectors refuse unless allowed. */
export const LOCAL_TARGETS = tradeServerTargetPolicy("127.0.0.1");

let certificate: Promise<TestCertificate> | null = null;
/** One certificate per test file: generating an RSA key takes a moment. */
export function testCertificate(): Promise<TestCertificate> {
  certificate ??= selfSignedCertificate();
  return certificate;
}

export function mt4GatewayHarness(options: Partial<SimulatedServerOptions> = {}) {
  return async (): Promise<ConnectorHarness & { simulated: SimulatedServer; server: Mt4GatewayServer; clock: ManualClock }> => {
    const clock = new ManualClock();
    const simulated = new SimulatedServer({ platform: "MT4", clock, seed: 42, accounts: 150, tradeRate: 0, ...options });
    simulated.start();
    const tls = await testCertificate();
    const server = new Mt4GatewayServer({ simulated, tls });
    await server.listen();
    const connectors: ReturnType<typeof createMt4GatewayConnector>[] = [];
    const connect = (credentials?: { login: string; password: string }) => {
      const connector = createMt4GatewayConnector({
        url: server.url,
        ca: tls.ca,
        targets: LOCAL_TARGETS,
        clock,
        credentials: credentials ?? DEFAULT_MANAGER,
        requestTimeoutMs: REQUEST_TIMEOUT_MS,
        connectTimeoutMs: REQUEST_TIMEOUT_MS,
      });
      connectors.push(connector);
      return connector;
    };
    const sync = async () => {
      for (const c of connectors) await c.transport.sync({ waitForRequests: simulated.faults.delayMs === 0 });
      await clock.advance(0);
    };
    const connector = connect();
    return {
      simulated,
      server,
      clock,
      connector,
      connectorWith: connect,
      simulation: simulated,
      async restarted() {
        const fresh = connect();
        await fresh.connect();
        return fresh;
      },
      now: () => clock.now(),
      tick: (ms) => clock.advance(ms),
      async advance(ms) {
        await clock.advance(ms);
        await sync();
      },
      async trade(actions) {
        simulated.traders.step(actions);
        await clock.advance(0);
      },
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      pendingOrders: { modify: true, comment: true },
      holidays: true,
      faults: {
        dropConnection: () => simulated.faults.disconnect(),
        refuseConnections: () => simulated.faults.disconnect({ refuseReconnect: true }),
        slowAnswers: (ms) => simulated.faults.slowAnswers(ms),
        rejectNext: (count) => simulated.faults.rejectNext(count),
        duplicateEvents: (on) => simulated.faults.duplicate(on),
        loseNextOrderAnswer: () => {
          server.faults.dropAfterNextOrder = true;
        },
        slowNextOrder: (ms) => {
          server.faults.slowNextOrderMs = ms;
        },
        forgetRequestIds: () => server.forgetRequestIds(),
        restore: () => {
          simulated.faults.restore();
          server.faults.restore();
        },
      },
      async close() {
        for (const c of connectors) await c.disconnect();
        await server.close();
        simulated.stop();
      },
    };
  };
}
