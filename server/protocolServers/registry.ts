/**
 * The local protocol servers `npm run simulator` starts, one entry per protocol: the MT5 Web API,
 * the Match-Trader Broker API and the MT4 manager gateway, each with the same shape (a name, a
 * platform, a default port and seed, and `start`). Each runs the simulation engine
 * behind its vendor's protocol, in the simulator's own process, so Toolbox reaches it as it would
 * a real server — and can be killed and started again while the trading server keeps running.
 */
import type { TradePlatformType } from "../../core/trading/index.ts";
import { DEFAULT_MANAGER, SimulatedServer } from "../connectors/simulated/server.ts";
import { hostPort } from "../connectors/transport/address.ts";
import type { TestCertificate } from "./certificates.ts";
import type { ManagerServer, ManagerServerOptions } from "./common/managerServer.ts";
import { startMatchTraderServer } from "./matchTrader/server.ts";
import { Mt4GatewayServer, retFromText } from "./mt4Gateway/server.ts";
import { Mt5WebApiServer } from "./mt5WebApi/server.ts";

export interface ProtocolServerOptions {
  host: string;
  port: number;
  seed: number;
  accounts: number;
  tradeRate: number;
  /** The certificate HTTPS servers present (its CA is printed for the connection settings). */
  tls: TestCertificate;
  /** MT5: serve as a plain MT5 Web API, without Toolbox's plugin feed and journal (`--plain-mt5`). */
  plainMt5?: boolean;
}

/** Faults the control API can switch on; each server applies those it has. */
export interface FaultRequest {
  /** Drop every connection now. */
  drop?: boolean;
  /** Refuse new connections (as if down) until restored. */
  refuse?: boolean;
  /** Every answer waits this long. */
  slowMs?: number;
  /** Reject the next N operations that change something. */
  rejectNext?: number;
  /** Send each live event twice. */
  duplicateEvents?: boolean;
  /** The handshake answers with this vendor code (MT5: "8 …" no rights, "1012 …" IP blocked; MT4: "7" no rights, "11" IP not allowed). */
  authRetcode?: string;
  /** The next command answers with this vendor code (MT4: "8" RET_TOO_FREQUENT is the gateway's rate limit). */
  nextRetcode?: string;
  /** The next money operation is applied, then the connection drops before its answer. */
  dropAfterNextBalance?: boolean;
  /** MT5 and the MT4 gateway: the next order (MT5: any dealer request) is run, then the connection drops before its answer. */
  dropAfterNextOrder?: boolean;
  /** MT5 and the MT4 gateway: the next order (MT5: dealer request) is run at once, its answer waits this long. */
  slowNextOrderMs?: number;
  /** The MT4 gateway loses its memory of request ids (as one restarted without persistence would). */
  forgetRequestIds?: boolean;
  /** Everything back to normal. */
  restore?: boolean;
}

export interface RunningProtocolServer {
  name: string;
  platform: TradePlatformType;
  /** What to type into "Your server" (address, logins). */
  details: [label: string, value: string][];
  applyFaults(request: FaultRequest): void;
  close(): Promise<void>;
}

export interface ProtocolServerDefinition {
  /** Also the connection kind it serves, and the name used on the command line and the control API. */
  name: string;
  platform: TradePlatformType;
  defaultPort: number;
  defaultSeed: number;
  start(options: ProtocolServerOptions): Promise<RunningProtocolServer>;
}

/**
 * An MT5 or MT4 protocol server on an engine of its own: both take a manager login, and the
 * engine's faults apply alike; `serverFaults` sets the protocol's own (its vendor codes).
 */
async function startManagerServer<S extends ManagerServer<ManagerServerOptions> & { faults: { restore(): void } }>(
  name: string,
  platform: "MT5" | "MT4",
  options: ProtocolServerOptions,
  make: (simulated: SimulatedServer) => S,
  serverFaults: (server: S, request: FaultRequest) => void,
): Promise<RunningProtocolServer> {
  const simulated = new SimulatedServer({ platform, seed: options.seed, accounts: options.accounts, tradeRate: options.tradeRate });
  simulated.start();
  const server = make(simulated);
  const { port } = await server.listen();
  return {
    name,
    platform,
    details: [
      ["Address", hostPort(options.host, port)],
      ["Manager login", server.manager.login],
      ["Manager password", server.manager.password],
      ["Accounts", String(options.accounts)],
      ["Seed", String(options.seed)],
    ],
    applyFaults(request) {
      if (request.restore) {
        simulated.faults.restore();
        server.faults.restore();
      }
      // The engine's sessions end, and with them the server's sessions and their connections.
      if (request.refuse) simulated.faults.disconnect({ refuseReconnect: true });
      else if (request.drop) simulated.faults.disconnect();
      if (request.slowMs !== undefined) simulated.faults.slowAnswers(request.slowMs);
      if (request.rejectNext !== undefined) simulated.faults.rejectNext(request.rejectNext);
      if (request.duplicateEvents !== undefined) simulated.faults.duplicate(request.duplicateEvents);
      serverFaults(server, request);
    },
    async close() {
      await server.close();
      simulated.stop();
    },
  };
}

const mt5WebApi: ProtocolServerDefinition = {
  name: "mt5WebApi",
  platform: "MT5",
  defaultPort: 18443,
  defaultSeed: 5005,
  start: (options) =>
    startManagerServer(
      "mt5WebApi",
      "MT5",
      options,
      (simulated) => new Mt5WebApiServer({ simulated, tls: options.tls, host: options.host, port: options.port, toolboxPlugin: !options.plainMt5 }),
      (server, request) => {
        if (request.authRetcode !== undefined) server.faults.authRetcode = request.authRetcode || null;
        if (request.nextRetcode !== undefined) server.faults.nextRetcode = request.nextRetcode || null;
        if (request.dropAfterNextBalance !== undefined) server.faults.dropAfterNextBalance = request.dropAfterNextBalance;
        if (request.dropAfterNextOrder !== undefined) server.faults.dropAfterNextOrder = request.dropAfterNextOrder;
        if (request.slowNextOrderMs !== undefined) server.faults.slowNextOrderMs = request.slowNextOrderMs;
      },
    ),
};

const matchTraderApi: ProtocolServerDefinition = {
  name: "matchTraderApi",
  platform: "MatchTrader",
  defaultPort: 18480,
  defaultSeed: 7007,
  async start(options) {
    // REST (HTTPS) on the port, the gRPC feed (TLS, the same certificate) on the next one: decision 0058.
    const server = await startMatchTraderServer({
      tls: options.tls,
      simulated: { seed: options.seed, accounts: options.accounts, tradeRate: options.tradeRate },
      host: options.host,
      port: options.port,
      grpcPort: options.port === 0 ? 0 : options.port + 1,
    });
    return {
      name: "matchTraderApi",
      platform: "MatchTrader",
      details: [
        ["API URL", server.url],
        ["gRPC feed", server.grpcAddress],
        ["API token", server.token],
        ["System UUID", server.systemUuid],
        ["Accounts", String(options.accounts)],
        ["Seed", String(options.seed)],
      ],
      applyFaults(request) {
        if (request.restore) server.faults.restore();
        if (request.refuse) server.faults.refuseConnections(true);
        else if (request.drop) server.faults.dropConnections();
        if (request.slowMs !== undefined) server.faults.slowAnswers(request.slowMs);
        if (request.rejectNext !== undefined) server.faults.rejectNext(request.rejectNext);
        if (request.duplicateEvents !== undefined) server.faults.duplicateStream(request.duplicateEvents);
        if (request.dropAfterNextBalance) server.faults.dropAnswerOf("/v1/deposits/manual");
      },
      close: () => server.close(),
    };
  },
};

const mt4Gateway: ProtocolServerDefinition = {
  name: "mt4Gateway",
  platform: "MT4",
  defaultPort: 18444,
  defaultSeed: 4004,
  start: (options) =>
    startManagerServer(
      "mt4Gateway",
      "MT4",
      options,
      (simulated) => new Mt4GatewayServer({ simulated, tls: options.tls, host: options.host, port: options.port }),
      (server, request) => {
        if (request.authRetcode !== undefined) server.faults.authRet = retFromText(request.authRetcode);
        if (request.nextRetcode !== undefined) server.faults.nextRet = retFromText(request.nextRetcode);
        if (request.dropAfterNextBalance !== undefined) server.faults.dropAfterNextBalance = request.dropAfterNextBalance;
        if (request.dropAfterNextOrder !== undefined) server.faults.dropAfterNextOrder = request.dropAfterNextOrder;
        if (request.slowNextOrderMs !== undefined) server.faults.slowNextOrderMs = request.slowNextOrderMs;
        if (request.forgetRequestIds) server.forgetRequestIds();
      },
    ),
};

export const PROTOCOL_SERVERS: ProtocolServerDefinition[] = [mt5WebApi, matchTraderApi, mt4Gateway];

export { DEFAULT_MANAGER };
