/**
 * POST /api/tradePlatforms/{id}/simulator/faults: the demo tool that switches a simulated
 * platform's faults (server/connectors/simulated/faults.ts) while it runs, so a person trying
 * Toolbox (and the browser tests) can see an outage: the live state, the inbox, the channels.
 * Simulated platforms of the caller's organization only; real platforms answer 404.
 */
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { NotFoundError } from "../../errors.ts";
import { findPlatform } from "./repository.ts";

const FaultSchema = z
  .object({
    /** `disconnect`: drop every connection now (and refuse new ones until `restore`); `restore`: back to normal. */
    action: z.enum(["disconnect", "restore"], { error: 'action must be "disconnect" or "restore"' }),
  })
  .strict();

export async function simulatorRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.post(
    "/tradePlatforms/:id/simulator/faults",
    {
      config: { permission: { module: "tradePlatforms", value: "write" } },
      schema: {
        tags: ["tradePlatforms"],
        summary: "Demo: drop a simulated platform's connections (refusing new ones) or restore them",
        params: z.object({ id: z.uuid({ error: "id must be a UUID" }) }),
        body: FaultSchema,
        response: { 200: z.object({ action: z.string() }) },
      },
    },
    async (request) => {
      const platform = await findPlatform(app.ctx.database.db, request.organization.id, request.params.id);
      const server = platform ? app.platforms.simulatedServer(platform.id) : undefined;
      if (!server) throw new NotFoundError("No such simulated platform (or it is not running)");
      if (request.body.action === "disconnect") server.faults.disconnect({ refuseReconnect: true });
      else server.faults.restore();
      return { action: request.body.action };
    },
  );
}
