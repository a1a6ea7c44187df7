import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { listMembers } from "./repository.ts";
import { MemberListSchema } from "./schemas.ts";

/** Members of the current organization (the OrganizationId header), guarded by `members:read`. */
export async function memberRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { db } = app.ctx.database;

  api.get(
    "/members",
    {
      config: { permission: { module: "members", value: "read" } },
      schema: { tags: ["members"], summary: "Members of the current organization and their claims", response: { 200: MemberListSchema } },
    },
    async (request) => {
      const members = await listMembers(db, request.organization.id);
      return members.map((m) => ({ ...m, joinedAt: m.joinedAt.toISOString() }));
    },
  );
}
