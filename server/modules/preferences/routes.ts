import type { FastifyInstance } from "fastify";
import { refusal } from "../../../core/schemas/apiError.ts";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { getPreference, putPreference } from "./repository.ts";
import { PreferenceParamsSchema, PreferenceSchema, PutPreferenceSchema } from "./schemas.ts";

/**
 * The signed-in member's own settings in the current organization (grid columns and the like).
 * Any member may read and write their own; nobody else's is reachable.
 */
export async function preferenceRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { db } = app.ctx.database;
  const ownerOf = (request: { organization: { id: string }; auth: { sub: string } }) => ({
    organizationId: request.organization.id,
    userSub: request.auth.sub,
  });

  api.get(
    "/preferences/:key",
    {
      config: { callers: "people" },
      schema: {
        tags: ["preferences"],
        summary: "One of the caller's preferences in this organization (value null when never set)",
        params: PreferenceParamsSchema,
        response: { 200: PreferenceSchema, 422: refusal("Past a quota of this Toolbox (the message names it and its variable)") },
      },
    },
    async (request) => {
      const row = await getPreference(db, ownerOf(request), request.params.key);
      return { key: request.params.key, value: (row?.value ?? null) as never, updatedAt: row?.updatedAt.toISOString() ?? null };
    },
  );

  api.put(
    "/preferences/:key",
    {
      config: { callers: "people" },
      schema: {
        tags: ["preferences"],
        summary:
          "Store one of the caller's preferences in this organization (JSON, at most 32 KB; null clears it). At most TOOLBOX_MAX_PREFERENCE_KEYS keys per member: 422 past it",
        params: PreferenceParamsSchema,
        body: PutPreferenceSchema,
        response: { 200: PreferenceSchema, 422: refusal("Past a quota of this Toolbox (the message names it and its variable)") },
      },
    },
    async (request) => {
      const row = await putPreference(db, ownerOf(request), request.params.key, request.body.value ?? null, app.ctx.config.quotas);
      return { key: request.params.key, value: (row.value ?? null) as never, updatedAt: row.updatedAt.toISOString() };
    },
  );
}
