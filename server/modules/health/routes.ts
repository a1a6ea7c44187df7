import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";

const DependencyState = z.object({ state: z.enum(["up", "down"]), detail: z.string().optional() });
/** The event bus (server/events/): which one, its state, and the last sequence it handed out. Never its URL or credentials. */
const EventBusState = z.object({
  state: z.enum(["up", "connecting", "down"]),
  detail: z.string(),
  kind: z.enum(["in-process", "nats"]),
  lastSeq: z.number().int().nonnegative(),
});
export const HealthSchema = z.object({
  status: z.enum(["ok", "degraded"]),
  version: z.string(),
  dependencies: z.object({ database: DependencyState, identityProvider: DependencyState, eventBus: EventBusState }),
});
export type Health = z.infer<typeof HealthSchema>;

/** Is the service up, and each dependency with its state (docs/requirements.md#r-areas, /health). Open without a token. */
export async function healthRoutes(app: FastifyInstance) {
  app
    .withTypeProvider<ZodTypeProvider>()
    .get(
      "/health",
      { config: { auth: false }, schema: { tags: ["health"], summary: "Service and dependency health", response: { 200: HealthSchema, 503: HealthSchema } } },
      async (_req, reply) => {
        const health = await checkHealth(app);
        return reply.status(health.status === "ok" ? 200 : 503).send(health);
      },
    );
}

export async function checkHealth(app: FastifyInstance): Promise<Health> {
  const { database, config } = app.ctx;
  const database_ = await database.ping().then(
    () => ({ state: "up" as const, detail: database.kind }),
    () => ({ state: "down" as const, detail: `${database.kind} does not answer` }),
  );
  // The embedded provider is asked in-process; an external one over the network.
  const discovery = "/.well-known/openid-configuration";
  const idpStatus = config.oidc.embedded
    ? app.inject({ url: `/oidc${discovery}` }).then((r) => r.statusCode)
    : fetch(`${config.oidc.authority}${discovery}`, { signal: AbortSignal.timeout(2000) }).then((r) => r.status);
  const idp = await idpStatus.then(
    (status) =>
      status === 200 ? { state: "up" as const, detail: config.oidc.embedded ? "embedded" : "external" } : { state: "down" as const, detail: `HTTP ${status}` },
    () => ({ state: "down" as const, detail: "does not answer" }),
  );
  const eventBus = eventBusHealth(app);
  const ok = database_.state === "up" && idp.state === "up" && eventBus.state === "up";
  return {
    status: ok ? "ok" : "degraded",
    version: process.env.npm_package_version ?? "0.1.0",
    dependencies: { database: database_, identityProvider: idp, eventBus },
  };
}

function eventBusHealth(app: FastifyInstance): z.infer<typeof EventBusState> {
  const { kind, state, lastSeq, error } = app.bus.health();
  const name = kind === "nats" ? "NATS JetStream" : "in-process";
  // `error` names hosts only (server/events/nats.ts), never credentials.
  const detail = state === "up" ? `${name}, last sequence ${lastSeq}` : `${name}: ${error ?? state}`;
  return { state, detail, kind, lastSeq };
}
