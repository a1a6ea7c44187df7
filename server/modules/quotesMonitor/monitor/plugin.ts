/** Gives the app its Quotes Monitor (`app.quotesMonitor`, ./monitor.ts), started with the app and stopped with it. */
import fp from "fastify-plugin";
import { systemClock, type Clock } from "../../../connectors/clock.ts";
import { enabledRules, monitorPlatforms } from "../repository.ts";
import { allSettings } from "../settingsRepository.ts";
import { QuotesMonitor } from "./monitor.ts";

export interface QuotesMonitorPluginOptions {
  clock?: Clock;
  evaluateEveryMs?: number;
  refreshEveryMs?: number;
  serverTimeEveryMs?: number;
}

export const quotesMonitorPlugin = fp<QuotesMonitorPluginOptions>(
  async (app, opts) => {
    const { db } = app.ctx.database;
    const monitor = new QuotesMonitor({
      platforms: app.platforms,
      sources: { assigned: () => monitorPlatforms(db), rules: () => enabledRules(db), settings: () => allSettings(db) },
      bus: app.bus,
      clock: opts.clock ?? systemClock,
      log: app.log,
      evaluateEveryMs: opts.evaluateEveryMs,
      refreshEveryMs: opts.refreshEveryMs,
      serverTimeEveryMs: opts.serverTimeEveryMs,
    });
    app.decorate("quotesMonitor", monitor);
    app.addHook("onReady", async () => monitor.start());
    app.addHook("preClose", async () => monitor.stop());
  },
  { name: "toolbox-quotes-monitor", dependencies: ["toolbox-event-bus", "toolbox-platforms"] },
);

declare module "fastify" {
  interface FastifyInstance {
    quotesMonitor: QuotesMonitor;
  }
}
