/**
 * One MT5 Web API session as a WireSession: the MD5 challenge both ways, the server's zone read at
 * the handshake and at every ping (~20 s), and the live stream, polled from Toolbox's numbered
 * event feed or, on a server without Toolbox's plugin, from the vendor's own commands
 * (vendorFeed.ts). One idea, at length: each WireSession operation in the vendor's commands
 * (paging, batches, the user and its trade state merged, dealer requests read back).
 */
import type { Client } from "undici";
import type { JournalFilter, PasswordKind } from "../../../core/trading/index.ts";
import type { Clock } from "../clock.ts";
import { ConnectorError, connectorErrors } from "../errors.ts";
import type { Mt5Deal, Mt5DealerRequest, Mt5Event, Mt5Native, Mt5Order, Mt5PendingRequest, Mt5User } from "../mt5/native.ts";
import { InFlight, requestJson, SessionTimers } from "../transport/requests.ts";
import { LinkError, NativeError, type PacketBatch, type WireCredentials, type WireHandlers, type WireSession } from "../wire/wire.ts";
import { Mt5ConfigCommands } from "./config.ts";
import { challengeAnswer, handshakeError, passwordHash, randomChallenge, sameAnswer } from "./auth.ts";
import { readJson, retcodeNumber, untagged, untaggedEvent } from "./format.ts";
import type { Mt5WireRequest } from "./orders.ts";
import { pluginList } from "./plugins.ts";
import { pollLastTicks, readLastTicks } from "./quotes.ts";
import type { Mt5WebApiTransport } from "./transport.ts";
import { VendorEventPoller, type VendorReads } from "./vendorFeed.ts";

export const MT5_WEB_API_PING_MS = 20_000;
export const MT5_WEB_API_POLL_MS = 1_000;
const PAGE = 100;
const EVENT_BATCH = 1000;
/** How far back a money operation is looked for before it is sent again. */
const TAG_LOOKBACK_MS = 31 * 24 * 3600_000;
/**
 * How far back an account's deals are searched for an order's tag: a retry comes within minutes,
 * a restarted Toolbox's within hours; a copier's follower can make hundreds of deals a day, each
 * read costing a page.
 */
const ORDER_LOOKBACK_MS = 24 * 3600_000;
/** How far back the whole server's deals are searched for the close of a position no longer open. */
const CLOSED_LOOKBACK_MS = 3600_000;

const DEALER_DONE = 10009;
const DEALER_PLACED = 10008;
const MT5_NOT_FOUND = 13;
const NOT_MT5_ANSWER = "The server's answer is not the MT5 Web API's: check the address and port.";

/** The server answered, but not Toolbox's feed: a plain MT5 Web API without the plugin. */
function isMissingPlugin(error: unknown): boolean {
  if (error instanceof NativeError) return retcodeNumber((error.native as Mt5Native["error"]).retcode) === MT5_NOT_FOUND;
  return error instanceof ConnectorError && error.message === NOT_MT5_ANSWER;
}

type Params = Record<string, string | number>;
/** IMTConfirm, as `get_request_result` serves it (`Message` is the protocol server's words, absent at the vendor). */
type DealerConfirm = { Retcode: string; DealID?: string; OrderID?: string; Message?: string };
/** IMTUser as served: the account without its trade state and currency. */
type UserRecord = Omit<Mt5User, "Currency" | "Equity" | "Margin" | "MarginFree" | "MarginLevel" | "SOActivation">;
/** IMTAccount as served. */
type TradeState = Pick<Mt5User, "Login" | "Balance" | "Credit" | "Equity" | "Margin" | "MarginFree" | "MarginLevel" | "SOActivation">;

export class Mt5WebApiSession implements WireSession<Mt5Native> {
  openedAtSequence = 0;
  private closed = false;
  private authenticated = false;
  private polledTo = 0;
  private polling: Promise<void> | null = null;
  /** Set when the server has no Toolbox plugin (`/api/toolbox/*` unknown): the stream is polled from the vendor's commands. */
  private vendor: VendorEventPoller | null = null;
  private readonly inFlight = new InFlight();
  private readonly timers: SessionTimers;
  /** Groups and symbols (config.ts). */
  private readonly config = new Mt5ConfigCommands((path, params, body) => this.call(path, params, body));
  private symbolNames: string[] | null = null;
  /** Each group's currency, read once a session. */
  private readonly currencies = new Map<string, string>();

  constructor(
    private readonly transport: Mt5WebApiTransport,
    private readonly client: Client,
    private readonly handlers: WireHandlers<Mt5Event>,
  ) {
    this.timers = new SessionTimers(transport.options.clock);
    client.on("disconnect", () => this.lost());
    client.on("connectionError", () => this.lost());
  }

  private get clock(): Clock {
    return this.transport.options.clock;
  }

  async handshake(credentials: WireCredentials): Promise<void> {
    const cliRand = randomChallenge();
    const hash = passwordHash(credentials.password);
    const start = await this.raw("/api/auth/start", {
      version: this.transport.options.version ?? 4000,
      agent: this.transport.options.agent ?? "Toolbox",
      login: credentials.login,
      type: "manager",
    });
    if (retcodeNumber(start.retcode) !== 0 || typeof start.srv_rand !== "string") throw handshakeError(String(start.retcode));
    const answer = await this.raw("/api/auth/answer", { srv_rand_answer: challengeAnswer(hash, start.srv_rand), cli_rand: cliRand });
    if (retcodeNumber(answer.retcode) !== 0) throw handshakeError(String(answer.retcode));
    // Mutual authentication: a server that cannot answer our challenge does not know the password.
    if (typeof answer.cli_rand_answer !== "string" || !sameAnswer(challengeAnswer(hash, cliRand), answer.cli_rand_answer))
      throw connectorErrors.unreachable("The server did not prove it knows the manager password; it may not be the MT5 server you meant.");
    this.authenticated = true;
    await this.readZone();
    const feed = await this.feed(0, 0).catch((error: unknown) => {
      if (isMissingPlugin(error)) return null;
      throw error;
    });
    if (feed) {
      this.openedAtSequence = feed.latestSequence;
      this.polledTo = feed.latestSequence;
    } else {
      const reads: VendorReads = {
        serverNowMs: () => this.clock.now() + this.transport.timeZoneOffsetMinutes * 60_000,
        positions: () => this.openPositions(null),
        deals: async (from, to) => ((await this.call("/api/deal/get_batch", { group: "*", from, to })) as Mt5Deal[]).map(untagged),
        accounts: (logins) => this.accountsOf(logins),
        orders: () => this.pendingOrders(null),
        historyOrders: async (from, to) => (await this.call("/api/history/get_batch", { group: "*", from, to })) as Mt5Order[],
      };
      this.vendor = this.transport.vendor ??= new VendorEventPoller(reads);
      this.vendor.use(reads);
      await this.vendor.start();
      // The poller goes on from what it knew before a reconnect: no gap.
      this.openedAtSequence = this.transport.vendorSequence;
    }
    // The ping reads the zone: a daylight-saving switch inside a session is followed within ~20 s.
    this.timers.every(this.transport.options.pingIntervalMs ?? MT5_WEB_API_PING_MS, () => this.readZone());
    this.timers.every(this.transport.options.pollIntervalMs ?? MT5_WEB_API_POLL_MS, () => this.poll());
  }

  close(): void {
    this.shutDown(true);
  }

  /** The server's offset from UTC now: its zone, plus an hour while daylight saving is in force. */
  private async readZone(): Promise<void> {
    const zone = (await this.call("/api/time/get")) as { TimeZone: number; DaylightState?: number };
    this.transport.timeZoneOffsetMinutes = Number(zone.TimeZone) + (Number(zone.DaylightState ?? 0) ? 60 : 0);
  }

  /** Ends the session; `/api/quit` only while the connection is still there (a new one would be opened for it). */
  private shutDown(quit: boolean): void {
    if (this.closed) return;
    this.closed = true;
    this.timers.stop();
    if (quit && this.authenticated)
      void this.client.request({ path: "/api/quit", method: "GET" }).then(
        (r) => r.body.dump(),
        () => undefined,
      );
    void this.client.close().catch(() => undefined);
  }

  /** The connection went away under the session: the server forgot it, so the client must too. */
  private lost(): void {
    if (this.closed) return;
    const wasUp = this.authenticated;
    this.shutDown(false);
    void this.client.destroy().catch(() => undefined);
    if (wasUp) this.handlers.onClose();
  }

  async sync(waitForRequests: boolean): Promise<void> {
    if (waitForRequests) await this.inFlight.settle();
    if (!this.closed && this.inFlight.size === 0) await this.poll().catch(() => undefined);
  }

  // ---- WireSession ----

  async serverTime() {
    const answer = (await this.call("/api/time/server")) as { Time: string };
    return Number(String(answer.Time).split(" ")[0]) * 1000;
  }

  async listAccounts(after: string | null, limit: number, groupMask: string | null) {
    const logins = (await this.call("/api/user/logins", { group: groupMask ?? "*" })) as string[];
    const wanted = logins
      .map(String)
      .filter((l) => after === null || BigInt(l) > BigInt(after))
      .sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0))
      .slice(0, limit);
    return this.accountsOf(wanted);
  }

  /** The accounts of these logins, 100 a request; logins the server does not know are left out. */
  private async accountsOf(logins: readonly string[]): Promise<Mt5User[]> {
    const users: Mt5User[] = [];
    for (let i = 0; i < logins.length; i += PAGE) {
      const batch = logins.slice(i, i + PAGE).join(",");
      const records = (await this.call("/api/user/get_batch", { login: batch })) as UserRecord[];
      const states = (await this.call("/api/user/account/get_batch", { login: batch })) as TradeState[];
      const byLogin = new Map(states.map((a) => [String(a.Login), a]));
      for (const record of records) {
        const state = byLogin.get(String(record.Login));
        if (state) users.push(await this.merged(record, state));
      }
    }
    return users;
  }

  async getAccount(login: string) {
    const record = (await this.call("/api/user/get", { login })) as UserRecord;
    return this.merged(record, (await this.call("/api/user/account/get", { login })) as TradeState);
  }

  async createAccount(request: Mt5Native["newAccount"]) {
    const record = (await this.call("/api/user/add", {}, request)) as UserRecord;
    this.vendor?.touch(String(record.Login));
    return this.merged(record, (await this.call("/api/user/account/get", { login: record.Login })) as TradeState);
  }

  async updateAccount(login: string, patch: Mt5Native["accountPatch"]) {
    // The vendor's update takes rights as the whole new mask: read the current one, change the bits asked.
    const { RightsSet, RightsClear, ...fields } = patch;
    let body: Record<string, unknown> = { Login: login, ...fields };
    if (RightsSet !== undefined || RightsClear !== undefined) {
      const current = ((await this.call("/api/user/get", { login })) as UserRecord).Rights;
      body = { ...body, Rights: (current | (RightsSet ?? 0)) & ~(RightsClear ?? 0) };
    }
    const record = (await this.call("/api/user/update", { login }, body)) as UserRecord;
    this.vendor?.touch(login);
    return this.merged(record, (await this.call("/api/user/account/get", { login })) as TradeState);
  }

  /**
   * The Web API serves a user (IMTUser) and its trade state (IMTAccount) apart, and the currency
   * with the group: the connector's account is the three together.
   */
  private async merged(record: UserRecord, state: TradeState): Promise<Mt5User> {
    return {
      ...record,
      Currency: await this.currencyOf(record.Group),
      Balance: state.Balance,
      Credit: state.Credit,
      Equity: state.Equity,
      Margin: state.Margin,
      MarginFree: state.MarginFree,
      MarginLevel: state.MarginLevel,
      SOActivation: state.SOActivation,
    };
  }

  private async currencyOf(group: string): Promise<string> {
    const known = this.currencies.get(group);
    if (known) return known;
    const { Currency } = (await this.call("/api/group/get", { group })) as { Currency: string };
    this.currencies.set(group, Currency);
    return Currency;
  }

  async setPassword(login: string, password: string, kind: PasswordKind) {
    await this.call("/api/user/change_password", {}, { login, type: kind, password });
  }

  async listGroups() {
    return this.config.indexed<Mt5Native["group"]>("/api/group");
  }

  /** Plugin instances (IMTConPlugin): `total` then `next`, as other configuration; `plugin/add` replaces one by its name. */
  listPlugins = () => pluginList(this.config.indexed<Mt5Native["plugin"]>("/api/plugin"));
  updatePlugin = async (update: Mt5Native["pluginUpdate"]) => (await this.call("/api/plugin/add", {}, update)) as Mt5Native["plugin"];

  async listSymbols() {
    const symbols = await this.config.indexed<Mt5Native["symbol"]>("/api/symbol");
    this.symbolNames = symbols.map((s) => s.Symbol);
    return symbols;
  }

  readonly getGroup = (name: string) => this.config.getGroup(name);
  readonly getSymbol = (name: string) => this.config.getSymbol(name);
  readonly updateGroup = (_name: string, group: Mt5Native["group"]) => this.config.updateGroup(group);
  readonly updateSymbol = (_name: string, symbol: Mt5Native["symbol"]) => this.config.updateSymbol(symbol);

  async getQuotes(symbols: readonly string[] | null) {
    const names = symbols ?? this.symbolNames ?? (await this.listSymbols()).map((s) => s.Symbol);
    return readLastTicks((symbol) => this.call("/api/tick/last", { symbol }) as Promise<Mt5Native["quote"][]>, names);
  }

  /** Live quotes: `/api/tick/last` polled (quotes.ts), the Web API has no push. */
  quoteStream(onTicks: (ticks: readonly Mt5Native["quote"][]) => void, symbols: readonly string[] | null = null): () => void {
    return pollLastTicks(this, this.clock, onTicks, { symbols, intervalMs: this.transport.options.quotePollIntervalMs });
  }

  async openPositions(login: string | null) {
    if (login === null) return (await this.call("/api/position/get_batch", { group: "*" })) as Mt5Native["position"][];
    return this.paged<Mt5Native["position"]>("/api/position", { login });
  }

  async openPositionsOf(logins: readonly string[]) {
    return (await this.call("/api/position/get_batch", {}, { login: [...logins] })) as Mt5Native["position"][];
  }

  async history(login: string, from: number, to: number) {
    const deals = await this.paged<Mt5Deal>("/api/deal", { login, from: Math.floor(from / 1000), to: Math.ceil(to / 1000) });
    return deals.filter((d) => d.TimeMsc >= from && d.TimeMsc <= to).map(untagged);
  }

  async journal(from: number, to: number, filter: JournalFilter, limit: number) {
    const params: Params = { from, to, total: limit };
    if (filter.levels?.length) params.levels = filter.levels.join(",");
    if (filter.login) params.login = filter.login;
    if (filter.text) params.text = filter.text;
    if (this.vendor)
      throw connectorErrors.invalidRequest(
        "This MT5 server's journal is not readable through the Web API: it needs Toolbox's plugin on the trade server (docs/connectors.md).",
      );
    return (await this.call("/api/toolbox/journal", params)) as Mt5Native["journal"][];
  }

  balance(request: Mt5Native["balanceRequest"]) {
    return this.transport.money.run(request, {
      now: () => this.clock.now() + this.transport.timeZoneOffsetMinutes * 60_000,
      lookback: TAG_LOOKBACK_MS,
      deals: (login, fromSeconds, toSeconds) => this.paged<Mt5Deal>("/api/deal", { login, from: fromSeconds, to: toSeconds }),
      apply: async (params) => ((await this.call("/api/trade/balance", params)) as { ticket: string }).ticket,
      account: (login) => this.getAccount(login),
    });
  }

  placeOrder(request: Mt5DealerRequest) {
    return this.order(request);
  }

  modifyPosition(request: Mt5DealerRequest) {
    return this.order(request);
  }

  closePosition(request: Mt5DealerRequest) {
    return this.order(request);
  }

  /** Once per request id (orders.ts): looked up by its tag before it is sent. */
  private order(request: Mt5DealerRequest) {
    return this.transport.orders.run(request, {
      now: () => this.clock.now() + this.transport.timeZoneOffsetMinutes * 60_000,
      lookback: ORDER_LOOKBACK_MS,
      closedLookback: CLOSED_LOOKBACK_MS,
      deals: (login, fromSeconds, toSeconds) => this.paged<Mt5Deal>("/api/deal", { login, from: fromSeconds, to: toSeconds }),
      allDeals: async (from, to) => (await this.call("/api/deal/get_batch", { group: "*", from, to })) as Mt5Deal[],
      position: async (ticket) => ((await this.call("/api/position/get_batch", { ticket })) as Mt5Native["position"][])[0] ?? null,
      send: async (wireRequest) => String((await this.dealerOutcome(wireRequest)).DealID ?? "0"),
    });
  }

  /** Waiting orders (`/api/order`), or those gone to the history within [from, to] (`/api/history`, whole seconds); all accounts' with get_batch. */
  private async orderReads(base: string, login: string | null, params: Params = {}) {
    if (login === null) return (await this.call(`${base}/get_batch`, { group: "*", ...params })) as Mt5Order[];
    return this.paged<Mt5Order>(base, { login, ...params });
  }
  pendingOrders = (login: string | null) => this.orderReads("/api/order", login);
  orderHistory = (login: string | null, from: number, to: number) =>
    this.orderReads("/api/history", login, { from: Math.floor(from / 1000), to: Math.ceil(to / 1000) });
  placePendingOrder = (request: Mt5PendingRequest) => this.pending(request);
  modifyPendingOrder = (request: Mt5PendingRequest) => this.pending(request);
  cancelPendingOrder = (request: Mt5PendingRequest) => this.pending(request);

  /** Once per request id (pending.ts): looked up in the account's orders and order history before it is sent. */
  private pending(request: Mt5PendingRequest) {
    return this.transport.orders.runPending(request, {
      now: () => this.clock.now() + this.transport.timeZoneOffsetMinutes * 60_000,
      lookback: ORDER_LOOKBACK_MS,
      openOrders: (login) => this.paged<Mt5Order>("/api/order", { login }),
      historyOrders: (login, from, to) => this.paged<Mt5Order>("/api/history", { login, from, to }),
      order: (ticket) => this.found<Mt5Order>("/api/order/get", { ticket }),
      historyOrder: (ticket) => this.found<Mt5Order>("/api/history/get", { ticket }),
      send: async (wireRequest) => (await this.dealerOutcome(wireRequest)).OrderID ?? "0",
    });
  }

  /** One record, or null where the server answers 13 Not found. */
  private async found<T>(path: string, params: Params): Promise<T | null> {
    try {
      return (await this.call(path, params)) as T;
    } catch (error) {
      if (error instanceof NativeError && retcodeNumber((error.native as Mt5Native["error"]).retcode) === MT5_NOT_FOUND) return null;
      throw error;
    }
  }

  async eventsSince(sequence: number, limit: number): Promise<PacketBatch<Mt5Event>> {
    // Polled events cannot be read again: before the last gap is lost, after it nothing is missing.
    if (this.vendor) return { packets: [], complete: sequence >= this.transport.vendorGapAt, latestSequence: this.transport.vendorGapAt };
    return this.feed(sequence, limit);
  }

  // ---- helpers ----

  /**
   * A dealer request: sent, then its result (IMTConfirm) read back under the server's own request
   * number: done (10009) or placed (10008); anything else is the server's refusal. orders.ts and
   * pending.ts read the rest from the deal or the order it made.
   */
  private async dealerOutcome(request: Mt5WireRequest | Omit<Mt5PendingRequest, "RequestId">): Promise<DealerConfirm> {
    const { ID } = (await this.call("/api/dealer/send_request", {}, request)) as { ID: string };
    const [outcome] = (await this.call("/api/dealer/get_request_result", { id: ID })) as { result: DealerConfirm }[];
    if (!outcome) throw connectorErrors.unreachable("The trading server lost the result of a dealer request.");
    const code = retcodeNumber(outcome.result.Retcode);
    if (code !== DEALER_DONE && code !== DEALER_PLACED) throw new NativeError({ retcode: outcome.result.Retcode, message: outcome.result.Message ?? "" });
    return outcome.result;
  }

  private async feed(after: number, total: number): Promise<PacketBatch<Mt5Event>> {
    const answer = (await this.call("/api/toolbox/events", { after, total })) as {
      Events: { Sequence: number; Event: Mt5Event }[];
      Complete: number;
      Latest: number;
    };
    return {
      packets: answer.Events.map((e) => ({ sequence: e.Sequence, event: untaggedEvent(e.Event) })),
      complete: Number(answer.Complete) === 1,
      latestSequence: answer.Latest,
    };
  }

  /** Reads the event feed from where the last read stopped and hands the packets on. */
  private poll(): Promise<void> {
    if (this.vendor) return this.pollVendor(this.vendor);
    this.polling ??= (async () => {
      try {
        for (;;) {
          if (this.closed) return;
          const batch = await this.feed(this.polledTo, EVENT_BATCH);
          for (const packet of batch.packets) {
            if (packet.sequence <= this.polledTo) continue;
            this.polledTo = packet.sequence;
            if (!this.closed) this.handlers.onPacket(packet);
          }
          if (!batch.complete && batch.packets.length === 0) this.polledTo = batch.latestSequence;
          if (batch.packets.length < EVENT_BATCH) return;
        }
      } finally {
        this.polling = null;
      }
    })();
    return this.polling;
  }

  /** One poll of the vendor's commands, as one event; a gap skips a number, so the ingest resyncs. */
  private pollVendor(vendor: VendorEventPoller): Promise<void> {
    this.polling ??= (async () => {
      try {
        const { event, gap } = await vendor.poll();
        if (this.closed || (!event && !gap)) return;
        if (gap) this.transport.vendorGapAt = ++this.transport.vendorSequence;
        this.handlers.onPacket({ sequence: ++this.transport.vendorSequence, event: event ?? { TimeMsc: this.clock.now(), Items: [] } });
      } finally {
        this.polling = null;
      }
    })();
    return this.polling;
  }

  /** `get_total` then `get_page`, at most 100 a page. */
  private async paged<T>(base: string, params: Params): Promise<T[]> {
    const { Total } = (await this.call(`${base}/get_total`, params)) as { Total: string | number };
    const total = Number(Total);
    const items: T[] = [];
    for (let offset = 0; offset < total; offset += PAGE) items.push(...((await this.call(`${base}/get_page`, { ...params, offset, total: PAGE })) as T[]));
    return items;
  }

  /** A command on the authenticated connection; the answer's `answer`, or a NativeError with its retcode. */
  private async call(path: string, params: Params = {}, body?: unknown): Promise<unknown> {
    if (this.closed) throw new LinkError("closed");
    const envelope = await this.raw(path, params, body);
    const retcode = String(envelope.retcode);
    if (retcodeNumber(retcode) !== 0) throw new NativeError({ retcode, message: typeof envelope.message === "string" ? envelope.message : "" });
    return envelope.answer;
  }

  private raw(path: string, params: Params, body?: unknown): Promise<Record<string, unknown>> {
    const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();
    return this.inFlight.track(
      requestJson(
        this.client,
        {
          path: query ? `${path}?${query}` : path,
          method: body === undefined ? "GET" : "POST",
          headers: body === undefined ? {} : { "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        },
        {
          established: () => this.authenticated,
          // The server no longer knows this connection's session.
          sessionGoneStatus: 403,
          onSessionGone: () => this.lost(),
          parse: readJson,
          isAnswer: (parsed): parsed is Record<string, unknown> => typeof parsed === "object" && parsed !== null && "retcode" in parsed,
          notTheVendor: NOT_MT5_ANSWER,
        },
      ),
    );
  }
}
