/**
 * Runs the copier engine (./engine.ts) for the app: started once the platform runtime and the bus
 * are up, with this node's id and the lease time to live of the feeds (NODE_ID,
 * FEED_LEASE_TTL_MS); stopped (its link leases released, so another node takes them at once) when
 * the app closes. Refused copies and followers a risk stop suspended are published as `copierFailure`,
 * copies gone missing as `copierDivergence`, for the notification center.
 */
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../../context.ts";
import { CopierEngine } from "./engine.ts";
import type { CopierDeps } from "./copyOne.ts";

const engines = new WeakMap<AppContext, CopierEngine>();

/** The engine of an app (tests reach it through the app's context). */
export function copierEngineOf(ctx: AppContext): CopierEngine | undefined {
  return engines.get(ctx);
}

/** What the engine and the resync use of the app. */
export function copierDepsOf(app: FastifyInstance): CopierDeps {
  const log = app.log.child({ module: "tradesCopier" });
  return {
    db: app.ctx.database.db,
    nodeId: app.ctx.config.node.id,
    connectorFor: (organizationId, platformId) => app.platforms.connectorFor(organizationId, platformId),
    failed: (row) => {
      const message = `A copy to account ${row.followerLogin} (${row.sourceAction} of source ${row.sourceId}) failed: ${row.reason ?? "refused"}`;
      void app.bus
        .publish(
          { type: "copierFailure", organizationId: row.organizationId, platformId: row.followerPlatformId, linkId: row.linkId, message },
          { ids: [`copierFailure:${row.requestId}`] },
        )
        .catch((err: unknown) => log.warn({ err }, "copier: a failure could not be published"));
    },
    notify: ({ id, ...event }) => {
      void app.bus.publish(event, { ids: [id] }).catch((err: unknown) => log.warn({ err }, `copier: a ${event.type} could not be published`));
    },
    log,
  };
}

export async function copierEnginePlugin(app: FastifyInstance) {
  const { id, feedLeaseTtlMs } = app.ctx.config.node;
  // A NODE_ID set by the operator is stable across restarts: its durable subscription resumes there.
  // Without one the id is random per process (server/config.ts): no durable consumer is left behind.
  const stable = !/^node-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id);
  const engine = new CopierEngine({
    ...copierDepsOf(app),
    bus: app.bus,
    ttlMs: feedLeaseTtlMs,
    ...(stable ? { durable: `copier-${id.replace(/[^A-Za-z0-9_-]/g, "_")}` } : {}),
  });
  const previous = engines.get(app.ctx);
  engines.set(app.ctx, engine);
  app.addHook("onReady", async () => engine.start());
  app.addHook("onClose", async () => {
    await engine.stop();
    if (engines.get(app.ctx) !== engine) return;
    if (previous) engines.set(app.ctx, previous);
    else engines.delete(app.ctx);
  });
}
