import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { OverviewSchema } from "../../../core/schemas/overview.ts";
import { overviewOf, overviewTimeZone } from "./repository.ts";

/**
 * GET /api/overview: per platform state and today's figures, and the 24-hour and 7-day series
 * (docs/overview.md), in the caller's days: their own zone, else the organization's, else UTC.
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
    async (request) => overviewOf(db, app.platforms, request.organization.id, await overviewTimeZone(db, request.organization.id, request.auth.sub)),
  );
}
