/**
 * One idea: what the Match-Trader connector writes down before it sends an order, so the order is
 * recognised after a lost answer or a restart. The Broker API carries no client id and no comment
 * on an order (`positions/open` takes login, instrument, side, volume and stops; the close calls a
 * position and a volume), so nothing Toolbox sends comes back on the position. Instead, before
 * sending, the connector records the request with what the account held then (its open positions,
 * or the position's closings) and the server time; a new position or closing that fits the request
 * and was not there before is the request's. Results and refusals are written down too, and each
 * position opened keeps its request's tag (`Position.tag`) for the copier.
 *
 * A journal kept in memory lasts as long as the process; a host that keeps it in its database makes
 * the guarantee hold across a restart (docs/connectors.md, "Orders exactly once", Match-Trader).
 */
import type { MtError, MtOperationResult, MtOrderResult } from "../matchTrader/native.ts";

export interface OrderIntent {
  requestId: string;
  /** What makes two requests the same. */
  fingerprint: string;
  /** Market orders (orders.ts): open, close. Pending orders (pendingOrders.ts): place, cancel. */
  kind: "open" | "close" | "place" | "cancel";
  login: string;
  instrument: string;
  /** Server time (ISO) read just before the request was first sent. */
  startedAt: string;
  /** An open: the account's open positions then. A close: the position's closings then. A place: the account's active orders then. */
  before: string[];
  result?: MtOperationResult;
  /** A place's or a cancel's answer. */
  orderResult?: MtOrderResult;
  refusal?: MtError;
}

/** What the request made, once known: the position an open opened, or the order a place placed (each claimed by one request). */
export function madeBy(intent: OrderIntent): string | null {
  if (intent.kind === "open") return intent.result?.positionId ?? null;
  if (intent.kind === "place") return intent.orderResult?.orderId ?? null;
  return null;
}

export interface OrderJournal {
  get(requestId: string): Promise<OrderIntent | null>;
  /** Writes (or overwrites) the intent; it must be durable before the order is sent. */
  put(intent: OrderIntent): Promise<void>;
  /** The request ids that opened these positions (or placed these orders), for those the journal knows. */
  openedBy(positionIds: readonly string[]): Promise<Map<string, string>>;
}

/** Bounded: the oldest intents go first. */
const KEPT = 100_000;

export class MemoryOrderJournal implements OrderJournal {
  private readonly intents = new Map<string, OrderIntent>();
  private readonly opened = new Map<string, string>();

  get(requestId: string): Promise<OrderIntent | null> {
    const intent = this.intents.get(requestId);
    return Promise.resolve(intent ? structuredClone(intent) : null);
  }

  put(intent: OrderIntent): Promise<void> {
    this.intents.delete(intent.requestId);
    this.intents.set(intent.requestId, structuredClone(intent));
    const made = madeBy(intent);
    if (made !== null) this.opened.set(made, intent.requestId);
    if (this.intents.size > KEPT) {
      const [oldest] = this.intents.values();
      if (oldest) {
        this.intents.delete(oldest.requestId);
        const made = madeBy(oldest);
        if (made !== null) this.opened.delete(made);
      }
    }
    return Promise.resolve();
  }

  openedBy(positionIds: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (const id of positionIds) {
      const requestId = this.opened.get(id);
      if (requestId !== undefined) found.set(id, requestId);
    }
    return Promise.resolve(found);
  }
}
