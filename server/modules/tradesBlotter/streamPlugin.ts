/**
 * Gives the app its blotter streams (`app.blotterStreams`, ./stream.ts): this node's follower of
 * the bus (groups, recent deals), snapshots read from the trade history store first, and every
 * open blotter stream, closed with the app.
 */
import fp from "fastify-plugin";
import { tradeHistoryOf } from "../tradeHistory/plugin.ts";
import { storeSnapshotSource } from "../tradeHistory/repository/snapshotSource.ts";
import type { BlotterStreamOptions } from "./options.ts";
import { blotterStreams, type BlotterStreams } from "./stream.ts";

export interface BlotterStreamPluginOptions {
  options?: BlotterStreamOptions;
}

export const blotterStreamPlugin = fp<BlotterStreamPluginOptions>(
  async (app, opts) => {
    const { db } = app.ctx.database;
    // The store is registered with the API routes, after this: looked up when a snapshot is read.
    const snapshots = storeSnapshotSource(db, () => tradeHistoryOf(app.ctx), { backfillDays: app.ctx.config.tradeHistory.backfillDays });
    // The node's budget and each stream's bound from the environment; tests may set any option.
    const options = { ...app.ctx.config.blotterStream, ...opts.options };
    const streams = blotterStreams({ db, bus: app.bus, platforms: app.platforms, log: app.log, snapshots }, options);
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
