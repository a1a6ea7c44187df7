/**
 * Runs the trade feed (./tradeFeed.ts) for the app, next to the platform runtime: each platform
 * the runtime connects has its trade events published on `app.bus` while this node holds the
 * platform's feed lease (./feedLeases.ts; NODE_ID, FEED_LEASE_TTL_MS); each one removed
 * (`platformRemoved` on the bus) stops; a lease another node released (`tradeFeedReleased`) is
 * tried at once.
 * Registered after the bus and the runtime; stops (releasing its leases) before the bus closes.
 */
import fp from "fastify-plugin";
import { createFeedLeaseStore, type FeedLeaseStore } from "./feedLeases.ts";
import { TradeFeed, type TradeFeedOptions } from "./tradeFeed.ts";

export interface TradeFeedPluginOptions extends Partial<Omit<TradeFeedOptions, "bus" | "leases">> {
  /** Wraps the lease store (tests: renewals that fail, as if this node lost the database). */
  leaseStore?: (store: FeedLeaseStore) => FeedLeaseStore;
}

export const tradeFeedPlugin = fp<TradeFeedPluginOptions>(
  async (app, opts) => {
    const { leaseStore, ...rest } = opts;
    const store = createFeedLeaseStore(app.ctx.database.db);
    const { id: nodeId, feedLeaseTtlMs: ttlMs } = app.ctx.config.node;
    const feed = new TradeFeed({
      bus: app.bus,
      log: app.log.child({ module: "tradeFeed" }),
      leases: {
        store: leaseStore ? leaseStore(store) : store,
        nodeId,
        ttlMs,
        isConnected: (platformId) => app.platforms.state(platformId).state === "connected",
      },
      ...rest,
    });
    app.decorate("tradeFeed", feed);
    const offConnected = app.platforms.onConnected((platform, connector) => feed.attach(platform, connector));
    const removals = app.bus.subscribe({ types: ["platformRemoved", "tradeFeedReleased"] }, ({ event }) => {
      if (event.type === "platformRemoved") void feed.detach(event.platformId);
      else feed.claim(event.platformId);
    });
    app.addHook("onClose", async () => {
      offConnected();
      removals.close();
      await feed.stopAll();
    });
  },
  { name: "toolbox-trade-feed", dependencies: ["toolbox-event-bus", "toolbox-platforms"] },
);

declare module "fastify" {
  interface FastifyInstance {
    tradeFeed: TradeFeed;
  }
}
