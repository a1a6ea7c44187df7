import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { listTradePlatformsOf } from "./repository.ts";
import { TradePlatformListSchema } from "./schemas.ts";

/**
 * SPEC §7 lists trade platforms without an organization: the answer covers every organization
 * of the caller, each platform with its organizationId; the UI shows the current one's (§6).
 */
export async function tradePlatformRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { db } = app.ctx.database;

  api.get(
    "/tradePlatforms",
    {
      config: { organization: "none" },
      schema: {
        tags: ["tradePlatforms"],
        summary: "Trade platforms of all the caller's organizations",
        response: { 200: TradePlatformListSchema },
      },
    },
    async (request) => listTradePlatformsOf(db, request.auth.sub),
  );
}
