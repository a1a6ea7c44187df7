/**
 * One idea: pending orders on a Match-Trader Broker API server, placed and cancelled exactly once.
 * The vendor's calls (`pending-order/create`, `pending-order/cancel`) carry no id and no comment and
 * answer `{status, orderId}` only, so each request is written down before it is sent
 * (orderJournal.ts: the account's active orders then, and the server time), and what it made is
 * recognised afterwards from the account's active orders and order history: after a lost answer,
 * a timeout, or by a connector started afresh with the same journal. A cancel already done is
 * recognised from the order's state (no longer active, CANCELLED in the history) and never sent
 * again. The Broker API has no call that changes a pending order, and its create body no
 * expiration: both are refused before anything is sent. The session lends its REST calls (OrderLink).
 */
import type { MatchTraderNative, MtError, MtFinishedOrder, MtOrderResult, MtPendingOrder, MtSide } from "../matchTrader/native.ts";
import { operationTag } from "../operationOnce.ts";
import { LinkError, NativeError } from "../wire/wire.ts";
import { alreadyUsed } from "./exactlyOnce.ts";
import type { OrderIntent } from "./orderJournal.ts";
import { EPOCH, FAR, LOST_ANSWER_RETRIES, type OrderLink, type OrderParts } from "./orders.ts";

/** An entry of the vendor's order history (`trading-data/order-history`): no side; the level as `limit` or `stop`. */
interface HistoricalOrder {
  orderId: string;
  created: string;
  symbol: string;
  volume: number;
  closingOrderId: string | null;
  takeProfit?: number | null;
  stopLoss?: number | null;
  limit: number | null;
  stop: number | null;
}

type Status = "FILLED" | "CANCELLED";

/** Accounts whose order history is asked for in one request. */
const HISTORY_LOGINS = 100;
/** Accounts whose active orders are read at once when all accounts' are asked for. */
const PARALLEL_READS = 8;
const invalid = (message: string) => new NativeError<MtError>({ status: 400, errorCode: "INVALID_REQUEST", message });
const notPending = (orderId: string, why: string) =>
  new NativeError<MtError>({ status: 404, errorCode: "NOT_FOUND", message: `Order ${orderId} is not pending: ${why}.` });
const readBackFailed = () =>
  new NativeError<MtError>({ status: 500, errorCode: "REJECTED", message: "The trading server accepted the order but does not show it." });

export class MatchTraderPendingOrders {
  /** Where each known order lives: the vendor's cancel names the account and instrument. */
  private readonly where = new Map<string, { login: string; instrument: string }>();

  constructor(
    private readonly link: Pick<OrderLink, "get" | "post" | "serverTime" | "closed" | "allLogins">,
    private readonly parts: OrderParts,
  ) {}

  /** The active orders of an account (or of all), each placed by Toolbox with its request's tag. */
  async pendingOrders(login: string | null): Promise<MtPendingOrder[]> {
    const orders = await this.active(login);
    const placedBy = await this.parts.journal.openedBy(orders.map((o) => o.id));
    return orders.map((o) => {
      const requestId = placedBy.get(o.id);
      return requestId === undefined ? o : { ...o, tag: operationTag(requestId) };
    });
  }

  /** One account's active orders; all accounts' read login by login (the vendor's read needs a login and has no bulk form for orders). */
  private async active(login: string | null): Promise<MtPendingOrder[]> {
    if (login === null) {
      const logins = await this.link.allLogins();
      const orders: MtPendingOrder[] = [];
      for (let at = 0; at < logins.length; at += PARALLEL_READS)
        for (const some of await Promise.all(logins.slice(at, at + PARALLEL_READS).map((l) => this.active(l)))) orders.push(...some);
      return orders;
    }
    const orders = (await this.link.get<{ orders: MtPendingOrder[] }>("/v1/trading-accounts/trading-data/active-orders", { login })).orders;
    for (const o of orders) this.where.set(o.id, { login: o.login, instrument: o.instrument });
    return orders;
  }

  /**
   * Filled and cancelled orders created within [from, to] (the vendor's window). Its history has no
   * side, comment, expiry or end time: the side is the placing request's (the journal), so an order
   * Toolbox did not place is left out; the end time is unknown (null); an expiry reads as a cancel.
   */
  async orderHistory(login: string | null, from: string, to: string): Promise<MtFinishedOrder[]> {
    const logins = login === null ? await this.link.allLogins() : [login];
    const entries: { login: string; order: HistoricalOrder; status: Status }[] = [];
    for (let at = 0; at < logins.length; at += HISTORY_LOGINS)
      for (const status of ["FILLED", "CANCELLED"] as const) {
        const answer = await this.link.post<{ login: string; historicalOrders: HistoricalOrder[] }[]>("/v1/trading-accounts/trading-data/order-history", {
          logins: logins.slice(at, at + HISTORY_LOGINS),
          groups: [],
          statuses: [status],
          from,
          to,
        });
        for (const a of answer.body) for (const order of a.historicalOrders) entries.push({ login: a.login, order, status });
      }
    const placedBy = await this.parts.journal.openedBy(entries.map((e) => e.order.orderId));
    const finished: MtFinishedOrder[] = [];
    for (const { login: owner, order, status } of entries) {
      const requestId = placedBy.get(order.orderId);
      const placing = requestId === undefined ? null : await this.parts.journal.get(requestId);
      const side = placing === null ? null : (JSON.parse(placing.fingerprint) as [string, { side?: MtSide }])[1].side;
      if (!side) continue;
      finished.push({
        id: order.orderId,
        login: owner,
        instrument: order.symbol,
        side,
        type: order.limit !== null ? "LIMIT" : "STOP",
        price: order.limit ?? order.stop ?? 0,
        volume: order.volume,
        stopLoss: order.stopLoss ?? null,
        takeProfit: order.takeProfit ?? null,
        expiration: null,
        comment: "",
        reason: "DEALER",
        createdTime: order.created,
        tag: operationTag(requestId!),
        status,
        closedTime: null,
        positionId: status === "FILLED" ? order.closingOrderId : null,
      });
    }
    return finished;
  }

  private async history(login: string, statuses: Status[]): Promise<HistoricalOrder[]> {
    const answer = await this.link.post<{ login: string; historicalOrders: HistoricalOrder[] }[]>("/v1/trading-accounts/trading-data/order-history", {
      logins: [login],
      groups: [],
      statuses,
      from: EPOCH,
      to: FAR,
    });
    return answer.body.flatMap((a) => a.historicalOrders);
  }

  private async trade(path: string, body: object): Promise<string | null> {
    const answer = await this.link.post<{ status: string; orderId?: string | null; errorCode?: string; message?: string }>(path, body);
    const result = answer.body;
    if (result.status !== "OK")
      throw new NativeError({ status: 422, errorCode: result.errorCode ?? "REJECTED", message: result.message ?? "The trading server rejected the order." });
    return result.orderId ?? null;
  }

  /** One order request at a time per account (the market orders' queue too): a new order is then only this request's, among Toolbox's. */
  private serialized<T>(login: string, run: () => Promise<T>): Promise<T> {
    const previous = this.parts.accountQueues.get(login) ?? Promise.resolve();
    const next = previous.then(run, run);
    const tail = next.catch(() => undefined);
    this.parts.accountQueues.set(login, tail);
    void tail.then(() => {
      if (this.parts.accountQueues.get(login) === tail) this.parts.accountQueues.delete(login);
    });
    return next;
  }

  /** The memo (this process), then the journal (a process that died): an answer or refusal written down is given again. */
  private once(requestId: string, fingerprint: string, login: string, perform: (known: OrderIntent | null) => Promise<MtOrderResult>) {
    return this.parts.exactlyOnce.run(
      requestId,
      fingerprint,
      () =>
        this.serialized(login, async () => {
          const known = await this.parts.journal.get(requestId);
          if (known) {
            if (known.fingerprint !== fingerprint) throw alreadyUsed(requestId);
            if (known.orderResult) return known.orderResult;
            if (known.refusal) throw new NativeError<MtError>(known.refusal);
          }
          return perform(known);
        }),
      { keepFailures: true },
    );
  }

  private async answered(intent: OrderIntent, result: MtOrderResult): Promise<MtOrderResult> {
    await this.parts.journal.put({ ...intent, orderResult: result });
    return result;
  }

  private async refused(intent: OrderIntent, error: unknown): Promise<never> {
    if (error instanceof NativeError && [400, 404, 409, 422].includes((error.native as MtError).status))
      await this.parts.journal.put({ ...intent, refusal: error.native as MtError });
    throw error;
  }

  /**
   * Exactly once: the account's active orders and the server time are written down before the
   * create is sent; the order it made is the one the answer names, or else (a lost answer, a
   * timeout, a restart) the oldest order not active then, created since with the request's
   * instrument, side, type, level and volume and not another request's: still active, or already
   * filled or cancelled (the order history). The vendor's body has no comment and no expiration.
   */
  placePendingOrder(request: MatchTraderNative["placePendingRequest"]) {
    const { requestId, comment: _comment, reason: _reason, ...rest } = request;
    const fingerprint = JSON.stringify(["place", rest]);
    if (request.expiration !== null)
      return Promise.reject(invalid("The Match-Trader Broker API places pending orders good till cancelled: it takes no expiration."));
    return this.once(requestId, fingerprint, request.login, async (known) => {
      const intent: OrderIntent = known ?? {
        requestId,
        fingerprint,
        kind: "place",
        login: request.login,
        instrument: request.instrument,
        startedAt: await this.link.serverTime(),
        before: (await this.active(request.login)).map((o) => o.id),
      };
      if (known) {
        const found = await this.findPlaced(request, intent);
        if (found) return this.answered(intent, found);
      } else await this.parts.journal.put(intent);
      const body = {
        login: request.login,
        instrument: request.instrument,
        orderSide: request.side,
        type: request.type,
        volume: request.volume,
        activationPrice: request.price,
        slPrice: request.stopLoss,
        tpPrice: request.takeProfit,
      };
      for (let attempt = 0; ; attempt++) {
        try {
          const orderId = await this.trade("/v1/trading-accounts/pending-order/create", body);
          const found = await this.findPlaced(request, intent, orderId);
          if (!found) throw readBackFailed();
          return await this.answered(intent, found);
        } catch (error) {
          // No answer: the order may be active (or filled) now; look again before sending again.
          if (!(error instanceof LinkError) || this.link.closed() || attempt >= LOST_ANSWER_RETRIES) return this.refused(intent, error);
          const found = await this.findPlaced(request, intent);
          if (found) return this.answered(intent, found);
        }
      }
    });
  }

  private async findPlaced(
    request: MatchTraderNative["placePendingRequest"],
    intent: OrderIntent,
    orderId: string | null = null,
  ): Promise<MtOrderResult | null> {
    const before = new Set(intent.before);
    const result = (id: string, price: number, volume: number, time: string): MtOrderResult => ({
      requestId: request.requestId,
      operation: "CREATE_ORDER",
      orderId: id,
      price,
      volume,
      time,
    });
    const active = (await this.active(request.login)).filter((o) => !before.has(o.id));
    const past = (await this.history(request.login, ["FILLED", "CANCELLED"])).filter((o) => !before.has(o.orderId));
    const named = orderId === null ? undefined : (active.find((o) => o.id === orderId) ?? past.find((o) => o.orderId === orderId));
    if (named) return "id" in named ? result(named.id, named.price, named.volume, named.createdTime) : this.fromHistory(request, named);
    const claimed = await this.parts.journal.openedBy([...active.map((o) => o.id), ...past.map((o) => o.orderId)]);
    const free = (id: string) => (claimed.get(id) ?? request.requestId) === request.requestId;
    const same = (a: number, b: number) => Math.abs(a - b) < 1e-9;
    const fits = [
      ...active
        .filter(
          (o) =>
            free(o.id) &&
            o.createdTime >= intent.startedAt &&
            o.instrument === request.instrument &&
            o.side === request.side &&
            o.type === request.type &&
            same(o.price, request.price) &&
            same(o.volume, request.volume),
        )
        .map((o) => result(o.id, o.price, o.volume, o.createdTime)),
      ...past
        .filter(
          (o) =>
            free(o.orderId) &&
            o.created >= intent.startedAt &&
            o.symbol === request.instrument &&
            same((request.type === "LIMIT" ? o.limit : o.stop) ?? NaN, request.price) &&
            same(o.volume, request.volume),
        )
        .map((o) => this.fromHistory(request, o)),
    ];
    return fits.sort((a, b) => a.time.localeCompare(b.time))[0] ?? null;
  }

  private fromHistory(request: MatchTraderNative["placePendingRequest"], o: HistoricalOrder): MtOrderResult {
    return { requestId: request.requestId, operation: "CREATE_ORDER", orderId: o.orderId, price: o.limit ?? o.stop ?? 0, volume: o.volume, time: o.created };
  }

  private async locate(orderId: string) {
    const known = this.where.get(orderId);
    if (known) return known;
    await this.active(null);
    const found = this.where.get(orderId);
    if (!found) throw notPending(orderId, "no active order has this id");
    return found;
  }

  /**
   * Exactly once: written down before it is sent; an order no longer active and CANCELLED in the
   * history afterwards is this request's doing (after a lost answer, a timeout, a restart). An
   * order that was not active when the request first came, or that filled, is refused as not pending.
   */
  cancelPendingOrder(request: MatchTraderNative["cancelPendingRequest"]) {
    const { requestId, orderId } = request;
    const fingerprint = JSON.stringify(["cancel", orderId]);
    return this.parts.journal.get(requestId).then(async (earlier) => {
      const where = earlier ? { login: earlier.login, instrument: earlier.instrument } : await this.locate(orderId);
      return this.once(requestId, fingerprint, where.login, async (known) => {
        const intent: OrderIntent = known ?? {
          requestId,
          fingerprint,
          kind: "cancel",
          login: where.login,
          instrument: where.instrument,
          startedAt: await this.link.serverTime(),
          before: [],
        };
        const order = (await this.active(where.login)).find((o) => o.id === orderId);
        if (!order) {
          const done = await this.findCancelled(request, intent);
          if (known && done) return this.answered(intent, done);
          return this.refused(intent, notPending(orderId, done ? "it was already cancelled" : "it filled or no longer exists"));
        }
        if (!known) await this.parts.journal.put(intent);
        for (let attempt = 0; ; attempt++) {
          try {
            await this.trade("/v1/trading-accounts/pending-order/cancel", { login: where.login, instrument: where.instrument, orderId });
            const done = await this.findCancelled(request, intent);
            if (!done) throw readBackFailed();
            return await this.answered(intent, done);
          } catch (error) {
            if (!(error instanceof LinkError) || this.link.closed() || attempt >= LOST_ANSWER_RETRIES) return this.refused(intent, error);
            const still = (await this.active(where.login)).some((o) => o.id === orderId);
            const done = still ? null : await this.findCancelled(request, intent);
            if (done) return this.answered(intent, done);
            if (!still) return this.refused(intent, notPending(orderId, "it filled before it could be cancelled"));
          }
        }
      });
    });
  }

  /** The order, cancelled (its history entry), as the cancel's answer; null when the history holds no cancellation of it. */
  private async findCancelled(request: MatchTraderNative["cancelPendingRequest"], intent: OrderIntent): Promise<MtOrderResult | null> {
    const entry = (await this.history(intent.login, ["CANCELLED"])).find((o) => o.orderId === request.orderId);
    if (!entry) return null;
    return {
      requestId: request.requestId,
      operation: "CANCEL_ORDER",
      orderId: entry.orderId,
      price: entry.limit ?? entry.stop ?? 0,
      volume: entry.volume,
      time: await this.link.serverTime(),
    };
  }
}
