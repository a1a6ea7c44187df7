/**
 * The native side of a connector: a session with a trading server that speaks the platform's
 * own shapes (MT4 trade records, MT5 deals, Match-Trader JSON). A simulated server and, later, an
 * HTTP client for a real protocol both provide this; the WireConnector turns it into the
 * normalized TradePlatformConnector through the platform's codec.
 */
import type { JournalFilter, PasswordKind } from "../../../core/trading/index.ts";

/** The native type of each thing a platform sends or accepts. */
export interface NativeTypes {
  login: string | number;
  positionId: string | number;
  time: string | number;
  account: object;
  newAccount: object;
  accountPatch: object;
  group: object;
  symbol: object;
  quote: object;
  position: object;
  history: object;
  journal: object;
  balanceRequest: object;
  balanceResult: object;
  orderRequest: object;
  modifyRequest: object;
  closeRequest: object;
  orderResult: object;
  pendingOrder: object;
  /** A pending order that left the book, as the platform's order history lists it. */
  finishedOrder: object;
  placePendingRequest: object;
  modifyPendingRequest: object;
  cancelPendingRequest: object;
  pendingResult: object;
  event: object;
  error: object;
  /** A server plugin as the platform lists it (never on a platform without plugins). */
  plugin: object;
  /** What the platform takes to change one plugin (its enabled flag and parameters). */
  pluginUpdate: object;
}

/** One server-side event with the server's own sequence, used to resume and to drop duplicates. */
export interface NativePacket<E> {
  sequence: number;
  event: E;
}

export interface PacketBatch<E> {
  packets: NativePacket<E>[];
  /** False when the server no longer holds the first event asked for: a gap nobody can fill. */
  complete: boolean;
  /** The server's last sequence when it answered. */
  latestSequence: number;
}

export interface WireSession<N extends NativeTypes> {
  /** The server's last event sequence when the session opened. */
  readonly openedAtSequence: number;
  serverTime(): Promise<N["time"]>;
  listAccounts(after: N["login"] | null, limit: number, groupMask: string | null): Promise<N["account"][]>;
  getAccount(login: N["login"]): Promise<N["account"]>;
  createAccount(request: N["newAccount"]): Promise<N["account"]>;
  updateAccount(login: N["login"], patch: N["accountPatch"]): Promise<N["account"]>;
  setPassword(login: N["login"], password: string, kind: PasswordKind): Promise<void>;
  listGroups(): Promise<N["group"][]>;
  listSymbols(): Promise<N["symbol"][]>;
  /** One group or symbol by name, where the protocol reads one (else the connector reads the list). */
  getGroup?(name: string): Promise<N["group"]>;
  getSymbol?(name: string): Promise<N["symbol"]>;
  /** Writes a whole group record (the platform's own update command); answers it as stored. Refused when no group has that name. */
  updateGroup(name: string, group: N["group"]): Promise<N["group"]>;
  /** Writes a whole symbol record; answers it as stored. Refused when no symbol has that name. */
  updateSymbol(name: string, symbol: N["symbol"]): Promise<N["symbol"]>;
  /** The server's holidays in the platform's shape; absent where the protocol has no command for them. */
  listHolidays?(): Promise<object[]>;
  /** Replaces the server's holiday list; answers it as stored. */
  setHolidays?(holidays: readonly object[]): Promise<object[]>;
  getQuotes(symbols: readonly string[] | null): Promise<N["quote"][]>;
  openPositions(login: N["login"] | null): Promise<N["position"][]>;
  /** Positions of these accounts; logins the server does not know are skipped. */
  openPositionsOf(logins: readonly N["login"][]): Promise<N["position"][]>;
  /** Records that opened or closed within [from, to] (the platform's notion of history). */
  history(login: N["login"], from: N["time"], to: N["time"]): Promise<N["history"][]>;
  journal(from: N["time"], to: N["time"], filter: JournalFilter, limit: number): Promise<N["journal"][]>;
  balance(request: N["balanceRequest"]): Promise<N["balanceResult"]>;
  placeOrder(request: N["orderRequest"]): Promise<N["orderResult"]>;
  modifyPosition(request: N["modifyRequest"]): Promise<N["orderResult"]>;
  closePosition(request: N["closeRequest"]): Promise<N["orderResult"]>;
  /** Pending orders of an account, or of the whole server. */
  pendingOrders(login: N["login"] | null): Promise<N["pendingOrder"][]>;
  /** Pending orders that left the book within [from, to], of an account or of the whole server. */
  orderHistory(login: N["login"] | null, from: N["time"], to: N["time"]): Promise<N["finishedOrder"][]>;
  placePendingOrder(request: N["placePendingRequest"]): Promise<N["pendingResult"]>;
  modifyPendingOrder(request: N["modifyPendingRequest"]): Promise<N["pendingResult"]>;
  cancelPendingOrder(request: N["cancelPendingRequest"]): Promise<N["pendingResult"]>;
  /** The server's plugins (a platform without any refuses). */
  listPlugins(): Promise<N["plugin"][]>;
  /** Writes one plugin's enabled flag and parameters; answers the plugin as it now is. */
  updatePlugin(update: N["pluginUpdate"]): Promise<N["plugin"]>;
  /** Events after `sequence`, at most `limit`, oldest first. */
  eventsSince(sequence: number, limit: number): Promise<PacketBatch<N["event"]>>;
  /**
   * Live quotes as the server gives them (pushed, pumped or polled: each vendor's way), until the
   * returned function is called or the session ends; `symbols` narrows them where the protocol can
   * (null: all of the server's). Absent where the transport cannot stream quotes: the connector
   * refuses `quotes()` with a message that says so.
   */
  quoteStream?(onTicks: (ticks: readonly N["quote"][]) => void, symbols?: readonly string[] | null): () => void;
  close(): void;
}

export interface WireHandlers<E> {
  onPacket(packet: NativePacket<E>): void;
  /** The server or the network closed the session. */
  onClose(): void;
}

export interface WireCredentials {
  login: string;
  password: string;
}

export interface WireTransport<N extends NativeTypes> {
  open(credentials: WireCredentials, handlers: WireHandlers<N["event"]>): Promise<WireSession<N>>;
}

/** A platform's own error answer (an MT5 retcode, an MT4 error code, a Match-Trader HTTP body). */
export class NativeError<E extends object = object> extends Error {
  constructor(readonly native: E) {
    super("Native platform error");
  }
}

/** The link itself failed (socket closed, host unreachable): no answer came at all. */
export class LinkError extends Error {
  constructor(readonly kind: "closed" | "unreachable") {
    super(kind === "closed" ? "Link closed" : "Host unreachable");
  }
}
