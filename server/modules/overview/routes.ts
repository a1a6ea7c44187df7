import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { OverviewSchema } from "../../../core/schemas/overview.ts";
import { hasModuleAccess } from "../../../core/access.ts";
import { copierTotals } from "../tradesCopier/status.ts";
import { overviewOf, overviewTimeZone } from "./repository.ts";

/**
 * GET /api/overview: per platform state and today's figures, and the 24-hour and 7-day series
 * (docs/overview.md), in the caller's days: their own zone, else the organization's, else UTC;
 * and the copier's tile for a member who may read the copier.
 */
export async function overviewRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { db } = app.ctx.database;
  api.get(
    "/overview",
    {
      config: { permission: { module: "tradePlatforms", value: "read" } },
      schema: {
        tags: ["overview"],
        summary: "The organization at a glance: each platform's state, accounts, open positions and today's figures; volume and P/L series",
        response: { 200: OverviewSchema },
      },
    },
    async (request) => {
      const { id, claims } = request.organization;
      const [overview, copier] = await Promise.all([
        overviewTimeZone(db, id, request.auth.sub).then((zone) => overviewOf(db, app.platforms, id, zone)),
        hasModuleAccess(claims, id, "tradesCopier", "read") ? copierTotals(db, id) : null,
      ]);
      return { ...overview, copier };
    },
  );
}
