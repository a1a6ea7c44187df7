/**
 * One idea: orders on a Match-Trader Broker API server made exactly once: open, change of stops,
 * close and partial close. The vendor's order bodies carry no id and no comment, so each order is
 * written down before it is sent, with what the account held then (orderJournal.ts), and the new
 * position or closing that fits it is recognised after a lost answer, a timeout or a restart. A
 * change or close already in place is recognised from the position's state and closings and is
 * never sent again. The session (session.ts) lends this file its REST calls (OrderLink).
 */
import type { MatchTraderNative, MtClosedPosition, MtError, MtOperationResult, MtPosition } from "../matchTrader/native.ts";
import { LinkError, NativeError } from "../wire/wire.ts";
import { alreadyUsed, type ExactlyOnce } from "./exactlyOnce.ts";
import type { OrderIntent, OrderJournal } from "./orderJournal.ts";

export const EPOCH = "1970-01-01T00:00:00.000Z";
export const FAR = "2999-12-31T23:59:59.999Z";
/** How often a call whose answer was lost is looked up and sent again. */
export const LOST_ANSWER_RETRIES = 3;

/** Closings the server makes on its own: never taken for a close Toolbox asked for. */
const SERVER_CLOSES = new Set<string>(["STOP_LOSS", "TAKE_PROFIT", "STOP_OUT"]);

function readBackFailed() {
  return new NativeError<MtError>({
    status: 500,
    errorCode: "REJECTED",
    message: "The trading server accepted the order but does not show what it filled.",
  });
}

export function notOpen(positionId: string) {
  return new NativeError<MtError>({ status: 404, errorCode: "NOT_FOUND", message: `Position ${positionId} is not open.` });
}

/** What the orders borrow from the session: its REST calls (with the system's id added) and whether it is closed. */
export interface OrderLink {
  get<T>(path: string, query?: Record<string, string | null | undefined>): Promise<T>;
  post<T>(path: string, body: object): Promise<{ body: T }>;
  serverTime(): Promise<string>;
  getQuotes(symbols: readonly string[] | null): Promise<MatchTraderNative["quote"][]>;
  listSymbols(): Promise<MatchTraderNative["symbol"][]>;
  /** Reads every open position, noting where each lives (for the close and edit calls). */
  openPositions(login: string | null): Promise<MtPosition[]>;
  /** Every account's login (the vendor reads positions and orders only by login or group). */
  allLogins(): Promise<string[]>;
  closed(): boolean;
}

export interface OrderParts {
  exactlyOnce: ExactlyOnce;
  journal: OrderJournal;
  /** Order requests under way per account, one after the other. */
  accountQueues: Map<string, Promise<unknown>>;
  /** Where each known position lives (the vendor's close and edit calls name the account and instrument). */
  positions: Map<string, { login: string; instrument: string }>;
}

export class MatchTraderOrders {
  constructor(
    private readonly link: OrderLink,
    private readonly parts: OrderParts,
  ) {}

  /**
   * A trading call's answer: HTTP 200 with status OK or REJECTED (always check the body), and the
   * vendor's `orderId`; what was filled is read back from the account, as the vendor answers no more.
   */
  private async trade(path: string, body: object): Promise<string | null> {
    const answer = await this.link.post<{ status: string; orderId?: string | null; errorCode?: string; message?: string }>(path, body);
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
        startedAt: await this.link.serverTime(),
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
          if (!(error instanceof LinkError) || this.link.closed() || attempt >= LOST_ANSWER_RETRIES) return this.refused(intent, error);
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
    const [quote] = await this.link.getQuotes([request.instrument]);
    const symbol = (await this.link.listSymbols()).find((s) => s.symbol === request.instrument);
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
    return (await this.link.get<{ positions: MtPosition[] }>("/v1/trading-accounts/trading-data/open-positions", { login })).positions;
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
    const answer = await this.link.get<{ closedPositions: MtClosedPosition[] }>("/v1/trading-accounts/trading-data/closed-positions", {
      login,
      from: EPOCH,
      to: FAR,
    });
    return answer.closedPositions.sort((a, b) => a.closeTime.localeCompare(b.closeTime));
  }

  private async whereIs(positionId: string) {
    const known = this.parts.positions.get(positionId);
    if (known) return known;
    await this.link.openPositions(null);
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
              time: await this.link.serverTime(),
            };
          try {
            await this.trade("/v1/trading-accounts/positions/edit", {
              login: where.login,
              id: request.positionId,
              slPrice: request.stopLoss,
              tpPrice: request.takeProfit,
            });
          } catch (error) {
            if (!(error instanceof LinkError) || this.link.closed() || attempt >= LOST_ANSWER_RETRIES) throw error;
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
          startedAt: await this.link.serverTime(),
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
            if (!(error instanceof LinkError) || this.link.closed() || attempt >= LOST_ANSWER_RETRIES) return this.refused(intent, error);
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
}
