import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { OrganizationProfileInputSchema, OrganizationProfileSchema } from "../../../core/schemas/organization.ts";
import { actorOf } from "../audit/record.ts";
import { getOrganizationProfile, updateOrganizationProfile } from "./profile.ts";

const tags = ["organizations"];

/**
 * The current organization's profile (docs/administration.md "Organization profile"): every member
 * reads it; administrators (the `settings` write permission, which only they hold or give) change
 * its name, currency and default time zone, people only: an API client never renames the organization. What reads the
 * currency (the blotter's exposure rates) reads it on each request, so a change applies at once.
 */
export async function organizationProfileRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { db } = app.ctx.database;

  api.get(
    "/organization",
    {
      schema: {
        tags,
        summary: "The current organization's profile: name, currency, default time zone, when and by whom it was created",
        response: { 200: OrganizationProfileSchema },
      },
    },
    async (request) => getOrganizationProfile(db, request.organization.id),
  );

  api.patch(
    "/organization",
    {
      config: { permission: { module: "settings", value: "write" }, callers: "people" },
      schema: {
        tags,
        summary: "Change the organization's name, currency and/or default time zone (administrators; audited as organization.updated)",
        body: OrganizationProfileInputSchema,
        response: { 200: OrganizationProfileSchema },
      },
    },
    async (request) => updateOrganizationProfile(db, actorOf(request), request.body),
  );
}
