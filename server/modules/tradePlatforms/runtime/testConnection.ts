/**
 * "Test connection": one real attempt with a connection as entered — connect, read the server's
 * clock and one account, disconnect — within a time limit, and the outcome in a dealer's words.
 * Nothing is saved and no managed connection is touched.
 */
import type { TradePlatformType } from "../../../../core/trading/index.ts";
import { systemClock } from "../../../connectors/clock.ts";
import type { TradePlatformConnector } from "../../../connectors/connector.ts";
import { ConnectorError, connectorErrors } from "../../../connectors/errors.ts";
import { createConnector } from "../../../connectors/factory.ts";
import { SimulatedServerRegistry } from "../../../connectors/simulated/registry.ts";
import type { TargetPolicy } from "../../../connectors/target.ts";
import { createSimulatedConnector } from "../../../connectors/simulated/connector.ts";
import { SimulatedServer } from "../../../connectors/simulated/server.ts";
import { TimeoutError, withTimeout } from "../../../connectors/wire/timeout.ts";
import { connectorConfigOf, realKindUnavailable, simulatedServerOptions, type StoredConnection } from "./connection.ts";
import { formatServerTime } from "./timeZone.ts";

export type TestConnectionCode = "unreachable" | "credentialsRefused" | "timeout" | "invalidRequest" | "rateLimited";

export type TestConnectionResult = { ok: true; serverTime: string; accounts: number } | { ok: false; code: TestConnectionCode; message: string };

export interface TestConnectionInput {
  type: TradePlatformType;
  timeZone: string;
  connection: StoredConnection;
  /** The decrypted (or just entered) password / API key; null when the connection has none. */
  secret: string | null;
}

/** A throwaway simulated server needs only a sample of its accounts to prove the connection. */
const THROWAWAY_ACCOUNTS = 1_000;

export async function testConnection(
  input: TestConnectionInput,
  deps: { liveServer?: SimulatedServer; timeoutMs: number; tradeServerTargets?: TargetPolicy },
): Promise<TestConnectionResult> {
  const { connection } = input;
  if (connection.kind === "mt5WebApi" || connection.kind === "mt4Gateway" || connection.kind === "matchTraderApi")
    return testRealServer(input, connection, deps);
  if (connection.kind !== "simulated") return { ok: false, code: "invalidRequest", message: realKindUnavailable(input.type) };

  const options = simulatedServerOptions({ id: "test", type: input.type, timeZone: input.timeZone, connection });
  const throwaway = deps.liveServer
    ? null
    : // Not started: no price feed or traders run for a test; the engine answers as the real one would.
      new SimulatedServer({ platform: input.type, ...options, accounts: Math.min(options.accounts, THROWAWAY_ACCOUNTS), tradeRate: 0 });
  const server = deps.liveServer ?? throwaway!;
  const connector = createSimulatedConnector(server, {
    credentials: connection.login !== undefined ? { login: connection.login, password: input.secret ?? "" } : undefined,
    connectTimeoutMs: deps.timeoutMs,
    requestTimeoutMs: deps.timeoutMs,
  });
  try {
    const result = await withTimeout(probe(connector), deps.timeoutMs, systemClock);
    // The throwaway holds a sample; the server the platform gets holds what was asked for.
    return throwaway ? { ...result, accounts: connection.accounts } : result;
  } catch (error) {
    return explain(error, deps.timeoutMs, connection);
  } finally {
    void connector.disconnect().catch(() => undefined);
    throwaway?.stop();
  }
}

/** One attempt against a real server (or a local protocol server), through the connector a saved platform would use. */
async function testRealServer(
  input: TestConnectionInput,
  connection: StoredConnection,
  deps: { timeoutMs: number; tradeServerTargets?: TargetPolicy },
): Promise<TestConnectionResult> {
  const built = connectorConfigOf({ id: "test", type: input.type, timeZone: input.timeZone, connection }, input.secret);
  if ("unavailable" in built) return { ok: false, code: "invalidRequest", message: built.unavailable };
  const timeouts = { connectTimeoutMs: deps.timeoutMs, requestTimeoutMs: deps.timeoutMs };
  // A test has seconds, not the minute a 429 may ask to wait: it says the server is limiting requests instead.
  const config = built.config.kind === "matchTraderApi" ? { ...built.config, ...timeouts, retriesOn429: 0 } : { ...built.config, ...timeouts };
  let connector: TradePlatformConnector;
  try {
    connector = createConnector(config, { simulatedServers: NO_SIMULATED_SERVERS, tradeServerTargets: deps.tradeServerTargets });
  } catch (error) {
    return explain(error, deps.timeoutMs, connection);
  }
  try {
    return await withTimeout(probe(connector), deps.timeoutMs, systemClock);
  } catch (error) {
    return explain(error, deps.timeoutMs, connection);
  } finally {
    void connector.disconnect().catch(() => undefined);
  }
}

/** A real kind never reaches a simulated server. */
const NO_SIMULATED_SERVERS = new SimulatedServerRegistry();

async function probe(connector: TradePlatformConnector): Promise<{ ok: true; serverTime: string; accounts: number }> {
  await connector.connect();
  const time = await connector.serverTime();
  await connector.listAccounts({ limit: 1 });
  return { ok: true, serverTime: formatServerTime(time.time, time.timeZoneOffsetMinutes), accounts: await countAccounts(connector) };
}

/** Pages through the accounts (1000 a page, at most 100 pages). */
async function countAccounts(connector: TradePlatformConnector): Promise<number> {
  let count = 0;
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const result: Awaited<ReturnType<TradePlatformConnector["listAccounts"]>> = await connector.listAccounts({ cursor, limit: 1000 });
    count += result.items.length;
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return count;
}

/** The failure in a dealer's words: what happened and what to check. */
export function explain(error: unknown, timeoutMs: number, connection: StoredConnection): TestConnectionResult & { ok: false } {
  const seconds = Math.round(timeoutMs / 100) / 10;
  if (error instanceof TimeoutError || (error instanceof ConnectorError && error.code === "timeout")) {
    return {
      ok: false,
      code: "timeout",
      message: `The server did not answer within ${seconds} seconds. It may be overloaded, or a firewall may be dropping the connection.`,
    };
  }
  if (error instanceof ConnectorError) {
    switch (error.code) {
      case "unreachable":
        // A real connector says what it found (an untrusted certificate, a name that does not resolve).
        if (
          connection.kind !== "simulated" &&
          error.message !== connectorErrors.unreachable().message &&
          error.message !== connectorErrors.connectionLost().message
        )
          return { ok: false, code: "unreachable", message: error.message };
        return {
          ok: false,
          code: "unreachable",
          message:
            connection.kind === "simulated"
              ? "The simulated server did not accept the connection. It may be down on purpose (a fault switched on); try again later."
              : "Toolbox could not reach the server. Check the address and port, and that the server is running and accepts connections from Toolbox.",
        };
      case "credentialsRefused":
        // MT5 and MT4 say why beyond a wrong password: a manager without rights, an IP not allowed.
        if (connection.kind !== "simulated" && error.message !== connectorErrors.credentialsRefused().message)
          return { ok: false, code: "credentialsRefused", message: error.message };
        return {
          ok: false,
          code: "credentialsRefused",
          message:
            connection.kind === "matchTraderApi"
              ? "The API key was refused. Check it, and that it is still active on the Match-Trader side."
              : "The manager login or password was refused. Check them, and that this manager may connect from Toolbox's address.",
        };
      case "rejected":
        if (error.reason === "serverBusy" && connection.kind === "matchTraderApi")
          return {
            ok: false,
            code: "rateLimited",
            message:
              "The Match-Trader server is limiting requests with this API key (500 a minute, shared with anything else that uses the key). The key works; try again in a minute.",
          };
        return { ok: false, code: "invalidRequest", message: `The server refused the connection: ${error.message}` };
      case "invalidRequest":
        // An address Toolbox will not connect to (server/connectors/target.ts) says so itself.
        if (connection.kind !== "simulated") return { ok: false, code: "invalidRequest", message: error.message };
        return { ok: false, code: "invalidRequest", message: `The server refused the connection: ${error.message}` };
      default:
        // Connector messages are written for dealers and carry no secret (server/connectors/errors.ts).
        return { ok: false, code: "invalidRequest", message: `The server refused the connection: ${error.message}` };
    }
  }
  return {
    ok: false,
    code: "unreachable",
    message: "Toolbox could not complete the connection attempt. Check the connection settings and try again.",
  };
}
