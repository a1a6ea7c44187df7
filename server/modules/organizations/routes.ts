import type { FastifyInstance } from "fastify";
import { refusal } from "../../../core/schemas/apiError.ts";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { createOrganizationWithAdmin, listOrganizationsWithRoleOf, upsertUser } from "./repository.ts";
import { CreateOrganizationSchema, OrganizationListSchema, OrganizationSchema } from "./schemas.ts";

/** The caller's organizations; not scoped to a current one (the UI picks it from this list). */
export async function organizationRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { db } = app.ctx.database;

  api.get(
    "/organizations",
    {
      config: { organization: "none" },
      schema: { tags: ["organizations"], summary: "Organizations the caller belongs to", response: { 200: OrganizationListSchema } },
    },
    async (request) => {
      const rows = await listOrganizationsWithRoleOf(db, request.auth.sub);
      return rows.map((o) => ({ ...o, createdAt: o.createdAt.toISOString() }));
    },
  );

  api.post(
    "/organizations",
    {
      config: { organization: "none" },
      schema: {
        tags: ["organizations"],
        summary: "Create an organization, with the caller as its administrator (at most TOOLBOX_MAX_ORGANIZATIONS_PER_PERSON per person: 422 past it)",
        body: CreateOrganizationSchema,
        response: { 201: OrganizationSchema, 422: refusal("Past a quota of this Toolbox (the message names it and its variable)") },
      },
    },
    async (request, reply) => {
      // The membership refers to the person, who may not have been mirrored yet (no preflight).
      await upsertUser(db, request.auth);
      const org = await createOrganizationWithAdmin(db, { name: request.body.name, adminSub: request.auth.sub }, app.ctx.config.quotas, {
        sub: request.auth.sub,
        name: request.auth.name ?? request.auth.email ?? null,
        sourceIp: request.ip ?? null,
      });
      return reply.status(201).send({ ...org, createdAt: org.createdAt.toISOString(), isAdmin: true });
    },
  );
}
