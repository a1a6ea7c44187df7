/**
 * The platform runtime's options. What it tells others about a platform (`PlatformRef`,
 * `PlatformState`) is declared with the events, which may not import modules (server/events/types.ts).
 */
import type { ConnectionManagerOptions } from "../../../connectors/manager.ts";
import type { TargetPolicy } from "../../../connectors/target.ts";

export interface PlatformRuntimeOptions {
  /** Internal addresses real trade servers may have (TRADE_SERVER_ALLOWED_TARGETS); none when absent. */
  tradeServerTargets?: TargetPolicy;
  /** Overrides for the connection manager and the supervisor's restarts (tests: backoff, connect timeout). */
  manager?: Pick<ConnectionManagerOptions, "backoff" | "connectTimeoutMs" | "random">;
  /** How long "Test connection" waits for the server, 10 s by default. */
  testConnectionTimeoutMs?: number;
  /** How long `connectorFor` waits for a platform that is still connecting, 5 s by default. */
  connectWaitMs?: number;
  /** How often each connected platform's clock is read again, 60 s by default (in between it is extrapolated). */
  serverTimeRefreshMs?: number;
  /** This node among several (NODE_ID) and the simulated servers' host lease time to live (FEED_LEASE_TTL_MS); a random id and 15 s by default. */
  node?: { id: string; feedLeaseTtlMs: number };
  /** A simulated server writes a snapshot every so many commands (5,000 by default). */
  simulatedSnapshotEveryCommands?: number;
}
