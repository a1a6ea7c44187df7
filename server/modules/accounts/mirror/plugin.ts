/**
 * Runs the accounts mirror for the app: every platform the runtime connects is mirrored, every
 * platform removed (`platformRemoved` on the event bus) stops being followed (a disabled one's connector ends its stream, which
 * stops the mirror's loop too); the mirror stops when the app closes.
 */
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../../context.ts";
import { AccountMirror } from "./mirror.ts";
import type { AccountMirrorOptions } from "./types.ts";
import { platformRuntimeOf } from "../platformPort.ts";

const mirrors = new WeakMap<AppContext, AccountMirror>();

/** The mirror of an app (the routes, tests and the benchmark reach it through the app's context). */
export function accountsMirrorOf(ctx: AppContext): AccountMirror | undefined {
  return mirrors.get(ctx);
}

export async function accountsMirrorPlugin(app: FastifyInstance, options: Partial<AccountMirrorOptions> = {}) {
  const { db } = app.ctx.database;
  const mirror = new AccountMirror({
    db,
    log: app.log.child({ module: "accountsMirror" }),
    ...options,
  });
  mirrors.set(app.ctx, mirror);
  const runtime = platformRuntimeOf(app);
  const offConnected = runtime.onConnected((platform, connector) => mirror.attach(platform, connector));
  const removals = app.bus.subscribe({ types: ["platformRemoved"] }, ({ event }) => void mirror.detach(event.platformId));
  app.addHook("onClose", async () => {
    offConnected();
    removals.close();
    await mirror.stopAll();
    if (mirrors.get(app.ctx) === mirror) mirrors.delete(app.ctx);
  });
}
