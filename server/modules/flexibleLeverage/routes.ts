/**
 * /api/tradePlatforms/{id}/plugins/{pluginId}/flexibleLeverage (docs/flexible-leverage.md "API"):
 * a Flexible Leverage plugin's rules read and saved, and the preview of rules as drafted over the
 * platform's accounts. Permission `plugins` read (GET, and the preview, which changes nothing) /
 * write (PUT); the platform must be the OrganizationId header's organization's (else 404). Invalid
 * rules are a 400 with the schema's messages; what the platform cannot keep, a 422 in words.
 */
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { FlexibleLeverageSettingsSchema } from "../../../core/flexibleLeverage/index.ts";
import { refusal } from "../../../core/schemas/apiError.ts";
import {
  FlexibleLeverageHistorySchema,
  FlexibleLeverageParamsSchema,
  FlexibleLeveragePreviewBodySchema,
  FlexibleLeveragePreviewSchema,
  FlexibleLeverageViewSchema,
} from "../../../core/schemas/flexibleLeverage.ts";
import { actorOf } from "../audit/record.ts";
import { previewSettings } from "./preview.ts";
import { getSettings, saveSettings, settingsHistory, type FlexibleLeverageDeps } from "./service.ts";

const tags = ["plugins"];
const read = { permission: { module: "plugins", value: "read" } } as const;
const write = { permission: { module: "plugins", value: "write" } } as const;
const PATH = "/tradePlatforms/:id/plugins/:pluginId/flexibleLeverage";
const common = {
  404: refusal("No such trade platform in this organization, or its server runs no such Flexible Leverage plugin"),
  409: refusal("The platform is disabled"),
  503: refusal("The platform is not connected"),
};

export async function flexibleLeverageRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const deps: FlexibleLeverageDeps = {
    db: app.ctx.database.db,
    connectorFor: (organizationId, platformId) => app.platforms.connectorFor(organizationId, platformId),
  };

  api.get(
    PATH,
    {
      config: read,
      schema: {
        tags,
        summary: "The Flexible Leverage plugin's settings (read from its parameters), with warnings against the server's groups and symbols",
        params: FlexibleLeverageParamsSchema,
        response: { 200: FlexibleLeverageViewSchema, ...common },
      },
    },
    async (request) => getSettings(deps, request.organization.id, request.params.id, request.params.pluginId),
  );

  api.put(
    PATH,
    {
      config: write,
      schema: {
        tags,
        summary: "Saves the rules and managers into the plugin's parameters (Managers, Rules.1…N); audited with before and after",
        params: FlexibleLeverageParamsSchema,
        body: FlexibleLeverageSettingsSchema,
        response: {
          200: FlexibleLeverageViewSchema,
          ...common,
          422: refusal("The platform cannot keep these settings (MT4's parameter sizes), or refused them in its own words"),
        },
      },
    },
    async (request) => saveSettings(deps, actorOf(request), request.params.id, request.params.pluginId, request.body),
  );

  api.post(
    `${PATH}/preview`,
    {
      config: read,
      schema: {
        tags,
        summary:
          'Rules as drafted over the platform\'s accounts: per account the rule, tier or window, the leverage and why, and the counts; searched by login, paged; "what if" a time or an equity',
        params: FlexibleLeverageParamsSchema,
        body: FlexibleLeveragePreviewBodySchema,
        response: { 200: FlexibleLeveragePreviewSchema, ...common },
      },
    },
    async (request) => previewSettings(deps, request.organization.id, request.params.id, request.params.pluginId, request.body),
  );

  api.get(
    `${PATH}/history`,
    {
      config: read,
      schema: {
        tags,
        summary: "The saves of the plugin's settings made from Toolbox, newest first, each with the settings it wrote (to revert: load one, preview, save)",
        params: FlexibleLeverageParamsSchema,
        response: { 200: FlexibleLeverageHistorySchema, 404: common[404] },
      },
    },
    async (request) => settingsHistory(deps, request.organization.id, request.params.id, request.params.pluginId),
  );
}
