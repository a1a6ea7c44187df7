/**
 * GET /api/tradesBlotter/orders/stream: the blotter's waiting pending orders, live (Server-Sent
 * Events, ../../streams/sse.ts: its caps, access re-checks, token expiry and pings). Apart from the
 * trades stream (../tradesBlotter/), so order events never touch the positions' path. Events:
 *   event: snapshot  data: {orders}          — every waiting order matching the filters, no cap
 *                                               (the store's, read a page at a time);
 *   event: orders    data: {upsert, remove}  — about every 50 ms while orders change: waiting orders
 *                                               new or changed, and the keys of those that left
 *                                               (filled, cancelled, expired, no longer matching).
 * It subscribes to the bus before reading the store, and applies after the snapshot the order
 * events the store's writer had not written yet (`pendingEvents`) and those that came meanwhile,
 * in order: each order ends as its last event left it. Events become rows through the same query
 * as the list (./repository/orders.ts, `ordersOfEvents`: the same columns and filters). A stream
 * covers the platforms that had the blotter when it opened; one removed ends it (the client
 * reopens it, without that platform's orders).
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { BlotterOrderChanges, BlotterOrderStreamQuery } from "../../../core/schemas/tradesBlotter.ts";
import type { TradeEvent } from "../../../core/trading/index.ts";
import type { Db } from "../../db/client.ts";
import type { EventBus } from "../../events/bus.ts";
import { sseHub } from "../../streams/sse.ts";
import { blotterPlatformIds } from "./repository/blotterPlatforms.ts";
import { ordersOfEvents, ordersPage } from "./repository/orders.ts";
import { orderColumns, type OrderColumns } from "./rows.ts";

const FRAME_MS = 50;
const SNAPSHOT_PAGE = 1000;

type OrderEvent = Extract<TradeEvent, { type: "orderPlaced" | "orderModified" | "orderCancelled" | "orderFilled" }>;
const isOrderEvent = (e: TradeEvent): e is OrderEvent =>
  e.type === "orderPlaced" || e.type === "orderModified" || e.type === "orderCancelled" || e.type === "orderFilled";

export interface OrderStreams {
  open(request: FastifyRequest, reply: FastifyReply, query: BlotterOrderStreamQuery): Promise<void>;
  closeAll(): void;
}

export function orderStreams(db: Db, bus: EventBus, pendingEvents: (platformId: string) => TradeEvent[]): OrderStreams {
  const hub = sseHub();
  return {
    async open(request, reply, query) {
      const organizationId = request.organization.id;
      const stream = hub.open(request, reply);
      /** Per order key, the last event's state (null: no longer waiting), in the order they came. */
      let changed = new Map<string, (OrderColumns & { platformId: string }) | null>();
      let platforms: Set<string> | null = null;
      let timer: ReturnType<typeof setTimeout> | null = null;
      let writing = Promise.resolve();
      const take = (platformId: string, event: TradeEvent) => {
        if (!isOrderEvent(event) || (platforms !== null && !platforms.has(platformId))) return;
        const key = `${platformId}:${event.order.id}`;
        changed.delete(key);
        changed.set(key, event.type === "orderPlaced" || event.type === "orderModified" ? { ...orderColumns(event.order, "placed", null), platformId } : null);
        if (platforms !== null) timer ??= setTimeout(flush, FRAME_MS);
      };
      const flush = () => {
        timer = null;
        const batch = changed;
        changed = new Map();
        if (batch.size === 0 || stream.closed) return;
        writing = writing.then(async () => {
          const waiting = [...batch.values()].filter((o) => o !== null);
          const shown = await ordersOfEvents(db, organizationId, [...(platforms ?? [])], query, waiting);
          const upserted = new Set(shown.map((o) => o.key));
          const changes: BlotterOrderChanges = { upsert: shown, remove: [...batch.keys()].filter((k) => !upserted.has(k)) };
          stream.send("orders", changes);
        });
        writing = writing.catch((err: unknown) => {
          request.log.warn({ err }, "pending orders stream: a change could not be read; the stream ends (the client reopens it)");
          stream.close();
        });
      };
      const subscription = bus.subscribe({ types: ["trade", "platformRemoved"], organizationId }, ({ event }) => {
        if (event.type === "trade") take(event.platformId, event.event);
        // A platform removed: the stream ends, and the client's next one has no order of it.
        else if (platforms === null || platforms.has(event.platformId)) stream.close();
      });
      stream.onClose(() => {
        subscription.close();
        if (timer) clearTimeout(timer);
      });
      try {
        const ids = await blotterPlatformIds(db, organizationId, query.platformIds);
        const snapshot = [];
        for (let cursor: string | undefined; ;) {
          const page = await ordersPage(db, organizationId, { ...query, state: "placed", limit: SNAPSHOT_PAGE, cursor });
          snapshot.push(...page.items);
          if (page.nextCursor === null || stream.closed) break;
          cursor = page.nextCursor;
        }
        // What came meanwhile goes after what the store's writer still holds (older).
        const meanwhile = changed;
        changed = new Map();
        platforms = new Set(ids);
        for (const id of ids) for (const event of pendingEvents(id)) take(id, event);
        for (const [key, order] of meanwhile) {
          changed.delete(key);
          changed.set(key, order);
        }
        stream.send("snapshot", { orders: snapshot });
        flush();
      } catch (err) {
        request.log.warn({ err }, "pending orders stream: the snapshot could not be read");
        stream.close();
      }
    },
    closeAll: hub.closeAll,
  };
}
