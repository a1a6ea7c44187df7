/**
 * Runs the trade feed (./tradeFeed.ts) for the app, next to the platform runtime: each platform
 * the runtime connects has its trade events published on `app.bus` while this node holds the
 * platform's feed lease (./feedLeases.ts; NODE_ID, FEED_LEASE_TTL_MS); each one removed
 * (`platformRemoved` on the bus) stops; a lease another node released (`tradeFeedReleased`) is
 * tried at once. Each platform's state on the bus (the live pages) is said by the same node, the
 * lease holder (or by each node while no other holds it): `PlatformRuntime.stateSaidBy`.
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
    // The platforms another node holds the lease of, looked up every third of the lease's time to live.
    const elsewhere = new Set<string>();
    // A hand-over while a look is under way makes its answer stale: that look is dropped (the next one counts).
    let handOvers = 0;
    const lookUp = async () => {
      const before = handOvers;
      try {
        const ids = await store.heldElsewhere(nodeId);
        if (handOvers !== before) return;
        elsewhere.clear();
        for (const id of ids) elsewhere.add(id);
      } catch {
        // The database is away: the last answer stands until the next look.
      }
    };
    await lookUp();
    const looking = setInterval(() => void lookUp(), Math.max(100, Math.floor(ttlMs / 3)));
    looking.unref();
    const feed = new TradeFeed({
      bus: app.bus,
      log: app.log.child({ module: "tradeFeed" }),
      leases: {
        store: leaseStore ? leaseStore(store) : store,
        nodeId,
        ttlMs,
        isConnected: (platformId) => app.platforms.state(platformId).state === "connected",
        // Gave it up, not connected: quiet from now (a connected node takes it over; the next look says if none did).
        givenUp: (platformId) => {
          handOvers++;
          elsewhere.add(platformId);
        },
        taken: (platformId) => {
          handOvers++;
          elsewhere.delete(platformId);
          app.platforms.sayState(platformId);
        },
      },
      ...rest,
    });
    app.decorate("tradeFeed", feed);
    app.platforms.stateSaidBy((platformId) => feed.holds(platformId) || !elsewhere.has(platformId));
    const offConnected = app.platforms.onConnected((platform, connector) => feed.attach(platform, connector));
    const removals = app.bus.subscribe({ types: ["platformRemoved", "tradeFeedReleased"] }, ({ event }) => {
      if (event.type === "platformRemoved") void feed.detach(event.platformId);
      // Its own release (a node hears what it publishes): it gave the platform up and stays quiet about it.
      else if (event.nodeId !== nodeId) {
        handOvers++;
        elsewhere.delete(event.platformId);
        feed.claim(event.platformId);
      }
    });
    app.addHook("onClose", async () => {
      clearInterval(looking);
      // Closing: the connections going down are this node's, not the platforms' (another node says those).
      app.platforms.stateSaidBy(() => false);
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
