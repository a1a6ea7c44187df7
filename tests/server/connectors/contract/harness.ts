/**
 * What the contract suite needs from each connector under test: the connector, a way to let time
 * pass and the server's clients trade, and the faults of its server. The simulated servers provide
 * it in-process; the real protocol connectors will provide it over the local protocol servers.
 */
import type { TradePlatformConnector } from "../../../../server/connectors/connector.ts";
import type { SimulatedServer } from "../../../../server/connectors/simulated/server.ts";

export interface ConnectorHarness {
  connector: TradePlatformConnector;
  /** Another connector to the same server, e.g. with other credentials. */
  connectorWith(credentials: { login: string; password: string }): TradePlatformConnector;
  /**
   * A new connector to the same server, connected, that remembers nothing of the others in memory:
   * Toolbox after a restart (with what the host keeps across one, e.g. Match-Trader's order journal).
   */
  restarted(): Promise<TradePlatformConnector>;
  /** The simulation behind the server: what really happened, read apart from the connector. */
  simulation: SimulatedServer;
  /** The server's clock, in UTC milliseconds. */
  now(): number;
  /** Lets time pass for server and connector; resolves once everything due has run. */
  advance(ms: number): Promise<void>;
  /** Moves the clock only, without waiting for answers under way (a server may be holding one back). */
  tick(ms: number): Promise<void>;
  /** The server's simulated clients perform this many trading actions. */
  trade(actions: number): Promise<void>;
  /** The connector's request timeout. */
  requestTimeoutMs: number;
  /**
   * The server journal cannot be read (a plain MT5 Web API without Toolbox's plugin): the journal
   * contract then checks that asking says why, instead of filtering.
   */
  noJournal?: boolean;
  /** The connector reads and writes the server's holidays (MetaTrader, where the protocol has a command for them); absent: it refuses to. */
  holidays?: boolean;
  /** The pending-order operations the connector carries (contract/pendingOrders.ts); absent: none yet, and those tests are skipped. */
  pendingOrders?: PendingOrdersCarried;
  faults: {
    /** Drops the link; the server accepts a new connection right away. */
    dropConnection(): void;
    refuseConnections(): void;
    slowAnswers(delayMs: number): void;
    rejectNext(count: number): void;
    duplicateEvents(on: boolean): void;
    /** The next order (open, stops change, close) is run, then its answer is lost with the connection. */
    loseNextOrderAnswer(): void;
    /** The next order is run at once, then its answer comes this late (on the server's clock). */
    slowNextOrder(delayMs: number): void;
    /**
     * The server forgets the request ids it was given (the MT4 gateway restarted without
     * persistence); absent where the server keeps none of its own, or where they are the whole
     * mechanism (the simulated servers).
     */
    forgetRequestIds?(): void;
    restore(): void;
  };
  close(): Promise<void>;
}

export type MakeHarness = () => Promise<ConnectorHarness>;

export interface PendingOrdersCarried {
  /** The platform has a call that changes a waiting order (Match-Trader's Broker API has none). */
  modify: boolean;
  /** An order keeps the trader's comment (Match-Trader's order bodies carry none). */
  comment: boolean;
  /** The order history says when an order left the book (the Match-Trader Broker API's does not): absent, it does. */
  endTime?: boolean;
}
