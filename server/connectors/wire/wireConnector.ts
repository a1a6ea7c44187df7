/**
 * A TradePlatformConnector over any platform's native wire: requests are checked, encoded with
 * the platform codec, sent through the link with a timeout, and the answers decoded. The
 * simulated servers use it now; the MT5 Web API, Match-Trader Broker API and MT4 gateway
 * connectors will plug an HTTP transport into the same class.
 */
import type {
  AccountPatch,
  BalanceOperationRequest,
  CancelPendingOrderRequest,
  FinishedPendingOrder,
  ClosePositionRequest,
  GroupPatch,
  Holiday,
  ModifyPendingOrderRequest,
  ModifyPositionRequest,
  NewAccount,
  OrderRequest,
  PasswordKind,
  PlacePendingOrderRequest,
  PluginUpdate,
  SymbolPatch,
  TradePlatformType,
} from "../../../core/trading/index.ts";
import { applyPluginUpdate, pluginUpdateProblem } from "../../../core/trading/index.ts";
import { configVersion, holidaysProblems, holidaysVersion, patchGroup, patchSymbol } from "../../../core/trading/index.ts";
import { systemClock, type Clock } from "../clock.ts";
import type {
  AccountQuery,
  ConnectorCapabilities,
  DealQuery,
  JournalQuery,
  OrderHistoryQuery,
  StateChange,
  TradeEventStream,
  TradePlatformConnector,
} from "../connector.ts";
import { ConfigChangedError, connectorErrors } from "../errors.ts";
import { DEFAULT_RETAINED_EVENTS } from "../events/eventJournal.ts";
import { QuoteBuffer, type QuoteStream, type QuoteStreamOptions } from "../quotes/quoteStream.ts";
import { JournalStream } from "../events/eventStream.ts";
import type { PlatformCodec } from "./codec.ts";
import { WireLink } from "./link.ts";
import * as check from "./requests.ts";
import type { NativeTypes, WireCredentials, WireSession, WireTransport } from "./wire.ts";

export interface WireConnectorOptions<N extends NativeTypes> {
  codec: PlatformCodec<N>;
  /** What the platform's API cannot do (everything by default). */
  capabilities?: Partial<ConnectorCapabilities>;
  transport: WireTransport<N>;
  credentials: WireCredentials;
  /** Reported by serverTime(); the codec already converts times with it. A function when learnt from the server. */
  timeZoneOffsetMinutes: number | (() => number);
  clock?: Clock;
  requestTimeoutMs?: number;
  connectTimeoutMs?: number;
  /** How many normalized events are kept for resuming subscribers. */
  retainedEvents?: number;
  /** Called with native events the codec could not read (then consumers are told to resync). */
  onProtocolError?: (error: unknown) => void;
  /** Why this transport gives no live quotes yet (a dealer's words); unset where it streams them. */
  quotesRefusal?: string;
}

function quotesNotStreamed(why = "This trading server's connection does not stream quotes yet.") {
  return connectorErrors.rejected("other", why);
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 15_000;
const MAX_PAGE = 1000;
const MAX_JOURNAL = 10_000;

export class WireConnector<N extends NativeTypes> implements TradePlatformConnector {
  readonly platform: TradePlatformType;
  readonly capabilities: ConnectorCapabilities;
  private readonly codec: PlatformCodec<N>;
  private readonly link: WireLink<N>;

  constructor(private readonly options: WireConnectorOptions<N>) {
    this.codec = options.codec;
    this.platform = options.codec.platform;
    this.capabilities = { changePendingOrder: true, plugins: options.codec.plugin !== undefined, ...options.capabilities };
    this.link = new WireLink({
      codec: options.codec,
      transport: options.transport,
      credentials: options.credentials,
      clock: options.clock ?? systemClock,
      requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      retainedEvents: options.retainedEvents ?? DEFAULT_RETAINED_EVENTS,
      onProtocolError: options.onProtocolError ?? (() => undefined),
    });
  }

  get state() {
    return this.link.state;
  }

  get lastError() {
    return this.link.lastError;
  }

  get requestTimeoutMs() {
    return this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  onStateChange(listener: (change: StateChange) => void) {
    return this.link.onStateChange(listener);
  }

  connect() {
    return this.link.connect();
  }

  disconnect() {
    return this.link.disconnect();
  }

  async serverTime() {
    const time = await this.link.call((s) => s.serverTime());
    const offset = this.options.timeZoneOffsetMinutes;
    return { time: this.codec.time.decode(time), timeZoneOffsetMinutes: typeof offset === "number" ? offset : offset() };
  }

  async listAccounts(query: AccountQuery = {}) {
    const limit = query.limit ?? 100;
    check.checkLimit(limit, MAX_PAGE);
    const after = query.cursor ? check.pageCursor.decode(query.cursor) : null;
    // One more than asked tells whether another page exists without a second round trip.
    const natives = await this.link.call((s) => s.listAccounts(after === null ? null : this.codec.login.encode(after), limit + 1, query.groupMask ?? null));
    const items = natives.slice(0, limit).map((a) => this.codec.account.decode(a));
    const last = items.at(-1);
    return { items, nextCursor: natives.length > limit && last ? check.pageCursor.encode(last.login) : null };
  }

  async getAccount(login: string) {
    check.requireLogin(login);
    return this.codec.account.decode(await this.link.call((s) => s.getAccount(this.codec.login.encode(login))));
  }

  async createAccount(account: NewAccount) {
    check.checkNewAccount(account);
    return this.codec.account.decode(await this.link.call((s) => s.createAccount(this.codec.newAccount.encode(account))));
  }

  async updateAccount(login: string, patch: AccountPatch) {
    check.requireLogin(login);
    check.checkPatch(patch);
    const native = await this.link.call((s) => s.updateAccount(this.codec.login.encode(login), this.codec.accountPatch.encode(patch)));
    return this.codec.account.decode(native);
  }

  async resetPassword(login: string, password: string, kind: PasswordKind = "main") {
    check.requireLogin(login);
    check.checkPassword(password);
    await this.link.call((s) => s.setPassword(this.codec.login.encode(login), password, kind));
  }

  setLeverage(login: string, leverage: number) {
    return this.updateAccount(login, { leverage });
  }

  async listGroups() {
    return (await this.link.call((s) => s.listGroups())).map((g) => this.codec.group.decode(g));
  }

  async listSymbols() {
    return (await this.link.call((s) => s.listSymbols())).map((x) => this.codec.symbol.decode(x));
  }

  /** Read, compare the version, check the patch, write the whole record: docs/connectors.md, "Configuration writes". */
  async updateGroup(name: string, patch: GroupPatch, expected: string) {
    check.checkConfigWrite(name, expected, "group");
    const current = await this.link.call(async (s) =>
      s.getGroup ? this.codec.group.decode(await s.getGroup(name)) : (await s.listGroups()).map((g) => this.codec.group.decode(g)).find((g) => g.name === name),
    );
    if (!current) throw connectorErrors.notFound(`Group "${name}" does not exist on this server.`);
    if (configVersion(current) !== expected) throw new ConfigChangedError(`Group "${name}"`, current, configVersion(current));
    const next = patchGroup(this.platform, current, patch);
    if (!next.ok) throw connectorErrors.invalidRequest(next.problems.join(" "));
    return this.codec.group.decode(await this.link.call((s) => s.updateGroup(name, this.codec.group.encode(next.value))));
  }

  async updateSymbol(name: string, patch: SymbolPatch, expected: string) {
    check.checkConfigWrite(name, expected, "symbol");
    const current = await this.link.call(async (s) =>
      s.getSymbol
        ? this.codec.symbol.decode(await s.getSymbol(name))
        : (await s.listSymbols()).map((x) => this.codec.symbol.decode(x)).find((x) => x.name === name),
    );
    if (!current) throw connectorErrors.notFound(`Symbol ${name} does not exist on this server.`);
    if (configVersion(current) !== expected) throw new ConfigChangedError(`Symbol ${name}`, current, configVersion(current));
    const next = patchSymbol(this.platform, current, patch);
    if (!next.ok) throw connectorErrors.invalidRequest(next.problems.join(" "));
    return this.codec.symbol.decode(await this.link.call((s) => s.updateSymbol(name, this.codec.symbol.encode(next.value))));
  }

  async listHolidays() {
    const codec = this.holidayCodec();
    return (await this.link.call((s) => this.holidaySession(s).listHolidays())).map((h) => codec.decode(h));
  }

  /** The whole list, refused when it changed since read (`holidaysVersion`) or breaks the rules (core/trading/holiday.ts). */
  async updateHolidays(holidays: readonly Holiday[], expected: string) {
    const codec = this.holidayCodec();
    check.checkConfigWrite("holidays", expected, "holiday list");
    const problems = holidaysProblems(holidays);
    if (problems.length > 0) throw connectorErrors.invalidRequest(problems.join(" "));
    const current = await this.listHolidays();
    if (holidaysVersion(current) !== expected) throw new ConfigChangedError("The holiday list", current, holidaysVersion(current));
    const written = await this.link.call((s) => this.holidaySession(s).setHolidays(holidays.map((h) => codec.encode(h))));
    return written.map((h) => codec.decode(h));
  }

  private holidayCodec() {
    if (!this.codec.holiday) throw connectorErrors.invalidRequest("Match-Trader has no server holidays: an instrument's trading hours say when it trades.");
    return this.codec.holiday;
  }

  private holidaySession(session: WireSession<N>) {
    if (!session.listHolidays || !session.setHolidays)
      throw connectorErrors.invalidRequest(
        "This connection has no command for the server's holidays (the MT5 Web API has none): edit them in the platform's administrator; nothing was sent.",
      );
    return session as WireSession<N> & Required<Pick<WireSession<N>, "listHolidays" | "setHolidays">>;
  }

  async getQuotes(symbols?: readonly string[]) {
    return (await this.link.call((s) => s.getQuotes(symbols ?? null))).map((q) => this.codec.quote.decode(q));
  }

  /**
   * Live quotes (docs/quotes-monitor.md, "How quotes arrive"): attached to each session the link
   * opens, so a lost link resumes with the next session's ticks (none are replayed: a quote is
   * only worth its latest value); ended by a disconnect on purpose. A transport without a quote
   * stream refuses at once.
   */
  quotes(options: QuoteStreamOptions = {}): QuoteStream {
    const session = this.link.connectedSession;
    if (session && !session.quoteStream) throw quotesNotStreamed(this.options.quotesRefusal);
    if (!session && this.options.quotesRefusal) throw quotesNotStreamed(this.options.quotesRefusal);
    let detach: (() => void) | null = null;
    let attachedTo: unknown = null;
    const attach = () => {
      const current = this.link.connectedSession;
      if (!current?.quoteStream || current === attachedTo) return;
      detach?.();
      attachedTo = current;
      detach = current.quoteStream((ticks) => buffer.push(ticks.map((q) => this.codec.quote.decode(q))), options.symbols ?? null);
    };
    const unlisten = this.link.onStateChange((change) => {
      if (change.state === "connected") attach();
      else if (change.state === "disconnected") buffer.end();
    });
    const buffer = new QuoteBuffer(options, () => {
      unlisten();
      detach?.();
    });
    attach();
    return buffer;
  }

  async openPositions(login?: string) {
    if (login !== undefined) check.requireLogin(login);
    const natives = await this.link.call((s) => s.openPositions(login === undefined ? null : this.codec.login.encode(login)));
    return natives.map((p) => this.codec.position.decode(p));
  }

  async openPositionsOf(logins: readonly string[]) {
    if (logins.length === 0) return [];
    if (logins.length > MAX_PAGE) throw connectorErrors.invalidRequest(`At most ${MAX_PAGE} accounts can be read at once.`);
    for (const login of logins) check.requireLogin(login);
    const natives = await this.link.call((s) => s.openPositionsOf(logins.map((login) => this.codec.login.encode(login))));
    return natives.map((p) => this.codec.position.decode(p));
  }

  async dealHistory(query: DealQuery) {
    check.requireLogin(query.login);
    check.checkRange(query.from, query.to);
    const login = this.codec.login.encode(query.login);
    const [records, open] = await Promise.all([
      this.link.call((s) => s.history(login, this.codec.time.encode(query.from), this.codec.time.encode(query.to))),
      this.codec.history.withOpenPositions ? this.link.call((s) => s.openPositions(login)) : Promise.resolve([]),
    ]);
    // Rebuilt entry deals may lie outside the range; keep exactly the range, oldest first.
    return this.codec.history
      .decode(records, open)
      .filter((d) => d.time >= query.from && d.time <= query.to)
      .sort((a, b) => a.time - b.time || a.id.localeCompare(b.id));
  }

  async journal(query: JournalQuery) {
    check.checkRange(query.from, query.to);
    const limit = query.limit ?? 1000;
    check.checkLimit(limit, MAX_JOURNAL);
    const { from, to, limit: _limit, ...filter } = query;
    const natives = await this.link.call((s) => s.journal(this.codec.time.encode(from), this.codec.time.encode(to), filter, limit));
    return natives.map((j) => this.codec.journal.decode(j));
  }

  async balanceOperation(request: BalanceOperationRequest) {
    check.checkBalanceOperation(request);
    const native = await this.link.call((s) => s.balance(this.codec.balanceRequest.encode(request)));
    return this.codec.balanceResult.decode(native);
  }

  async placeOrder(request: OrderRequest) {
    check.checkOrder(request);
    return this.codec.orderResult.decode(await this.link.call((s) => s.placeOrder(this.codec.orderRequest.encode(request))));
  }

  async modifyPosition(request: ModifyPositionRequest) {
    check.checkModify(request);
    const native = await this.link.call((s) => s.modifyPosition(this.codec.modifyRequest.encode(request)));
    return this.codec.orderResult.decode(native);
  }

  async closePosition(request: ClosePositionRequest) {
    check.checkClose(request);
    const native = await this.link.call((s) => s.closePosition(this.codec.closeRequest.encode(request)));
    return this.codec.orderResult.decode(native);
  }

  async pendingOrders(login?: string) {
    if (login !== undefined) check.requireLogin(login);
    const natives = await this.link.call((s) => s.pendingOrders(login === undefined ? null : this.codec.login.encode(login)));
    return natives.map((o) => this.codec.pendingOrder.decode(o));
  }

  async orderHistory(query: OrderHistoryQuery) {
    if (query.login !== undefined) check.requireLogin(query.login);
    check.checkRange(query.from, query.to);
    const login = query.login === undefined ? null : this.codec.login.encode(query.login);
    const natives = await this.link.call((s) => s.orderHistory(login, this.codec.time.encode(query.from), this.codec.time.encode(query.to)));
    // Platforms read whole seconds: keep exactly the range.
    const at = (o: FinishedPendingOrder) => o.time ?? o.order.placedTime;
    return natives
      .map((o) => this.codec.finishedOrder.decode(o))
      .filter((o) => at(o) >= query.from && at(o) <= query.to)
      .sort((a, b) => (a.time ?? a.order.placedTime) - (b.time ?? b.order.placedTime));
  }

  async placePendingOrder(request: PlacePendingOrderRequest) {
    check.checkPendingOrder(request);
    const native = await this.link.call((s) => s.placePendingOrder(this.codec.placePendingRequest.encode(request)));
    return this.codec.pendingResult.decode(native);
  }

  async modifyPendingOrder(request: ModifyPendingOrderRequest) {
    check.checkModifyPendingOrder(request);
    const native = await this.link.call((s) => s.modifyPendingOrder(this.codec.modifyPendingRequest.encode(request)));
    return this.codec.pendingResult.decode(native);
  }

  async cancelPendingOrder(request: CancelPendingOrderRequest) {
    check.checkCancelPendingOrder(request);
    const native = await this.link.call((s) => s.cancelPendingOrder(this.codec.cancelPendingRequest.encode(request)));
    return this.codec.pendingResult.decode(native);
  }

  /** The platform's plugin codecs; a platform without plugins (Match-Trader) is refused before anything is sent. */
  private pluginCodecs() {
    const { plugin, pluginUpdate } = this.codec;
    if (!plugin || !pluginUpdate) throw connectorErrors.noPlugins(this.platform);
    return { plugin, pluginUpdate };
  }

  async listPlugins() {
    const { plugin } = this.pluginCodecs();
    return (await this.link.call((s) => s.listPlugins())).map((p) => plugin.decode(p));
  }

  /**
   * Read, then write the whole plugin back (MT4's CfgUpdatePlugin and MT5's plugin/add both take
   * the full record): an id the server does not run is refused before anything is written.
   */
  async updatePlugin(pluginId: string, update: PluginUpdate) {
    const { plugin, pluginUpdate } = this.pluginCodecs();
    if (typeof pluginId !== "string" || pluginId.trim() === "") throw connectorErrors.invalidRequest("A plugin id is required.");
    const problem = pluginUpdateProblem(update);
    if (problem) throw connectorErrors.invalidRequest(problem);
    const current = (await this.listPlugins()).find((p) => p.id === pluginId);
    if (!current) throw connectorErrors.notFound(`The server runs no plugin "${pluginId}".`);
    const native = await this.link.call((s) => s.updatePlugin(pluginUpdate.encode(applyPluginUpdate(current, update))));
    return plugin.decode(native);
  }

  subscribe(fromSequence?: number): TradeEventStream {
    if (fromSequence === undefined) return new JournalStream(this.link.journal, null);
    if (!Number.isSafeInteger(fromSequence) || fromSequence < 0)
      throw connectorErrors.invalidRequest("A stream resumes from a whole, non-negative sequence number.");
    this.link.journal.assertResumable(fromSequence);
    return new JournalStream(this.link.journal, fromSequence);
  }
}
