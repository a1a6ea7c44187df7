/**
 * What the contract suite needs from each connector under test: the connector, a way to let time
 * pass and the server's clients trade, and the faults of its server. The simulated servers provide
 * it in-process; the real protocol connectors will provide it over the local protocol servers.
 */
import type { TradePlatformConnector } from "../../../../server/connectors/connector.ts";

export interface ConnectorHarness {
  connector: TradePlatformConnector;
  /** Another connector to the same server, e.g. with other credentials. */
  connectorWith(credentials: { login: string; password: string }): TradePlatformConnector;
  /** The server's clock, in UTC milliseconds. */
  now(): number;
  /** Lets time pass for server and connector; resolves once everything due has run. */
  advance(ms: number): Promise<void>;
  /** The server's simulated clients perform this many trading actions. */
  trade(actions: number): Promise<void>;
  /** The connector's request timeout. */
  requestTimeoutMs: number;
  /**
   * The server journal cannot be read (a plain MT5 Web API without Toolbox's plugin): the journal
   * contract then checks that asking says why, instead of filtering.
   */
  noJournal?: boolean;
  faults: {
    /** Drops the link; the server accepts a new connection right away. */
    dropConnection(): void;
    refuseConnections(): void;
    slowAnswers(delayMs: number): void;
    rejectNext(count: number): void;
    duplicateEvents(on: boolean): void;
    restore(): void;
  };
  close(): Promise<void>;
}

export type MakeHarness = () => Promise<ConnectorHarness>;
