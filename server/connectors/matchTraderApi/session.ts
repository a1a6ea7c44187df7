/**
 * One idea: one connection to a Match-Trader Broker API server as a WireSession: REST for requests, the
 * gRPC feed for live events. Native shapes in and out (server/connectors/matchTrader/native.ts),
 * so the Match-Trader codec does every conversion, as for the simulated server.
 *
 * The vendor has no operation id for money or orders. Money carries its id as a tag in its
 * comment (`[tb:<id>]`), looked up before it is sent and again when its answer is lost (here).
 * Orders carry nothing (the vendor's order bodies have no comment): orders.ts writes each one down
 * before sending it and recognises what it made; pending orders the same way (pendingOrders.ts).
 * Answers are remembered per id for the connector's lifetime (exactlyOnce.ts).
 */
import type * as grpc from "@grpc/grpc-js";
import type { JournalFilter, PasswordKind } from "../../../core/trading/index.ts";
import type {
  MatchTraderNative,
  MtClosedPosition,
  MtEvent,
  MtLedger,
  MtLedgerRequest,
  MtLedgerResult,
  MtPosition,
  MtTradingAccount,
} from "../matchTrader/native.ts";
import { connectorErrors } from "../errors.ts";
import { LinkError, NativeError, type PacketBatch, type WireSession } from "../wire/wire.ts";
import type { FeedBatch } from "./feed.ts";
import type { RestClient } from "./rest.ts";
import { operationTag } from "../operationOnce.ts";
import { alreadyUsed, cleanEvents, cleanPosition, tag, tagOf, type ExactlyOnce } from "./exactlyOnce.ts";
import type { OrderJournal } from "./orderJournal.ts";
import { EPOCH, FAR, LOST_ANSWER_RETRIES, MatchTraderOrders, type OrderLink } from "./orders.ts";
import { MatchTraderPendingOrders } from "./pendingOrders.ts";

/** Accounts listed per page when every login is needed; logins per bulk read of positions. */
const ACCOUNTS_PER_PAGE = 1000;
const LOGINS_PER_READ = 500;

export interface FeedClient {
  since(fromSequence: number, limit: number): Promise<FeedBatch>;
}

export interface SessionParts {
  rest: RestClient;
  feed: FeedClient;
  stream: grpc.ClientReadableStream<unknown>;
  openedAtSequence: number;
  systemUuid: string;
  gatewayUuid: string;
  exactlyOnce: ExactlyOnce;
  /** What the connector writes down before an order is sent (orderJournal.ts). */
  journal: OrderJournal;
  /** Order requests under way per account, one after the other. */
  accountQueues: Map<string, Promise<unknown>>;
  /** Where each known position lives (the vendor's close and edit calls name the account and instrument). */
  positions: Map<string, { login: string; instrument: string }>;
  /** Releases the session's HTTP and gRPC connections. */
  onClose: () => void;
  /** Live quotes: the vendor's gRPC quotations stream (quotes.ts). */
  quotes?: (onTicks: (ticks: readonly MatchTraderNative["quote"][]) => void, symbols: readonly string[] | null) => () => void;
}

export class MatchTraderApiSession implements WireSession<MatchTraderNative> {
  readonly openedAtSequence: number;
  private closed = false;

  private readonly orders: MatchTraderOrders;
  private readonly pending: MatchTraderPendingOrders;

  constructor(private readonly parts: SessionParts) {
    this.openedAtSequence = parts.openedAtSequence;
    const link: OrderLink = {
      get: (path, query) => this.get(path, query),
      post: (path, body) => this.post(path, body),
      serverTime: () => this.serverTime(),
      getQuotes: (symbols) => this.getQuotes(symbols),
      listSymbols: () => this.listSymbols(),
      openPositions: (login) => this.openPositions(login),
      allLogins: () => this.allLogins(),
      closed: () => this.closed,
    };
    this.orders = new MatchTraderOrders(link, parts);
    this.pending = new MatchTraderPendingOrders(link, parts);
  }

  private get system() {
    return { systemUuid: this.parts.systemUuid };
  }

  private async get<T>(path: string, query: Record<string, string | null | undefined> = {}): Promise<T> {
    return (await this.request<T>("GET", path, { query: { ...this.system, ...query } })).body;
  }

  private request<T>(method: string, path: string, input: { query?: Record<string, string | null | undefined>; body?: unknown }) {
    if (this.closed) return Promise.reject(new LinkError("closed"));
    return this.parts.rest.call<T>(method, path, input);
  }

  private post<T>(path: string, body: object) {
    return this.request<T>("POST", path, { body: { ...this.system, ...body } });
  }

  /** Notes where each position lives, and gives those Toolbox opened their request's tag (`Position.tag`). */
  private async remember(positions: MtPosition[]): Promise<MtPosition[]> {
    for (const p of positions) this.parts.positions.set(p.id, { login: p.login, instrument: p.instrument });
    const openedBy = await this.parts.journal.openedBy(positions.map((p) => p.id));
    return positions.map((p) => {
      const requestId = openedBy.get(p.id);
      return requestId === undefined ? p : { ...p, tag: operationTag(requestId) };
    });
  }

  async serverTime() {
    return (await this.get<{ serverTime: string }>("/service-info")).serverTime;
  }

  async listAccounts(after: string | null, limit: number, groupMask: string | null) {
    return (await this.get<{ content: MtTradingAccount[] }>("/v1/trading-accounts", { size: String(limit), afterLogin: after, groupMask, sort: "login,asc" }))
      .content;
  }

  getAccount(login: string) {
    return this.get<MtTradingAccount>("/v1/trading-account", { login });
  }

  async createAccount(request: MatchTraderNative["newAccount"]) {
    return (await this.post<MtTradingAccount>("/v1/trading-accounts", request)).body;
  }

  async updateAccount(login: string, patch: MatchTraderNative["accountPatch"]) {
    return (await this.request<MtTradingAccount>("PATCH", "/v1/trading-account", { query: { ...this.system, login }, body: patch })).body;
  }

  async setPassword(login: string, password: string, kind: PasswordKind) {
    await this.request("PUT", "/v1/trading-account/password", { query: { ...this.system, login }, body: { password, kind } });
  }

  listGroups() {
    return this.get<MatchTraderNative["group"][]>("/v1/groups");
  }

  listSymbols() {
    return this.get<MatchTraderNative["symbol"][]>("/v1/symbols");
  }

  /** A group is written with its offer (the default leverage is the offer's): docs/connectors.md, "Configuration writes". */
  async updateGroup(name: string, group: MatchTraderNative["group"]) {
    return (await this.request<MatchTraderNative["group"]>("PUT", "/v1/groups", { query: { ...this.system, name }, body: group })).body;
  }

  async updateSymbol(name: string, symbol: MatchTraderNative["symbol"]) {
    return (await this.request<MatchTraderNative["symbol"]>("PUT", "/v1/symbols", { query: { ...this.system, symbol: name }, body: symbol })).body;
  }

  quoteStream(onTicks: (ticks: readonly MatchTraderNative["quote"][]) => void, symbols: readonly string[] | null = null): () => void {
    return this.closed || !this.parts.quotes ? () => undefined : this.parts.quotes(onTicks, symbols);
  }

  getQuotes(symbols: readonly string[] | null) {
    return this.get<MatchTraderNative["quote"][]>("/v1/quotations", { symbols: symbols ? symbols.join(",") : null });
  }

  /** One account's positions; all accounts' through the bulk read, by their logins (the vendor's per-account read needs a login). */
  async openPositions(login: string | null) {
    if (login === null) return this.openPositionsOf(await this.allLogins());
    return this.remember((await this.get<{ positions: MtPosition[] }>("/v1/trading-accounts/trading-data/open-positions", { login })).positions);
  }

  async openPositionsOf(logins: readonly string[]) {
    const positions: MtPosition[] = [];
    for (let at = 0; at < logins.length; at += LOGINS_PER_READ) {
      const chunk = logins.slice(at, at + LOGINS_PER_READ);
      const answer = await this.post<{ positions: MtPosition[] }>("/v1/trading-accounts/trading-data/open-positions-by-logins-or-groups", {
        logins: chunk,
        groups: [],
      });
      positions.push(...answer.body.positions);
    }
    return this.remember(positions);
  }

  /** Every account's login, page by page. */
  async allLogins(): Promise<string[]> {
    const logins: string[] = [];
    for (let after: string | null = null; ;) {
      const page = await this.listAccounts(after, ACCOUNTS_PER_PAGE, null);
      for (const account of page) logins.push(account.login);
      if (page.length < ACCOUNTS_PER_PAGE) return logins;
      after = page.at(-1)!.login;
    }
  }

  private async ledgers(login: string, from: string, to: string, types?: string) {
    return (await this.get<{ ledgers: MtLedger[] }>("/v1/trading-accounts/trading-data/ledgers", { login, from, to, types })).ledgers;
  }

  async history(login: string, from: string, to: string) {
    const [closed, ledgers] = await Promise.all([
      this.get<{ closedPositions: MtClosedPosition[] }>("/v1/trading-accounts/trading-data/closed-positions", { login, from, to }),
      this.ledgers(login, from, to),
    ]);
    const openedBy = await this.parts.journal.openedBy(closed.closedPositions.map((c) => c.positionId));
    const tagged = closed.closedPositions.map((c) => {
      const requestId = openedBy.get(c.positionId);
      return requestId === undefined ? c : { ...c, tag: operationTag(requestId) };
    });
    return [...tagged, ...ledgers.map(cleanPosition)];
  }

  async journal(from: string, to: string, filter: JournalFilter, limit: number) {
    const answer = await this.get<{ entries: MatchTraderNative["journal"][] }>("/v1/journal", {
      from,
      to,
      levels: filter.levels?.join(","),
      login: filter.login,
      text: filter.text,
      limit: String(limit),
    });
    return answer.entries;
  }

  /** Exactly once: the tag is looked up first, and again whenever the answer is lost. */
  balance(request: MtLedgerRequest): Promise<MtLedgerResult> {
    const fingerprint = JSON.stringify([request.login, request.type, request.amount]);
    return this.parts.exactlyOnce.run(request.requestId, fingerprint, async () => {
      for (let attempt = 0; ; attempt++) {
        const found = await this.findLedger(request);
        if (found) return this.ledgerResult(request, found);
        const path = { DEPOSIT: "/v1/deposits/manual", WITHDRAWAL: "/v1/withdrawals/manual", CREDIT_IN: "/v1/credit/in", CREDIT_OUT: "/v1/credit/out" }[
          request.type
        ];
        const gateway = request.type === "DEPOSIT" || request.type === "WITHDRAWAL" ? { paymentGatewayUuid: this.parts.gatewayUuid } : {};
        try {
          await this.post(path, { login: request.login, amount: request.amount, comment: tag(request.comment, request.requestId), ...gateway });
        } catch (error) {
          // No answer: it may have landed. Look again before sending it again.
          if (error instanceof LinkError && !this.closed && attempt < LOST_ANSWER_RETRIES) continue;
          throw error;
        }
        const landed = await this.findLedger(request);
        if (!landed)
          throw new NativeError({
            status: 500,
            errorCode: "REJECTED",
            message: "The trading server accepted the operation but does not show it in the account's history.",
          });
        return this.ledgerResult(request, landed);
      }
    });
  }

  private async findLedger(request: MtLedgerRequest): Promise<MtLedger | null> {
    // Every ledger of the account (an id may come back after any time); a different type under the same id is checked below.
    const ledgers = await this.ledgers(request.login, EPOCH, FAR);
    const found = ledgers.find((l) => tagOf(l.comment) === request.requestId) ?? null;
    if (found && (found.type !== request.type || Number(found.amount) !== Number(request.amount))) throw alreadyUsed(request.requestId);
    return found;
  }

  private async ledgerResult(request: MtLedgerRequest, ledger: MtLedger): Promise<MtLedgerResult> {
    const account = await this.getAccount(request.login);
    return { ...request, comment: "", ledgerId: ledger.id, time: ledger.time, balance: account.balance, credit: account.credit };
  }

  placeOrder(request: MatchTraderNative["orderRequest"]) {
    return this.orders.placeOrder(request);
  }

  modifyPosition(request: MatchTraderNative["modifyRequest"]) {
    return this.orders.modifyPosition(request);
  }

  closePosition(request: MatchTraderNative["closeRequest"]) {
    return this.orders.closePosition(request);
  }

  pendingOrders(login: string | null) {
    return this.pending.pendingOrders(login);
  }

  orderHistory(login: string | null, from: string, to: string) {
    return this.pending.orderHistory(login, from, to);
  }

  placePendingOrder(request: MatchTraderNative["placePendingRequest"]) {
    return this.pending.placePendingOrder(request);
  }

  /** The Broker API has no call that changes a pending order (only create and cancel): refused before anything is sent. */
  modifyPendingOrder(_request: MatchTraderNative["modifyPendingRequest"]): Promise<never> {
    return Promise.reject(connectorErrors.notSupported("Changing a pending order (the Match-Trader Broker API has no such call: cancel it and place another)"));
  }

  cancelPendingOrder(request: MatchTraderNative["cancelPendingRequest"]) {
    return this.pending.cancelPendingOrder(request);
  }

  /** The Broker API has no server plugins (docs/connectors.md, "Plugins"): refused before anything is sent. */
  listPlugins(): Promise<never> {
    return Promise.reject(connectorErrors.noPlugins("MatchTrader"));
  }

  updatePlugin(_update: never): Promise<never> {
    return Promise.reject(connectorErrors.noPlugins("MatchTrader"));
  }

  async eventsSince(sequence: number, limit: number): Promise<PacketBatch<MtEvent[]>> {
    if (this.closed) throw new LinkError("closed");
    const batch = await this.parts.feed.since(sequence, limit);
    return {
      packets: batch.messages.map((m) => ({ sequence: m.sequence, event: cleanEvents(m.events) })),
      complete: batch.complete,
      latestSequence: batch.latestSequence,
    };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.parts.stream.cancel();
    this.parts.onClose();
  }
}
