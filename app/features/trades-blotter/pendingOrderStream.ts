/**
 * The pending-orders view's waiting orders, live: GET /api/tradesBlotter/orders/stream through the
 * app's one Server-Sent Events reader (app/api/liveStream.ts). A snapshot starts over (every
 * waiting order matching the filters, no cap); each `orders` event brings the orders new or
 * changed and the keys of those that left. The handler gets each change as a grid transaction
 * (add, update, remove: AG Grid's `applyTransactionAsync`), and every order held for the CSV.
 */
import type { BlotterOrder, BlotterOrderChanges } from "@core/schemas/tradesBlotter";
import { apiHeaders } from "~/api/headers";
import { openLiveStream, type StreamStatus } from "~/api/liveStream";

export interface OrderTransaction {
  add: BlotterOrder[];
  update: BlotterOrder[];
  remove: BlotterOrder[];
}

export interface PendingOrderStreamHandlers {
  /** A snapshot: these are all the orders now. */
  onSnapshot(orders: BlotterOrder[]): void;
  onChange(transaction: OrderTransaction): void;
  onStatus?(status: StreamStatus): void;
}

export interface PendingOrderStream {
  /** Every order held, in no order. */
  held(): BlotterOrder[];
  size(): number;
  close(): void;
}

/** `query`: the list's filters (GET /api/tradesBlotter/orders), without state, cursor or limit. */
export function openPendingOrderStream(query: string, handlers: PendingOrderStreamHandlers): PendingOrderStream {
  const held = new Map<string, BlotterOrder>();
  const stop = openLiveStream({
    url: `/api/tradesBlotter/orders/stream?${query}`,
    headers: () => apiHeaders(),
    onStatus: (status) => handlers.onStatus?.(status),
    onMessage(message) {
      if (message.event === "snapshot") {
        const { orders } = JSON.parse(message.data) as { orders: BlotterOrder[] };
        held.clear();
        for (const o of orders) held.set(o.key, o);
        handlers.onSnapshot([...held.values()]);
      } else if (message.event === "orders") {
        const changes = JSON.parse(message.data) as BlotterOrderChanges;
        const t: OrderTransaction = { add: [], update: [], remove: [] };
        for (const key of changes.remove) {
          const gone = held.get(key);
          if (gone === undefined) continue;
          held.delete(key);
          t.remove.push(gone);
        }
        for (const o of changes.upsert) {
          (held.has(o.key) ? t.update : t.add).push(o);
          held.set(o.key, o);
        }
        if (t.add.length + t.update.length + t.remove.length > 0) handlers.onChange(t);
      }
    },
  });
  return { held: () => [...held.values()], size: () => held.size, close: stop };
}
