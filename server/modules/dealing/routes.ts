/**
 * /api/tradePlatforms/{id}/dealing (docs/dealing.md): a platform's execution profiles, weekly
 * schedule and holidays (GET, PUT whole), the manual override (POST sets, DELETE ends), and the
 * profile in force with why and the next switch (GET …/active). Permission `dealing` read / write;
 * another organization's platform is 404. Every change is audited with before/after. The
 * scheduler (./scheduler.ts) runs with the app: it records each switch once across nodes and
 * applies the profile in force.
 */
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { ActiveProfileViewSchema, DealingSettingsSchema, DealingViewSchema, OverrideBodySchema } from "../../../core/dealing/index.ts";
import { refusal } from "../../../core/schemas/apiError.ts";
import { actorOf } from "../audit/record.ts";
import { dealingSchedulerPlugin, dealingSchedulerOf } from "./scheduler.ts";
import { endOverride, getDealing, putDealing, setOverride, type DealingDeps } from "./service.ts";

const tags = ["dealing"];
const read = { permission: { module: "dealing", value: "read" } } as const;
const write = { permission: { module: "dealing", value: "write" } } as const;
const Params = z.object({ id: z.guid({ error: "The platform id must be a UUID" }) });
const notFound = refusal("No such trade platform in this organization");

export async function dealingRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  await app.register(dealingSchedulerPlugin);
  const deps: DealingDeps = {
    db: app.ctx.database.db,
    now: () => Date.now(),
    changed: (platformId) => dealingSchedulerOf(app.ctx)?.refresh(platformId),
  };

  api.get(
    "/tradePlatforms/:id/dealing",
    {
      config: read,
      schema: {
        tags,
        summary: "The platform's execution profiles, weekly schedule, holidays and override, with the profile in force",
        params: Params,
        response: { 200: DealingViewSchema, 404: notFound },
      },
    },
    async (request) => getDealing(deps, request.organization.id, request.params.id),
  );

  api.get(
    "/tradePlatforms/:id/dealing/active",
    {
      config: read,
      schema: {
        tags,
        summary: "The profile in force now, why, since when, and the next switch",
        params: Params,
        response: { 200: ActiveProfileViewSchema, 404: notFound },
      },
    },
    async (request) => (await getDealing(deps, request.organization.id, request.params.id)).active,
  );

  api.put(
    "/tradePlatforms/:id/dealing",
    {
      config: write,
      schema: {
        tags,
        summary: "Replace the platform's execution profiles, weekly schedule and holidays (audited)",
        params: Params,
        body: DealingSettingsSchema,
        response: { 200: DealingViewSchema, 404: notFound },
      },
    },
    async (request) => putDealing(deps, actorOf(request), request.params.id, request.body),
  );

  api.post(
    "/tradePlatforms/:id/dealing/override",
    {
      config: write,
      schema: {
        tags,
        summary: "Put a profile in force until the given end, whatever the schedule says (audited)",
        params: Params,
        body: OverrideBodySchema,
        response: { 200: DealingViewSchema, 404: notFound },
      },
    },
    async (request) => setOverride(deps, actorOf(request), request.params.id, request.body),
  );

  api.delete(
    "/tradePlatforms/:id/dealing/override",
    {
      config: write,
      schema: {
        tags,
        summary: "End the manual override now (audited)",
        params: Params,
        response: { 200: DealingViewSchema, 404: refusal("No such trade platform in this organization, or no override in force") },
      },
    },
    async (request) => endOverride(deps, actorOf(request), request.params.id),
  );
}
