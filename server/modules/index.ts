import type { FastifyInstance } from "fastify";
import { healthRoutes } from "./health/routes.ts";

/** Every /api module registers here; each owns its routes, schemas and repository. */
export async function registerApi(api: FastifyInstance) {
  await api.register(healthRoutes);
}
