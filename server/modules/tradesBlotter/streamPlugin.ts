/**
 * Gives the app its blotter streams (`app.blotterStreams`, ./stream.ts): this node's follower of
 * the bus (groups, recent deals) and every open blotter stream, closed with the app.
 */
import fp from "fastify-plugin";
import { blotterStreams, type BlotterStreamOptions, type BlotterStreams } from "./stream.ts";

export interface BlotterStreamPluginOptions {
  options?: BlotterStreamOptions;
}

export const blotterStreamPlugin = fp<BlotterStreamPluginOptions>(
  async (app, opts) => {
    const streams = blotterStreams({ db: app.ctx.database.db, bus: app.bus, platforms: app.platforms, log: app.log }, opts.options);
    app.decorate("blotterStreams", streams);
    app.addHook("preClose", async () => streams.closeAll());
  },
  { name: "toolbox-blotter-streams", dependencies: ["toolbox-event-bus", "toolbox-platforms"] },
);

declare module "fastify" {
  interface FastifyInstance {
    blotterStreams: BlotterStreams;
  }
}
