import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { countOrganizationsOf, listClaimsOf, provisionFirstOrganization, upsertUser } from "../organizations/repository.ts";
import { firstOrganizationName } from "./organizationName.ts";
import { PreflightSchema, UserClaimsSchema } from "./schemas.ts";

/** The caller themselves: the start-up preflight (SPEC §4) and their claims. Not about one organization. */
export async function profileRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { db } = app.ctx.database;

  api.get(
    "/profile/preflight",
    {
      config: { organization: "none" },
      schema: {
        tags: ["profile"],
        summary: "First call after sign-in",
        description:
          "Mirrors the person from the token. On the first sign-in of a new person, creates an empty organization with them as its administrator (exactly once).",
        response: { 200: PreflightSchema },
      },
    },
    async (request) => {
      const user = await upsertUser(db, request.auth);
      const created = user.provisionedAt ? null : await provisionFirstOrganization(db, user.sub, firstOrganizationName(user));
      return {
        user: { sub: user.sub, email: user.email, name: user.name },
        organizationCount: await countOrganizationsOf(db, user.sub),
        createdOrganizationId: created?.id,
        serverTime: new Date().toISOString(),
      };
    },
  );

  api.get(
    "/profile/user-claims",
    {
      config: { organization: "none" },
      schema: {
        tags: ["profile"],
        summary: "The caller's claims in every organization",
        response: { 200: UserClaimsSchema },
      },
    },
    async (request) => listClaimsOf(db, request.auth.sub),
  );
}
