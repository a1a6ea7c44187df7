import type { FastifyInstance } from "fastify";
import { refusal } from "../../../core/schemas/apiError.ts";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { ApiClientCreatedSchema, ApiClientParamsSchema, ApiClientSchema, CreateApiClientSchema } from "../../../core/schemas/apiClients.ts";
import { actorOf } from "../audit/record.ts";
import { listApiClients } from "./repository.ts";
import * as service from "./service.ts";

/** Listing and managing clients is an administrator's task (settings), and never a client's own. */
const read = { permission: { module: "settings", value: "read" }, callers: "people" } as const;
const write = { permission: { module: "settings", value: "write" }, callers: "people" } as const;
const tags = ["api clients"];

/** API clients of the current organization: machine access with client credentials (docs/api.md). */
export async function apiClientRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { db } = app.ctx.database;
  const deps: service.ApiClientsDeps = {
    db,
    accessChanged(organizationId) {
      app.access.organizationChanged(organizationId);
    },
  };

  api.get(
    "/organization/api-clients",
    {
      config: read,
      schema: { tags, summary: "API clients of the current organization: id, permissions, creator, last use", response: { 200: z.array(ApiClientSchema) } },
    },
    async (request) => (await listApiClients(db, request.organization.id)).map(service.apiClientView),
  );

  api.post(
    "/organization/api-clients",
    {
      config: write,
      schema: {
        tags,
        summary: "Create an API client: its secret is in this answer only (422 when giving permissions you do not have)",
        description:
          "The client gets tokens from the identity provider's token endpoint with the client-credentials grant (HTTP Basic with its id and secret), and may then call the API in this organization with the permissions given here.",
        body: CreateApiClientSchema,
        response: { 201: ApiClientCreatedSchema, 422: refusal("Permissions the caller does not have cannot be given") },
      },
    },
    async (request, reply) => {
      const created = await service.createApiClient(deps, actorOf(request), request.organization.claims, request.body);
      return reply.status(201).header("Cache-Control", "no-store").send(created);
    },
  );

  api.delete(
    "/organization/api-clients/:clientId",
    {
      config: write,
      schema: { tags, summary: "Revoke an API client: no new tokens, and its current tokens are refused at once", params: ApiClientParamsSchema },
    },
    async (request, reply) => {
      await service.revokeApiClient(deps, actorOf(request), request.params.clientId);
      return reply.status(204).send();
    },
  );
}
