import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { countOrganizationsOf, listClaimsOf, provisionFirstOrganization, upsertUser } from "../organizations/repository.ts";
import { firstOrganizationName } from "./organizationName.ts";
import { hasPendingInvitation, recordSignIn } from "../members/repository.ts";
import { PreflightSchema, UserClaimsSchema } from "./schemas.ts";

/** The caller themselves: the start-up preflight (docs/requirements.md#r-states) and their claims. Not about one organization. */
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
          "Mirrors the person from the token and notes the sign-in. On the first sign-in of a new person, creates an empty organization with them as its administrator (exactly once) — unless an invitation to their e-mail address is pending.",
        response: { 200: PreflightSchema },
      },
    },
    async (request) => {
      const user = await upsertUser(db, request.auth);
      await recordSignIn(db, user.sub);
      // Someone invited joins through the link: no empty organization of their own first (it is
      // made at a later sign-in if they never accept).
      const invited = !user.provisionedAt && user.email !== null && (await hasPendingInvitation(db, user.email));
      const created = user.provisionedAt || invited ? null : await provisionFirstOrganization(db, user.sub, firstOrganizationName(user));
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
    // From the guard's cache, dropped on the database's announcements (server/http/auth/accessState.ts).
    async (request) => request.claimsEverywhere(() => listClaimsOf(db, request.auth.sub)),
  );
}
