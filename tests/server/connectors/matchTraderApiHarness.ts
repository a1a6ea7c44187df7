/**
 * The contract harness over the Match-Trader Broker API: the matchTraderApi connector talking
 * HTTPS and gRPC over TLS to a local protocol server (trusting its CA, 127.0.0.1 allowed as a
 * target), the engine behind it and the connector on one manual
 * clock. `advance` waits, before and after moving the clock, until nothing is under way on the
 * network (every request answered or waiting on the clock, every feed message received).
 */
import { ManualClock } from "../../../server/connectors/clock.ts";
import { MemoryOrderJournal, type OrderJournal } from "../../../server/connectors/matchTraderApi/orderJournal.ts";
import { createMatchTraderApiConnector } from "../../../server/connectors/matchTraderApi/transport.ts";
import { SimulatedServer, type SimulatedServerOptions } from "../../../server/connectors/simulated/server.ts";
import { tradeServerTargetPolicy } from "../../../server/connectors/target.ts";
import { startMatchTraderServer, type MatchTraderServerHandle } from "../../../server/protocolServers/matchTrader/server.ts";
import type { ConnectorHarness } from "./contract.ts";

export const REQUEST_TIMEOUT_MS = 2_000;
/** The protocol server listens on loopback, which a connector refuses unless allowed. */
export const LOCAL_TARGETS = tradeServerTargetPolicy("127.0.0.1");
/** How long (real time) to wait for the network to settle before moving on regardless. */
const QUIET_LIMIT_MS = 5_000;

type ApiConnector = ReturnType<typeof createMatchTraderApiConnector>;

export interface MatchTraderApiHarness extends ConnectorHarness {
  connector: ApiConnector;
  protocolServer: MatchTraderServerHandle;
  engine: SimulatedServer;
  clock: ManualClock;
  connectWith(options: { token?: string; requestsPerMinute?: number; requestTimeoutMs?: number; quotesGroup?: string }): ApiConnector;
  /** Until every request is answered or waits on the clock and every feed message has arrived. */
  quiet(): Promise<void>;
}

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 1));

/** `journal`: where every connector of the harness writes its orders down (the host's, e.g. the database); one in memory by default. */
export function matchTraderApiHarness(options: Partial<SimulatedServerOptions> = {}, journal?: () => OrderJournal) {
  return async (): Promise<MatchTraderApiHarness> => {
    const clock = new ManualClock();
    const engine = new SimulatedServer({ platform: "MatchTrader", clock, seed: 42, accounts: 150, tradeRate: 0, ...options });
    engine.start();
    const protocolServer = await startMatchTraderServer({ server: engine });
    const connectors: ApiConnector[] = [];
    // Toolbox's order journal outlives a connector, as the host's database would: a fresh connector is Toolbox after a restart.
    const sharedJournal = new MemoryOrderJournal();
    const connectWith = (o: { token?: string; requestsPerMinute?: number; requestTimeoutMs?: number; quotesGroup?: string }) => {
      const connector = createMatchTraderApiConnector({
        apiUrl: protocolServer.url,
        grpcAddress: protocolServer.grpcAddress,
        token: o.token ?? protocolServer.token,
        ca: protocolServer.ca,
        targets: LOCAL_TARGETS,
        clock,
        requestsPerMinute: o.requestsPerMinute,
        requestTimeoutMs: o.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
        connectTimeoutMs: REQUEST_TIMEOUT_MS,
        orderJournal: journal ? journal() : sharedJournal,
        quotesGroup: o.quotesGroup,
      });
      connectors.push(connector);
      return connector;
    };
    const connector = connectWith({});

    const busy = () => {
      const stats = protocolServer.stats;
      const counters = connectors.map((c) => c.transport.counters);
      const inFlight = counters.reduce((sum, c) => sum + c.inFlight, 0);
      const openStreams = counters.reduce((sum, c) => sum + c.openStreams, 0);
      const received = Math.max(0, ...counters.filter((c) => c.openStreams > 0).map((c) => c.receivedSequence));
      return inFlight > stats.parked || openStreams !== stats.liveStreams || (stats.liveStreams > 0 && received < stats.writtenSequence);
    };
    const quiet = async () => {
      const started = Date.now();
      for (let calm = 0; calm < 3 && Date.now() - started < QUIET_LIMIT_MS;) {
        await tick();
        calm = busy() ? 0 : calm + 1;
      }
    };

    return {
      connector,
      protocolServer,
      engine,
      clock,
      connectWith,
      quiet,
      connectorWith: (credentials) => connectWith({ token: credentials.password }),
      simulation: engine,
      async restarted() {
        const fresh = connectWith({});
        await fresh.connect();
        return fresh;
      },
      now: () => clock.now(),
      tick: (ms) => clock.advance(ms),
      async advance(ms) {
        await quiet();
        await clock.advance(ms);
        await quiet();
        await clock.advance(0);
      },
      async trade(actions) {
        engine.traders.step(actions);
        await quiet();
        await clock.advance(0);
        await quiet();
      },
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      // The Broker API places and cancels pending orders; it has no call that changes one.
      pendingOrders: { modify: false, comment: false, endTime: false },
      faults: {
        dropConnection: () => protocolServer.faults.dropConnections(),
        refuseConnections: () => protocolServer.faults.refuseConnections(true),
        slowAnswers: (ms) => protocolServer.faults.slowAnswers(ms),
        rejectNext: (count) => protocolServer.faults.rejectNext(count),
        duplicateEvents: (on) => protocolServer.faults.duplicateStream(on),
        loseNextOrderAnswer: () => protocolServer.faults.dropNextOrderAnswer(),
        slowNextOrder: (ms) => protocolServer.faults.slowNextOrder(ms),
        restore: () => protocolServer.faults.restore(),
      },
      async close() {
        for (const c of connectors) await c.disconnect();
        await protocolServer.close();
        engine.stop();
      },
    };
  };
}
