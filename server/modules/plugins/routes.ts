/**
 * /api/tradePlatforms/{id}/plugins (docs/connectors.md, "Plugins"): the plugins a platform's
 * server runs, and a change to one (enable, disable, its parameters), audited. Permission
 * `plugins` read / write; the platform must be the OrganizationId header's organization's (else
 * 404). The platform's refusal is a 422 in its own words; a platform without plugins
 * (Match-Trader) lists `supported: false` and refuses a change with 422.
 */
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { refusal } from "../../../core/schemas/apiError.ts";
import { PluginListSchema, PluginParamsSchema, PluginSchema, PluginUpdateBodySchema } from "../../../core/schemas/plugins.ts";
import { actorOf } from "../audit/record.ts";
import { flexibleLeverageRoutes } from "../flexibleLeverage/routes.ts";
import { changePlugin, listPlugins, type PluginsDeps } from "./service.ts";

const tags = ["plugins"];
const read = { permission: { module: "plugins", value: "read" } } as const;
const write = { permission: { module: "plugins", value: "write" } } as const;

export async function pluginRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const deps: PluginsDeps = {
    db: app.ctx.database.db,
    connectorFor: (organizationId, platformId) => app.platforms.connectorFor(organizationId, platformId),
  };

  api.get(
    "/tradePlatforms/:id/plugins",
    {
      config: read,
      schema: {
        tags,
        summary: "The plugins the platform's server runs, with their parameters (supported: false where the platform has none)",
        params: PluginParamsSchema.pick({ id: true }),
        response: {
          200: PluginListSchema,
          404: refusal("No such trade platform in this organization"),
          409: refusal("The platform is disabled"),
          503: refusal("The platform is not connected"),
        },
      },
    },
    async (request) => listPlugins(deps, request.organization.id, request.params.id),
  );

  api.put(
    "/tradePlatforms/:id/plugins/:pluginId",
    {
      config: write,
      schema: {
        tags,
        summary: "Enable or disable a plugin and/or replace its parameters (the whole ordered list); answers the plugin as the server now has it",
        params: PluginParamsSchema,
        body: PluginUpdateBodySchema,
        response: {
          200: PluginSchema,
          404: refusal("No such trade platform, or the server runs no such plugin"),
          409: refusal("The platform is disabled"),
          422: refusal("The platform refused the change (its own words), or it has no plugins"),
          503: refusal("The platform is not connected"),
        },
      },
    },
    async (request) => changePlugin(deps, actorOf(request), request.params.id, request.params.pluginId, request.body),
  );

  // The Flexible Leverage plugin's rules, on top of its parameters (server/modules/flexibleLeverage/).
  await flexibleLeverageRoutes(app);
}
