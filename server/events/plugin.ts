/**
 * Gives the app its event bus (`app.bus`): the one passed in (tests, a second app on the same
 * bus), else a new in-process bus that closes with the app.
 */
import fp from "fastify-plugin";
import type { EventBus } from "./bus.ts";
import { createInProcessBus } from "./inProcess.ts";

export interface EventBusPluginOptions {
  bus?: EventBus;
}

export const eventBusPlugin = fp<EventBusPluginOptions>(
  async (app, opts) => {
    const owned = opts.bus === undefined;
    const bus =
      opts.bus ??
      createInProcessBus({
        onHandlerError: (err, message) => app.log.error({ err, type: message.event.type, platformId: message.event.platformId }, "event bus subscriber failed"),
      });
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
