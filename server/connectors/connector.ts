/**
 * The one interface Toolbox uses to talk to a trading server, whatever its type. Everything
 * above this line (accounts area, blotter, copier, Flexible Leverage) speaks the normalized model
 * of core/trading; everything below (simulated servers, MT5 Web API, Match-Trader Broker API,
 * the MT4 gateway) keeps its own identifiers and units inside its connector. See
 * docs/connectors.md.
 */
import type {
  Account,
  AccountPatch,
  BalanceOperationRequest,
  BalanceOperationResult,
  CancelPendingOrderRequest,
  ClosePositionRequest,
  ConnectionState,
  Deal,
  FinishedPendingOrder,
  Group,
  GroupPatch,
  Holiday,
  JournalEntry,
  JournalFilter,
  ModifyPendingOrderRequest,
  ModifyPositionRequest,
  NewAccount,
  OrderRequest,
  OrderResult,
  PasswordKind,
  PendingOrder,
  PendingOrderResult,
  PlacePendingOrderRequest,
  PluginUpdate,
  Position,
  Quote,
  SymbolPatch,
  Timestamp,
  TradeEvent,
  TradePlatformType,
  TradePlugin,
  TradeSymbol,
} from "../../core/trading/index.ts";
import type { ConnectorError } from "./errors.ts";
import type { QuoteStream, QuoteStreamOptions } from "./quotes/quoteStream.ts";

export type { QuoteDelivery, QuoteStream, QuoteStreamOptions } from "./quotes/quoteStream.ts";

export interface StateChange {
  state: ConnectionState;
  previous: ConnectionState;
  /** Why the connection is not (or no longer) up; set with `reconnecting` and `failed`. */
  error: ConnectorError | null;
  at: Timestamp;
}

export interface ServerTime {
  time: Timestamp;
  /** The server's offset from UTC in minutes (MetaTrader servers usually run on broker time, e.g. +120). */
  timeZoneOffsetMinutes: number;
}

export interface AccountQuery {
  /** Opaque, from the previous page's `nextCursor`. */
  cursor?: string | null;
  /** Page size, 1–1000; 100 by default. */
  limit?: number;
  /** Group mask ("real\\*,!real\\test"), see core/trading/mask.ts. */
  groupMask?: string;
}

export interface Page<T> {
  items: T[];
  /** Pass back to get the next page; null on the last page. Pages are in login order. */
  nextCursor: string | null;
}

export interface DealQuery {
  login: string;
  from: Timestamp;
  to: Timestamp;
}

/** Pending orders that left the book (filled, cancelled, expired) within [from, to]; of one account, or of all where the platform can. */
export interface OrderHistoryQuery {
  login?: string;
  from: Timestamp;
  to: Timestamp;
}

export interface JournalQuery extends JournalFilter {
  from: Timestamp;
  to: Timestamp;
  /** At most this many entries, oldest first; 1000 by default. */
  limit?: number;
}

/**
 * Live trade events. Iterate it with `for await`; `close()` ends it. It survives a lost link
 * (events resume after the reconnect, none lost or repeated) and ends when the connector is
 * disconnected on purpose. It throws ConnectorError `resyncRequired` when the events the
 * consumer needs are no longer held.
 */
export interface TradeEventStream extends AsyncIterable<TradeEvent> {
  /** The sequence of the last event handed to the consumer. Resubscribe from it to resume. */
  readonly lastSequence: number;
  close(): void;
}

/**
 * What a connector can do beyond what every platform does, for a caller that must choose before
 * it asks (the copier): decision 0077-match-trader-pending-order-changes.
 */
export interface ConnectorCapabilities {
  /** A pending order's level, stops or expiration can be changed in place (`modifyPendingOrder`); false: refused with `notSupported`, cancel it and place another. */
  changePendingOrder: boolean;
  /** A pending order can be placed with an expiration; false: refused (the Match-Trader Broker API), place it without one. Absent: true. */
  pendingOrderExpiration?: boolean;
  /**
   * The platform has server plugins a manager connection can list and configure (MT4, MT5);
   * false: `listPlugins` and `updatePlugin` are refused with `rejected` (Match-Trader has none).
   */
  plugins: boolean;
}

export interface TradePlatformConnector {
  readonly platform: TradePlatformType;
  readonly capabilities: ConnectorCapabilities;
  readonly state: ConnectionState;
  /** The error behind the current `reconnecting` or `failed` state, else null. */
  readonly lastError: ConnectorError | null;
  /** How long one request may wait for the platform before it fails with `timeout`. */
  readonly requestTimeoutMs: number;
  onStateChange(listener: (change: StateChange) => void): () => void;

  /** Opens (or reopens) the connection; resolves once requests and the stream work. */
  connect(): Promise<void>;
  /** Closes the connection on purpose and ends live streams. */
  disconnect(): Promise<void>;
  serverTime(): Promise<ServerTime>;

  listAccounts(query?: AccountQuery): Promise<Page<Account>>;
  getAccount(login: string): Promise<Account>;
  createAccount(account: NewAccount): Promise<Account>;
  /** Group, leverage, rights (enabled, read-only, password change, OTP reset) and personal details. */
  updateAccount(login: string, patch: AccountPatch): Promise<Account>;
  resetPassword(login: string, password: string, kind?: PasswordKind): Promise<void>;
  /** Flexible Leverage's entry point; the same as `updateAccount(login, { leverage })` with its own journal line. */
  setLeverage(login: string, leverage: number): Promise<Account>;

  listGroups(): Promise<Group[]>;
  listSymbols(): Promise<TradeSymbol[]>;
  /**
   * Configuration writes (docs/connectors.md, "Configuration writes"). `expected` is the version
   * of the object as the editor read it (`configVersion`, core/trading/configVersion.ts: a content
   * hash, since MT4 and MT5 keep no version). The server's object is read first: changed since,
   * the write is refused with ConfigChangedError carrying the server's object; a field the
   * platform cannot take, or a value its rules refuse, is `invalidRequest` with a plain sentence
   * (core/trading/configRules.ts). Nothing is sent in either case. Resolves with the object as
   * the server now holds it. Match-Trader's offers are its groups: each Group is one offer and the
   * group it names (`native.offerId`); the default leverage is the offer's.
   */
  updateGroup(name: string, patch: GroupPatch, expected: string): Promise<Group>;
  updateSymbol(name: string, patch: SymbolPatch, expected: string): Promise<TradeSymbol>;
  /**
   * The server's holidays (core/trading/holiday.ts), and the whole list written back, refused like
   * the writes above when it changed since read (`holidaysVersion`). MetaTrader only: Match-Trader
   * has none, and the MT5 Web API has no command for them; there both refuse with `invalidRequest`.
   */
  listHolidays(): Promise<Holiday[]>;
  updateHolidays(holidays: readonly Holiday[], expected: string): Promise<Holiday[]>;
  /** Current quotes for the given symbols, or all. */
  getQuotes(symbols?: readonly string[]): Promise<Quote[]>;
  /**
   * Live quotes: every tick, or the latest per symbol when the consumer is slower
   * (`delivery: "latest"`). Survives a lost link; ends on `disconnect()`. Throws ConnectorError
   * `rejected` at once where the platform's connection cannot stream quotes yet.
   */
  quotes(options?: QuoteStreamOptions): QuoteStream;

  /** Open positions of one account, or of the whole server. */
  openPositions(login?: string): Promise<Position[]>;
  /**
   * Open positions of the given accounts (a page of them, at most 1,000), the way the MT5 Web API's
   * `position/get_batch` reads them. Accounts that no longer exist are left out.
   */
  openPositionsOf(logins: readonly string[]): Promise<Position[]>;
  /** Deals of an account whose time is within [from, to], oldest first. */
  dealHistory(query: DealQuery): Promise<Deal[]>;
  journal(query: JournalQuery): Promise<JournalEntry[]>;

  /** Exactly once per `operationId`: a retry returns the first result and moves no money. */
  balanceOperation(request: BalanceOperationRequest): Promise<BalanceOperationResult>;
  /** Market order; exactly once per `requestId`. */
  placeOrder(request: OrderRequest): Promise<OrderResult>;
  modifyPosition(request: ModifyPositionRequest): Promise<OrderResult>;
  closePosition(request: ClosePositionRequest): Promise<OrderResult>;

  /** Pending orders of one account, or of the whole server (core/trading/pendingOrder.ts). */
  pendingOrders(login?: string): Promise<PendingOrder[]>;
  /**
   * Pending orders that left the book within [from, to] (by the time they left; Match-Trader, whose
   * history has no end time, by the time they were placed), oldest first: docs/connectors.md,
   * "Order history".
   */
  orderHistory(query: OrderHistoryQuery): Promise<FinishedPendingOrder[]>;
  /** Places a buy/sell limit or stop order; exactly once per `requestId`. */
  placePendingOrder(request: PlacePendingOrderRequest): Promise<PendingOrderResult>;
  /** Moves a pending order's level, stops or expiration; exactly once per `requestId`. */
  modifyPendingOrder(request: ModifyPendingOrderRequest): Promise<PendingOrderResult>;
  /** Cancels a pending order; exactly once per `requestId`. */
  cancelPendingOrder(request: CancelPendingOrderRequest): Promise<PendingOrderResult>;

  /** The plugins the server runs, in the server's order (docs/connectors.md, "Plugins"). */
  listPlugins(): Promise<TradePlugin[]>;
  /**
   * Enables or disables a plugin and/or replaces its parameters (the whole ordered list); returns
   * the plugin as the server then reports it. `notFound` for an id the server does not run;
   * `rejected` where the platform has no plugins or the plugin takes no settings.
   */
  updatePlugin(pluginId: string, update: PluginUpdate): Promise<TradePlugin>;

  /**
   * Events with a sequence greater than `fromSequence`, then live ones. Without it, only events
   * that happen from now on.
   */
  subscribe(fromSequence?: number): TradeEventStream;
}
