/**
 * One idea: one connection to a Match-Trader Broker API server as a WireSession: REST for requests, the
 * gRPC feed for live events. Native shapes in and out (server/connectors/matchTrader/native.ts),
 * so the Match-Trader codec does every conversion, as for the simulated server.
 *
 * The vendor has no operation id for money or orders. Money carries its id as a tag in its
 * comment (`[tb:<id>]`), looked up before it is sent and again when its answer is lost. Orders
 * carry nothing (the vendor's order bodies have no comment), so the connector writes each one
 * down before sending it, with what the account held then (orderJournal.ts), and recognises the
 * new position or closing that fits it. Answers are remembered per id for the connector's lifetime
 * (exactlyOnce.ts); this file holds the vendor's calls and the lookups.
 */
import type * as grpc from "@grpc/grpc-js";
import type { JournalFilter, PasswordKind } from "../../../core/trading/index.ts";
import type {
  MatchTraderNative,
  MtClosedPosition,
  MtError,
  MtEvent,
  MtLedger,
  MtLedgerRequest,
  MtLedgerResult,
  MtOperationResult,
  MtPosition,
  MtTradingAccount,
} from "../matchTrader/native.ts";
import { connectorErrors } from "../errors.ts";
import { LinkError, NativeError, type PacketBatch, type WireSession } from "../wire/wire.ts";
import type { FeedBatch } from "./feed.ts";
import type { RestClient } from "./rest.ts";
import { operationTag } from "../operationOnce.ts";
import { alreadyUsed, cleanEvents, cleanPosition, tag, tagOf, type ExactlyOnce } from "./exactlyOnce.ts";
import type { OrderIntent, OrderJournal } from "./orderJournal.ts";

const EPOCH = "1970-01-01T00:00:00.000Z";
const FAR = "2999-12-31T23:59:59.999Z";
const LOST_ANSWER_RETRIES = 3;

/** Closings the server makes on its own: never taken for a close Toolbox asked for. */
const SERVER_CLOSES = new Set<string>(["STOP_LOSS", "TAKE_PROFIT", "STOP_OUT"]);

function readBackFailed() {
  return new NativeError<MtError>({
    status: 500,
    errorCode: "REJECTED",
    message: "The trading server accepted the order but does not show what it filled.",
  });
}

function notOpen(positionId: string) {
  return new NativeError<MtError>({ status: 404, errorCode: "NOT_FOUND", message: `Position ${positionId} is not open.` });
}

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

  constructor(private readonly parts: SessionParts) {
    this.openedAtSequence = parts.openedAtSequence;
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

  quoteStream(onTicks: (ticks: readonly MatchTraderNative["quote"][]) => void, symbols: readonly string[] | null = null): () => void {
    return this.closed || !this.parts.quotes ? () => undefined : this.parts.quotes(onTicks, symbols);
  }

  getQuotes(symbols: readonly string[] | null) {
    return this.get<MatchTraderNative["quote"][]>("/v1/quotations", { symbols: symbols ? symbols.join(",") : null });
  }

  async openPositions(login: string | null) {
    return this.remember((await this.get<{ positions: MtPosition[] }>("/v1/trading-accounts/trading-data/open-positions", { login })).positions);
  }

  async openPositionsOf(logins: readonly string[]) {
    const answer = await this.post<{ positions: MtPosition[] }>("/v1/trading-accounts/trading-data/open-positions-by-logins-or-groups", { logins, groups: [] });
    return this.remember(answer.body.positions);
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

  /**
   * A trading call's answer: HTTP 200 with status OK or REJECTED (always check the body), and the
   * vendor's `orderId`; what was filled is read back from the account, as the vendor answers no more.
   */
  private async trade(path: string, body: object): Promise<string | null> {
    const answer = await this.post<{ status: string; orderId?: string | null; errorCode?: string; message?: string }>(path, body);
    const result = answer.body;
    if (result.status !== "OK")
      throw new NativeError({ status: 422, errorCode: result.errorCode ?? "REJECTED", message: result.message ?? "The trading server rejected the order." });
    return result.orderId ?? null;
  }

  /** One order request at a time per account: a new position or closing is then only this request's, among Toolbox's. */
  private serialized<T>(login: string, run: () => Promise<T>): Promise<T> {
    const previous = this.parts.accountQueues.get(login) ?? Promise.resolve();
    const next = previous.then(run, run);
    const tail = next.then(
      () => undefined,
      () => undefined,
    );
    this.parts.accountQueues.set(login, tail);
    void tail.then(() => {
      if (this.parts.accountQueues.get(login) === tail) this.parts.accountQueues.delete(login);
    });
    return next;
  }

  /**
   * Runs an order through the memo (concurrent and repeated calls in this process) and the journal
   * (a process that died): a request the journal already answered gets that answer or refusal; one
   * it holds without an answer is looked up before it is sent again.
   */
  private once(
    requestId: string,
    fingerprint: string,
    login: string,
    perform: (known: OrderIntent | null) => Promise<MtOperationResult>,
  ): Promise<MtOperationResult> {
    return this.parts.exactlyOnce.run(
      requestId,
      fingerprint,
      () =>
        this.serialized(login, async () => {
          const known = await this.parts.journal.get(requestId);
          if (known) {
            if (known.fingerprint !== fingerprint) throw alreadyUsed(requestId);
            if (known.result) return known.result;
            if (known.refusal) throw new NativeError<MtError>(known.refusal);
          }
          return perform(known);
        }),
      { keepFailures: true },
    );
  }

  /** Writes a refusal by the server down with its intent, so a restarted connector answers it the same. */
  private async refused(intent: OrderIntent, error: unknown): Promise<never> {
    if (error instanceof NativeError && [400, 404, 409, 422].includes((error.native as MtError).status))
      await this.parts.journal.put({ ...intent, refusal: error.native as MtError });
    throw error;
  }

  /**
   * Exactly once per request id: before the order is sent, the account's open positions and the
   * server time are written down (OrderJournal); after a lost answer, a position that was not open
   * then, opened since with this instrument, side and volume and not another request's, is this
   * one's (open still, or already closed, e.g. by its stop loss). The open body is the vendor's:
   * no comment, so the comment asked for is not kept by the server.
   */
  placeOrder(request: MatchTraderNative["orderRequest"]) {
    const { requestId, comment: _comment, reason: _reason, ...rest } = request;
    return this.once(requestId, JSON.stringify(rest), request.login, async (known) => {
      if (!known) await this.checkDeviation(request);
      const intent: OrderIntent = known ?? {
        requestId,
        fingerprint: JSON.stringify(rest),
        kind: "open",
        login: request.login,
        instrument: request.instrument,
        startedAt: await this.serverTime(),
        before: (await this.accountPositions(request.login)).map((p) => p.id),
      };
      if (known) {
        const found = await this.findOpened(request, intent);
        if (found) return this.answered(intent, found);
      } else await this.parts.journal.put(intent);
      const body = {
        login: request.login,
        instrument: request.instrument,
        orderSide: request.side,
        volume: request.volume,
        slPrice: request.stopLoss,
        tpPrice: request.takeProfit,
      };
      for (let attempt = 0; ; attempt++) {
        try {
          const orderId = await this.trade("/v1/trading-accounts/positions/open", body);
          const found = await this.findOpened(request, intent, orderId);
          if (!found) throw readBackFailed();
          return await this.answered(intent, found);
        } catch (error) {
          // No answer: the position may be open (or already closed) now; look again before sending again.
          if (!(error instanceof LinkError) || this.closed || attempt >= LOST_ANSWER_RETRIES) return this.refused(intent, error);
          const found = await this.findOpened(request, intent);
          if (found) return this.answered(intent, found);
        }
      }
    });
  }

  /**
   * The vendor's open body has no expected price or slippage: the order fills at the server's
   * price. With both asked for, the connector compares the price quoted now and refuses the order
   * before sending it when it is further off than allowed (the fill itself may still move by the
   * time the server runs it: docs/connectors.md, "Orders exactly once", Match-Trader).
   */
  private async checkDeviation(request: MatchTraderNative["orderRequest"]): Promise<void> {
    if (request.expectedPrice === null || request.slippage === null) return;
    const [quote] = await this.getQuotes([request.instrument]);
    const symbol = (await this.listSymbols()).find((s) => s.symbol === request.instrument);
    if (!quote || !symbol) return;
    const price = request.side === "BUY" ? quote.ask : quote.bid;
    const points = Math.round(Math.abs(price - request.expectedPrice) * 10 ** symbol.pricePrecision);
    if (points > request.slippage)
      throw new NativeError<MtError>({
        status: 422,
        errorCode: "PRICE_CHANGED",
        message: `The price of ${request.instrument} is ${price}, ${points} points from ${request.expectedPrice} (at most ${request.slippage} allowed); the order was not sent.`,
      });
  }

  private async answered(intent: OrderIntent, result: MtOperationResult): Promise<MtOperationResult> {
    await this.parts.journal.put({ ...intent, result });
    return result;
  }

  private async accountPositions(login: string): Promise<MtPosition[]> {
    return (await this.get<{ positions: MtPosition[] }>("/v1/trading-accounts/trading-data/open-positions", { login })).positions;
  }

  /**
   * The position this open made: the one the answer names (`orderId`), or else the oldest one that
   * was not open when the request began, opened since with the request's instrument, side and
   * volume, and not opened by another request the journal knows; open, or closed since (its
   * closings then add up to the volume).
   */
  private async findOpened(request: MatchTraderNative["orderRequest"], intent: OrderIntent, orderId: string | null = null): Promise<MtOperationResult | null> {
    const open = await this.accountPositions(request.login);
    const closings = await this.closings(request.login);
    const before = new Set(intent.before);
    const candidates = new Map<string, { first: MtPosition | MtClosedPosition; volume: number }>();
    const add = (positionId: string, part: MtPosition | MtClosedPosition) => {
      const known = candidates.get(positionId);
      if (known) known.volume += part.volume;
      else candidates.set(positionId, { first: part, volume: part.volume });
    };
    for (const p of open) if (!before.has(p.id)) add(p.id, p);
    for (const c of closings) if (!before.has(c.positionId)) add(c.positionId, c);
    const claimed = await this.parts.journal.openedBy([...candidates.keys()]);
    const fits = ([positionId, { first, volume }]: [string, { first: MtPosition | MtClosedPosition; volume: number }]) =>
      first.openTime >= intent.startedAt &&
      first.instrument === request.instrument &&
      first.side === request.side &&
      Math.abs(volume - request.volume) < 1e-9 &&
      (claimed.get(positionId) ?? request.requestId) === request.requestId;
    // The answer's orderId names the position on servers where the two coincide; otherwise the fit decides.
    const named = orderId === null ? undefined : [...candidates].find(([positionId]) => positionId === orderId);
    const mine = named ?? [...candidates].filter(fits).sort((a, b) => a[1].first.openTime.localeCompare(b[1].first.openTime))[0];
    if (!mine) return null;
    const [positionId, { first, volume }] = mine;
    this.parts.positions.set(positionId, { login: first.login, instrument: first.instrument });
    return {
      requestId: request.requestId,
      operation: "OPEN",
      positionId,
      closeId: null,
      price: first.openPrice,
      volume: Number(volume.toFixed(2)),
      time: first.openTime,
    };
  }

  /** Every closing of an account, oldest first (a position closed in parts has several). */
  private async closings(login: string): Promise<MtClosedPosition[]> {
    const answer = await this.get<{ closedPositions: MtClosedPosition[] }>("/v1/trading-accounts/trading-data/closed-positions", {
      login,
      from: EPOCH,
      to: FAR,
    });
    return answer.closedPositions.sort((a, b) => a.closeTime.localeCompare(b.closeTime));
  }

  private async whereIs(positionId: string) {
    const known = this.parts.positions.get(positionId);
    if (known) return known;
    await this.openPositions(null);
    const found = this.parts.positions.get(positionId);
    if (!found) throw notOpen(positionId);
    return found;
  }

  /** The position as it is now: open (with its stops and volume), or null when it is no longer open. */
  private async current(login: string, positionId: string): Promise<MtPosition | null> {
    return (await this.accountPositions(login)).find((p) => p.id === positionId) ?? null;
  }

  /**
   * Exactly once: a change of stops that is already in place (a retry, a lost answer, a fresh
   * connector) is recognised from the position's state and not sent again; a position no longer
   * open is not found.
   */
  modifyPosition(request: MatchTraderNative["modifyRequest"]) {
    const { requestId, ...rest } = request;
    return this.parts.exactlyOnce.run(
      requestId,
      JSON.stringify(rest),
      async () => {
        const where = await this.whereIs(request.positionId);
        for (let attempt = 0; ; attempt++) {
          const position = await this.current(where.login, request.positionId);
          if (!position) throw notOpen(request.positionId);
          if (position.stopLoss === request.stopLoss && position.takeProfit === request.takeProfit)
            return {
              requestId,
              operation: "EDIT" as const,
              positionId: position.id,
              closeId: null,
              price: position.currentPrice,
              volume: position.volume,
              time: await this.serverTime(),
            };
          try {
            await this.trade("/v1/trading-accounts/positions/edit", {
              login: where.login,
              id: request.positionId,
              slPrice: request.stopLoss,
              tpPrice: request.takeProfit,
            });
          } catch (error) {
            if (!(error instanceof LinkError) || this.closed || attempt >= LOST_ANSWER_RETRIES) throw error;
          }
        }
      },
      { keepFailures: true },
    );
  }

  /**
   * Exactly once: the position's closings are written down (OrderJournal) before the close is
   * sent; the closing this request made is the new one (a full close: the position is gone; a
   * partial one: of the volume asked), found after the answer, after a lost answer, and by a
   * connector started afresh with the same journal. A close already done is never sent again.
   */
  closePosition(request: MatchTraderNative["closeRequest"]) {
    const { requestId, comment: _comment, reason: _reason, ...rest } = request;
    const fingerprint = JSON.stringify(rest);
    return this.parts.journal.get(requestId).then(async (earlier) => {
      const where = earlier ? { login: earlier.login, instrument: earlier.instrument } : await this.whereIs(request.positionId);
      return this.once(requestId, fingerprint, where.login, async (known) => {
        const intent: OrderIntent = known ?? {
          requestId,
          fingerprint,
          kind: "close",
          login: where.login,
          instrument: where.instrument,
          startedAt: await this.serverTime(),
          before: (await this.closings(where.login)).filter((c) => c.positionId === request.positionId).map((c) => c.id),
        };
        if (known) {
          const done = await this.findClosing(request, intent);
          if (done) return this.answered(intent, done);
        } else {
          if (!(await this.current(where.login, request.positionId)))
            return this.findClosing(request, intent).then((done) => done ?? Promise.reject(notOpen(request.positionId)));
          await this.parts.journal.put(intent);
        }
        for (let attempt = 0; ; attempt++) {
          try {
            if (request.volume === null)
              await this.trade("/v1/trading-accounts/positions/close", {
                login: where.login,
                closePositions: [{ positionId: request.positionId, instrument: where.instrument }],
              });
            else
              await this.trade("/v1/trading-accounts/positions/close-partially", {
                login: where.login,
                positionId: request.positionId,
                instrument: where.instrument,
                volume: request.volume,
              });
            const done = await this.findClosing(request, intent);
            if (!done) throw readBackFailed();
            return await this.answered(intent, done);
          } catch (error) {
            if (!(error instanceof LinkError) || this.closed || attempt >= LOST_ANSWER_RETRIES) return this.refused(intent, error);
            const done = await this.findClosing(request, intent);
            if (done) return this.answered(intent, done);
          }
        }
      });
    });
  }

  /**
   * The closing this request made, if any: one of the position that the journal's record of the
   * request does not hold (a full close: the position is gone; a partial one: of the volume asked).
   * A closing older than the request is someone else's, and the server's own (stop loss, take
   * profit, stop out) is never taken for it: then the position is not open. Null while the
   * position is open and no such closing exists (the request has not been carried out).
   */
  private async findClosing(request: MatchTraderNative["closeRequest"], intent: OrderIntent): Promise<MtOperationResult | null> {
    const position = await this.current(intent.login, request.positionId);
    const before = new Set(intent.before);
    const closings = (await this.closings(intent.login)).filter((c) => c.positionId === request.positionId && !before.has(c.id));
    const volume = request.volume;
    const made = closings.find((c) => !SERVER_CLOSES.has(c.closeReason) && (volume === null ? !position : Math.abs(c.volume - volume) < 1e-9));
    if (made)
      return {
        requestId: request.requestId,
        operation: "CLOSE",
        positionId: made.positionId,
        closeId: made.id,
        price: made.closePrice,
        volume: made.volume,
        time: made.closeTime,
      };
    if (position) return null;
    const byServer = closings.find((c) => SERVER_CLOSES.has(c.closeReason));
    if (byServer)
      throw new NativeError<MtError>({
        status: 404,
        errorCode: "NOT_FOUND",
        message: `Position ${request.positionId} is no longer open: the server closed it (${byServer.closeReason.toLowerCase().replace("_", " ")}) at ${byServer.closeTime}.`,
      });
    throw notOpen(request.positionId);
  }

  // Pending orders: not carried by this connector yet (the vendor connectors' work); refused before anything is sent.
  pendingOrders(_login: string | null): Promise<never> {
    return Promise.reject(connectorErrors.notSupported("Reading pending orders"));
  }

  placePendingOrder(_request: unknown): Promise<never> {
    return Promise.reject(connectorErrors.notSupported("Placing a pending order"));
  }

  modifyPendingOrder(_request: unknown): Promise<never> {
    return Promise.reject(connectorErrors.notSupported("Changing a pending order"));
  }

  cancelPendingOrder(_request: unknown): Promise<never> {
    return Promise.reject(connectorErrors.notSupported("Cancelling a pending order"));
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
