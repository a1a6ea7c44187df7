import { findMemberAccess } from "../organizations/repository.ts";
import { refusal } from "../../../core/schemas/apiError.ts";
import { hasModuleAccess } from "../../../core/access.ts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { actorOf } from "../audit/record.ts";
import { liveStreams } from "./live.ts";
import { listTradePlatformsOf, platformIdsOf } from "./repository.ts";
import {
  AssignApplicationResultSchema,
  AssignApplicationSchema,
  CreatePlatformSchema,
  DeletePlatformSchema,
  PlatformAppsSchema,
  PlatformDetailSchema,
  PlatformIdParams,
  SetPlatformAppsSchema,
  TestConnectionResultSchema,
  TestConnectionSchema,
  TradePlatformListSchema,
  UpdatePlatformSchema,
} from "./schemas.ts";
import * as apps from "./apps.ts";
import { testConnection } from "./connectionTest.ts";
import type { PlatformDeps } from "./deps.ts";
import * as service from "./service.ts";

const read = { permission: { module: "tradePlatforms", value: "read" } } as const;
const write = { permission: { module: "tradePlatforms", value: "write" } } as const;
const tags = ["tradePlatforms"];

/**
 * Trade platforms: the list across the caller's organizations (docs/requirements.md#r-calls), and, in the current
 * organization (OrganizationId header), each platform's settings, connection, apps and live state.
 * Another organization's platform id answers 404, as if it did not exist.
 */
export async function tradePlatformRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { db } = app.ctx.database;
  const deps: PlatformDeps = { db, platforms: app.platforms, secrets: app.secrets, quotas: app.ctx.config.quotas };
  const live = liveStreams(app.platforms, app.bus);
  app.addHook("preClose", async () => live.closeAll());

  api.get(
    "/tradePlatforms",
    {
      config: { organization: "none" },
      schema: { tags, summary: "Trade platforms of all the caller's organizations, with their live state", response: { 200: TradePlatformListSchema } },
    },
    async (request) => {
      const { sub } = request.auth;
      const rows = await listTradePlatformsOf(db, sub);
      // Only the organizations this request could enter (the same rules as GET /:id with that
      // organization's header): the caller may read platforms there, and that organization's
      // security policy (allowed IP ranges, session lifetime, two-factor) admits this request.
      const admitted = new Set<string>();
      await Promise.all(
        [...new Set(rows.map((row) => row.organizationId))].map(async (organizationId) => {
          const member = await findMemberAccess(db, organizationId, sub);
          if (!member || !hasModuleAccess(member.claims, organizationId, "tradePlatforms", "read")) return;
          if (!request.policyAdmits(organizationId, member)) return;
          admitted.add(organizationId);
        }),
      );
      return rows
        .filter((row) => admitted.has(row.organizationId))
        .map((row) => {
          const { state, lastError } = app.platforms.liveState(row.id);
          return { ...row, state, lastError };
        });
    },
  );

  api.post(
    "/tradePlatforms",
    {
      config: write,
      schema: {
        tags,
        summary: "Connect a trade platform",
        body: CreatePlatformSchema,
        response: {
          201: PlatformDetailSchema,
          409: refusal("The organization already has a platform with this name"),
          422: refusal("Past a quota of this Toolbox (the message names it and its variable)"),
        },
      },
    },
    async (request, reply) => reply.status(201).send(await service.createPlatform(deps, actorOf(request), request.body)),
  );

  api.post(
    "/tradePlatforms/test-connection",
    {
      config: { ...write, rateLimit: { max: 30, timeWindow: "1 minute" } },
      schema: {
        tags,
        summary: "Try a connection without saving it; failures are explained",
        body: TestConnectionSchema,
        response: { 200: TestConnectionResultSchema },
      },
    },
    async (request) => testConnection(deps, request.organization.id, request.body),
  );

  api.post(
    "/tradePlatforms/assign-application",
    {
      config: write,
      schema: { tags, summary: "Assign an application to platforms", body: AssignApplicationSchema, response: { 200: AssignApplicationResultSchema } },
    },
    async (request) => apps.assignApplication(deps, actorOf(request), request.body.app, request.body.platformIds),
  );

  api.get(
    "/tradePlatforms/live",
    {
      // A stream that never ends is no answer to HEAD; opening many at once is throttled.
      exposeHeadRoute: false,
      config: { ...read, rateLimit: { max: 60, timeWindow: "1 minute" } },
      schema: {
        tags,
        summary: "Live connection states and server times (text/event-stream)",
        description: "Events `state` {platformId, state, lastError, serverTime?} and `removed` {platformId}; `: ping` every 15 s.",
        produces: ["text/event-stream"],
      },
    },
    async (request, reply) => {
      live.open(request, reply, await platformIdsOf(db, request.organization.id));
    },
  );

  api.get(
    "/tradePlatforms/:id",
    { config: read, schema: { tags, summary: "One platform", params: PlatformIdParams, response: { 200: PlatformDetailSchema } } },
    async (request) => service.getDetail(deps, request.organization.id, request.params.id),
  );

  api.patch(
    "/tradePlatforms/:id",
    {
      config: write,
      schema: {
        tags,
        summary: "Change a platform's name, time zone, connection or enable switch (a connection change reconnects)",
        params: PlatformIdParams,
        body: UpdatePlatformSchema,
        response: {
          200: PlatformDetailSchema,
          409: refusal("The organization already has a platform with this name"),
          422: refusal("Past a quota of this Toolbox (the message names it and its variable)"),
        },
      },
    },
    async (request) => service.updatePlatform(deps, actorOf(request), request.params.id, request.body),
  );

  api.delete(
    "/tradePlatforms/:id",
    {
      config: write,
      schema: {
        tags,
        summary: "Delete a platform (confirmed by its exact name); disconnects it and removes its apps and mirrored accounts",
        params: PlatformIdParams,
        body: DeletePlatformSchema,
        response: { 204: z.undefined().describe("Deleted") },
      },
    },
    async (request, reply) => {
      await service.deletePlatform(deps, actorOf(request), request.params.id, request.body.confirmName);
      return reply.status(204).send();
    },
  );

  api.get(
    "/tradePlatforms/:id/apps",
    { config: read, schema: { tags, summary: "Applications on a platform", params: PlatformIdParams, response: { 200: PlatformAppsSchema } } },
    async (request) => apps.getApps(deps, request.organization.id, request.params.id),
  );

  api.put(
    "/tradePlatforms/:id/apps",
    {
      config: write,
      schema: {
        tags,
        summary: "Switch applications on or off for a platform (apps not named stay as they are)",
        params: PlatformIdParams,
        body: SetPlatformAppsSchema,
        response: { 200: PlatformAppsSchema },
      },
    },
    async (request) => apps.setApps(deps, actorOf(request), request.params.id, request.body),
  );
}
