/**
 * One idea: one connection to a Match-Trader Broker API server as a WireSession: REST for requests, the
 * gRPC feed for live events. Native shapes in and out (server/connectors/matchTrader/native.ts),
 * so the Match-Trader codec does every conversion, as for the simulated server.
 *
 * The vendor has no operation id for money or orders, so each one is tagged in its comment
 * (`[tb:<id>]`), looked up before it is sent, and looked up again when its answer is lost;
 * answers are remembered per id for the connector's lifetime. The tag and that memo are
 * server/connectors/matchTraderApi/exactlyOnce.ts; this file holds the vendor's calls and the
 * lookups that recognise an operation already done.
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
import { alreadyUsed, cleanEvents, cleanPosition, tag, tagOf, type ExactlyOnce } from "./exactlyOnce.ts";

const EPOCH = "1970-01-01T00:00:00.000Z";
const FAR = "2999-12-31T23:59:59.999Z";
const LOST_ANSWER_RETRIES = 3;

/** Closings the server makes on its own: never taken for a close Toolbox asked for. */
const SERVER_CLOSES = new Set<string>(["STOP_LOSS", "TAKE_PROFIT", "STOP_OUT"]);

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
  /** Where each known position lives (the vendor's close and edit calls name the account and instrument). */
  positions: Map<string, { login: string; instrument: string }>;
  /** Releases the session's HTTP and gRPC connections. */
  onClose: () => void;
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

  private remember(positions: MtPosition[]): MtPosition[] {
    for (const p of positions) this.parts.positions.set(p.id, { login: p.login, instrument: p.instrument });
    return positions.map(cleanPosition);
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
    return [...closed.closedPositions.map(cleanPosition), ...ledgers.map(cleanPosition)];
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

  /** A trading call's answer: HTTP 200 with status OK or REJECTED (always check the body). */
  private async trade(path: string, body: object): Promise<Omit<MtOperationResult, "requestId">> {
    const answer = await this.post<{ status: string; errorCode?: string; message?: string; execution?: Omit<MtOperationResult, "requestId"> }>(path, body);
    const result = answer.body;
    if (result.status !== "OK" || !result.execution)
      throw new NativeError({ status: 422, errorCode: result.errorCode ?? "REJECTED", message: result.message ?? "The trading server rejected the order." });
    return result.execution;
  }

  /**
   * Exactly once per request id: the tag is looked up among the account's open positions and then
   * its closed positions (a copy may have been closed since) before the order is sent, and again
   * whenever its answer is lost. A fresh connector (after a restart) finds it the same way.
   */
  placeOrder(request: MatchTraderNative["orderRequest"]) {
    const { requestId, comment: _comment, reason: _reason, ...rest } = request;
    return this.parts.exactlyOnce.run(
      requestId,
      JSON.stringify(rest),
      async () => {
        const body = {
          login: request.login,
          instrument: request.instrument,
          orderSide: request.side,
          volume: request.volume,
          slPrice: request.stopLoss,
          tpPrice: request.takeProfit,
          expectedPrice: request.expectedPrice,
          slippage: request.slippage,
          comment: tag(request.comment, requestId),
        };
        for (let attempt = 0; ; attempt++) {
          const found = await this.findOpened(request);
          if (found) return found;
          try {
            const execution = await this.trade("/v1/trading-accounts/positions/open", body);
            this.parts.positions.set(execution.positionId, { login: request.login, instrument: request.instrument });
            return { ...execution, requestId };
          } catch (error) {
            // No answer: the position may be open (or already closed) now; look again before sending again.
            if (!(error instanceof LinkError) || this.closed || attempt >= LOST_ANSWER_RETRIES) throw error;
          }
        }
      },
      { keepFailures: true },
    );
  }

  /** The position an order opened, by the tag in its comment: open first, then closed (a position only moves that way). */
  private async findOpened(request: MatchTraderNative["orderRequest"]): Promise<MtOperationResult | null> {
    const open = await this.get<{ positions: MtPosition[] }>("/v1/trading-accounts/trading-data/open-positions", { login: request.login });
    const stillOpen = open.positions.find((p) => tagOf(p.comment) === request.requestId);
    const closings = await this.closings(request.login);
    const positionId = stillOpen?.id ?? closings.find((c) => tagOf(c.comment) === request.requestId)?.positionId;
    if (positionId === undefined) return null;
    const mine = closings.filter((c) => c.positionId === positionId);
    const first = stillOpen ?? mine[0]!;
    if (first.instrument !== request.instrument || first.side !== request.side) throw alreadyUsed(request.requestId);
    this.parts.positions.set(positionId, { login: first.login, instrument: first.instrument });
    // What was opened: the part still open and every part closed since.
    const volume = mine.reduce((sum, c) => sum + c.volume, stillOpen?.volume ?? 0);
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
    const open = await this.get<{ positions: MtPosition[] }>("/v1/trading-accounts/trading-data/open-positions", { login });
    return open.positions.find((p) => p.id === positionId) ?? null;
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
            const execution = await this.trade("/v1/trading-accounts/positions/edit", {
              login: where.login,
              id: request.positionId,
              slPrice: request.stopLoss,
              tpPrice: request.takeProfit,
            });
            return { ...execution, requestId };
          } catch (error) {
            if (!(error instanceof LinkError) || this.closed || attempt >= LOST_ANSWER_RETRIES) throw error;
          }
        }
      },
      { keepFailures: true },
    );
  }

  /**
   * Exactly once: the account's closings are read before the close is sent; when its answer is
   * lost, a new closing of the position (a full close: the position is gone; a partial one: of the
   * volume asked) is recognised as this request's and it is not sent again. A retry of a request
   * that ended is answered by the memo. Limits (docs/connectors.md): a fresh connector does not
   * recognise a close the previous process made.
   */
  closePosition(request: MatchTraderNative["closeRequest"]) {
    const { requestId, comment: _comment, reason: _reason, ...rest } = request;
    return this.parts.exactlyOnce.run(
      requestId,
      JSON.stringify(rest),
      async () => {
        const where = await this.whereIs(request.positionId);
        const known = await this.closings(where.login);
        const closingsBefore = new Set(known.map((c) => c.id));
        for (let attempt = 0; ; attempt++) {
          const done = await this.findClosing(request, where.login, closingsBefore, attempt === 0 ? known : null);
          if (done) return done;
          try {
            const execution =
              request.volume === null
                ? await this.trade("/v1/trading-accounts/positions/close", {
                    login: where.login,
                    closePositions: [{ positionId: request.positionId, instrument: where.instrument }],
                  })
                : await this.trade("/v1/trading-accounts/positions/close-partially", {
                    login: where.login,
                    positionId: request.positionId,
                    instrument: where.instrument,
                    volume: request.volume,
                  });
            return { ...execution, requestId };
          } catch (error) {
            if (!(error instanceof LinkError) || this.closed || attempt >= LOST_ANSWER_RETRIES) throw error;
          }
        }
      },
      { keepFailures: true },
    );
  }

  /**
   * The closing this request made, if any: one the account's history did not hold when the
   * request began (a full close: the position is gone; a partial one: of the volume asked). A
   * closing older than the request is someone else's, and the server's own (stop loss, take profit,
   * stop out) is never taken for it: then the position is not open.
   */
  private async findClosing(
    request: MatchTraderNative["closeRequest"],
    login: string,
    before: Set<string>,
    read: MtClosedPosition[] | null,
  ): Promise<MtOperationResult | null> {
    const position = await this.current(login, request.positionId);
    const closings = (read ?? (await this.closings(login))).filter((c) => c.positionId === request.positionId && !before.has(c.id));
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
