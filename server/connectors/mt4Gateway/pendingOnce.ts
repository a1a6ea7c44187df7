/**
 * A change or a delete of an MT4 pending order recognised from the order's state and history
 * before it is sent (docs/connectors.md, "MT4 manager gateway"), so it is not repeated when the
 * gateway no longer remembers its request id (a gateway restarted without persistence) or a fresh
 * connector retries it:
 * - change (TT_BR_ORDER_MODIFY): the waiting order already at the asked price, stops and
 *   expiration → done, nothing is sent;
 * - delete (TT_BR_ORDER_DELETE): an order no longer open is looked for in its account's
 *   `TradesUserHistory`: deleted → done; expired or filled → `notFound` (this delete did not
 *   happen and never will).
 * Anything else is sent, and the gateway's request id still answers a repeat it remembers. The
 * account of a ticket comes from the request (`login`) or from the open record read here.
 */
import { isPendingOrder, MT4_RET, type Mt4PendingResult, type Mt4PendingTransaction, type Mt4TradeRecord } from "../mt4/native.ts";
import { NativeError } from "../wire/wire.ts";

/** What the lookup reads on the gateway. */
export interface Mt4OrderReads {
  /** TradeRecordsRequest: the open records (trades and waiting orders) of these tickets. */
  openRecords(tickets: number[]): Promise<Mt4TradeRecord[]>;
  /** TradesUserHistory: closed records of one account within [from, to] (server seconds). */
  history(login: number, from: number, to: number): Promise<Mt4TradeRecord[]>;
  /** The server's time now, in server seconds. */
  serverTime(): Promise<number>;
}

/** How far back a finished order is looked for. */
const LOOKBACK_SECONDS = 31 * 24 * 3600;
/** Tickets whose account was read, so a retry by this connector finds a finished order's history without being told the login. */
const REMEMBERED = 100_000;

const samePrice = (a: number, b: number) => Math.abs(a - b) < 1e-9;

export class Mt4PendingOnce {
  private readonly logins = new Map<number, number>();

  /** A change already made is answered without sending it; anything else goes to `send`. */
  async modify(request: Mt4PendingTransaction, reads: Mt4OrderReads, send: () => Promise<Mt4PendingResult>): Promise<Mt4PendingResult> {
    const [record] = await reads.openRecords([request.order]);
    if (record) this.remember(record);
    if (
      record &&
      isPendingOrder(record) &&
      samePrice(record.open_price, request.price) &&
      samePrice(record.sl, request.sl) &&
      samePrice(record.tp, request.tp) &&
      record.expiration === request.expiration
    )
      return {
        request_id: request.request_id,
        type: "modify",
        order: record.order,
        price: record.open_price,
        volume: record.volume,
        time: await reads.serverTime(),
      };
    return send();
  }

  /** A delete already made is answered from the history; an order that expired or filled is `notFound`; anything else goes to `send`. */
  async cancel(request: Mt4PendingTransaction, reads: Mt4OrderReads, send: () => Promise<Mt4PendingResult>): Promise<Mt4PendingResult> {
    const [record] = await reads.openRecords([request.order]);
    if (record) {
      this.remember(record);
      return send();
    }
    const login = request.login || this.logins.get(request.order);
    if (!login) return send();
    const now = await reads.serverTime();
    const finished = (await reads.history(login, now - LOOKBACK_SECONDS, now)).find((r) => r.order === request.order);
    if (!finished) return send();
    if (!isPendingOrder(finished))
      throw new NativeError({
        code: MT4_RET.notFound,
        message: `Order #${request.order} was filled: it is a trade now, and no longer a pending order to delete.`,
      });
    if (finished.expiration !== 0 && finished.close_time >= finished.expiration)
      throw new NativeError({ code: MT4_RET.notFound, message: `Order #${request.order} expired; there is no pending order to delete.` });
    return {
      request_id: request.request_id,
      type: "delete",
      order: finished.order,
      price: finished.open_price,
      volume: finished.volume,
      time: finished.close_time,
    };
  }

  private remember(record: Mt4TradeRecord): void {
    this.logins.delete(record.order);
    this.logins.set(record.order, record.login);
    if (this.logins.size > REMEMBERED) {
      const oldest = this.logins.keys().next().value;
      if (oldest !== undefined) this.logins.delete(oldest);
    }
  }
}
