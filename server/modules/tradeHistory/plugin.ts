/**
 * Runs the trade history store for the app: it follows the bus from the start, backfills every
 * platform the runtime connects, forgets the ones removed (`platformRemoved` on the bus), and stops
 * when the app closes.
 */
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../context.ts";
import { platformRuntimeOf } from "../accounts/platformPort.ts";
import { TradeHistoryStore, type TradeHistoryOptions } from "./store.ts";

const stores = new WeakMap<AppContext, TradeHistoryStore>();

/** The store of an app (tests and the benchmark reach it through the app's context). */
export function tradeHistoryOf(ctx: AppContext): TradeHistoryStore | undefined {
  return stores.get(ctx);
}

export async function tradeHistoryPlugin(app: FastifyInstance, options: Partial<TradeHistoryOptions> = {}) {
  const { config, database } = app.ctx;
  const store = new TradeHistoryStore({
    db: database.db,
    bus: app.bus,
    log: app.log.child({ module: "tradeHistory" }),
    backfillDays: config.tradeHistory.backfillDays,
    retentionDays: config.tradeHistory.retentionDays,
    maxQueuedEvents: config.tradeHistory.maxQueuedEvents,
    retentionEveryMs: 10 * 60_000,
    // PGlite is one connection (on its own thread): more accounts at once would only queue.
    concurrency: database.kind === "pglite" ? 2 : 4,
    ...options,
  });
  // Tests run a second app on one context (another node, a restart): the first one's store comes back when it closes.
  const previous = stores.get(app.ctx);
  stores.set(app.ctx, store);
  store.start();
  const runtime = platformRuntimeOf(app);
  const offConnected = runtime.onConnected((platform, connector) => store.attach(platform, connector));
  const removals = app.bus.subscribe({ types: ["platformRemoved"] }, ({ event }) => void store.detach(event.platformId));
  app.addHook("onClose", async () => {
    offConnected();
    removals.close();
    await store.stop();
    if (stores.get(app.ctx) !== store) return;
    if (previous) stores.set(app.ctx, previous);
    else stores.delete(app.ctx);
  });
}
