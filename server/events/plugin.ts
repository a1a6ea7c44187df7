/**
 * Gives the app its event bus (`app.bus`): the one passed in (tests, a second app on the same
 * bus), else NATS JetStream when NATS_URL is set, else a new in-process bus. A bus the app made
 * closes with the app, after everything that publishes on it (its onClose runs last).
 */
import fp from "fastify-plugin";
import type { EventBus } from "./bus.ts";
import { createInProcessBus } from "./inProcess.ts";
import { createNatsBus } from "./nats.ts";
import type { BusMessage } from "./types.ts";

export interface EventBusPluginOptions {
  bus?: EventBus;
}

export const eventBusPlugin = fp<EventBusPluginOptions>(
  async (app, opts) => {
    const owned = opts.bus === undefined;
    const log = app.log.child({ module: "eventBus" });
    const onHandlerError = (err: unknown, message: BusMessage) =>
      log.error({ err, type: message.event.type, platformId: message.event.platformId }, "event bus subscriber failed");
    const { nats } = app.ctx.config;
    const bus =
      opts.bus ??
      (nats ? createNatsBus({ ...nats, name: `toolbox ${app.ctx.config.publicUrl}`, log, onHandlerError }) : createInProcessBus({ onHandlerError }));
    app.decorate("bus", bus);
    if (owned) app.addHook("onClose", () => bus.close());
  },
  { name: "toolbox-event-bus" },
);

declare module "fastify" {
  interface FastifyInstance {
    bus: EventBus;
  }
}
