/**
 * Runs the trade feed (./tradeFeed.ts) for the app, next to the platform runtime: each platform
 * the runtime connects has its trade events published on `app.bus`; each one removed
 * (`platformRemoved` on the bus) stops.
 * Registered after the bus and the runtime; stops before the bus closes.
 */
import fp from "fastify-plugin";
import { TradeFeed, type TradeFeedOptions } from "./tradeFeed.ts";

export const tradeFeedPlugin = fp<Partial<Omit<TradeFeedOptions, "bus">>>(
  async (app, opts) => {
    const feed = new TradeFeed({ bus: app.bus, log: app.log.child({ module: "tradeFeed" }), ...opts });
    app.decorate("tradeFeed", feed);
    const offConnected = app.platforms.onConnected((platform, connector) => feed.attach(platform, connector));
    const removals = app.bus.subscribe({ types: ["platformRemoved"] }, ({ event }) => void feed.detach(event.platformId));
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
