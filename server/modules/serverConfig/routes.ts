/**
 * /api/tradePlatforms/{id}/config/… (docs/server-configuration.md): the server configuration
 * editors' API. Groups (Match-Trader: its offers), symbols and holidays with each one's version;
 * a list of staged changes applied one by one exactly as sent, each answered applied, invalid (the
 * platform's rule, in its words) or changed meanwhile (the server's object and version); the
 * platform's change history from the audit, with each entry's revert. Permission
 * `tradePlatforms` read for reads, write to apply; another organization's platform is 404.
 */
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { refusal } from "../../../core/schemas/apiError.ts";
import { actorOf } from "../audit/record.ts";
import { configHistory } from "./historyRepository.ts";
import { ApplyBodySchema, ApplyResultSchema, ConfigListSchema, ConfigParamsSchema, HistoryQuerySchema, HistorySchema, HolidayListSchema } from "./schemas.ts";
import { applyChanges, listGroups, listHolidays, listSymbolGroups, listSymbols, type ServerConfigDeps } from "./service.ts";

const tags = ["serverConfig"];
const read = { permission: { module: "tradePlatforms", value: "read" } } as const;
const write = { permission: { module: "tradePlatforms", value: "write" } } as const;
const reading = {
  404: refusal("No such trade platform in this organization"),
  409: refusal("The platform is disabled"),
  503: refusal("The platform is not connected"),
};

export async function serverConfigRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const deps: ServerConfigDeps = {
    db: app.ctx.database.db,
    connectorFor: (organizationId, platformId) => app.platforms.connectorFor(organizationId, platformId),
  };

  api.get(
    "/tradePlatforms/:id/config/groups",
    {
      config: read,
      schema: {
        tags,
        summary: "The server's groups (Match-Trader: one per offer) with each one's version",
        params: ConfigParamsSchema,
        response: { 200: ConfigListSchema, ...reading },
      },
    },
    async (request) => listGroups(deps, request.organization.id, request.params.id),
  );

  api.get(
    "/tradePlatforms/:id/config/symbols",
    {
      config: read,
      schema: { tags, summary: "The server's symbols with each one's version", params: ConfigParamsSchema, response: { 200: ConfigListSchema, ...reading } },
    },
    async (request) => listSymbols(deps, request.organization.id, request.params.id),
  );

  api.get(
    "/tradePlatforms/:id/config/symbolGroups",
    {
      config: read,
      schema: {
        tags,
        summary: "The server's symbol groups (the symbols' path tree: path, parent, every symbol under it) with each one's version",
        params: ConfigParamsSchema,
        response: { 200: ConfigListSchema, ...reading },
      },
    },
    async (request) => listSymbolGroups(deps, request.organization.id, request.params.id),
  );

  api.get(
    "/tradePlatforms/:id/config/holidays",
    {
      config: read,
      schema: {
        tags,
        summary: "The server's holidays and the list's version (supported: false where the platform keeps none Toolbox can reach)",
        params: ConfigParamsSchema,
        response: { 200: HolidayListSchema, ...reading },
      },
    },
    async (request) => listHolidays(deps, request.organization.id, request.params.id),
  );

  api.post(
    "/tradePlatforms/:id/config/apply",
    {
      config: write,
      schema: {
        tags,
        summary:
          "Apply staged changes one by one exactly as sent; each answered applied (new version), invalid (the rule's words) or changed (the server's object and version now)",
        params: ConfigParamsSchema,
        body: ApplyBodySchema,
        response: { 200: ApplyResultSchema, ...reading },
      },
    },
    async (request) => ({ results: await applyChanges(deps, actorOf(request), request.params.id, request.body.changes) }),
  );

  api.get(
    "/tradePlatforms/:id/config/history",
    {
      config: read,
      schema: {
        tags,
        summary: "The platform's configuration changes, newest first, per object (kind, name), each with its revert",
        params: ConfigParamsSchema,
        querystring: HistoryQuerySchema,
        response: { 200: HistorySchema, 404: refusal("No such trade platform in this organization") },
      },
    },
    async (request) => {
      // The platform must be this organization's: the same 404 as the other routes.
      await deps.connectorFor(request.organization.id, request.params.id);
      return { entries: await configHistory(deps.db, request.organization.id, request.params.id, request.query) };
    },
  );
}
