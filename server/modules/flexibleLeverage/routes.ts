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
import { z } from "zod";
import { AccountParamsSchema } from "../../../core/schemas/accounts.ts";
import { LeverageChangeSchema } from "../../../core/schemas/flexibleLeverage.ts";
import { NotFoundError } from "../../errors.ts";
import { actorOf } from "../audit/record.ts";
import { findPlatform } from "../tradePlatforms/repository.ts";
import { changesOfAccount, pluginChangesPlugin } from "./changes.ts";
import { flexibleLeverageRunnerOf, flexibleLeverageRunnerPlugin } from "./runner.ts";
import { forgetPopulation, previewSettings } from "./preview.ts";
import { getSettings, saveSettings, settingsHistory, type FlexibleLeverageDeps } from "./service.ts";

const tags = ["plugins"];

const SimulatorClockSchema = z
  .object({
    /** The server's clock (RFC 3339), e.g. a Saturday to see a weekend window; null: the real time again. */
    serverClock: z.iso.datetime({ offset: true, error: "serverClock must be an RFC 3339 time, such as 2026-12-05T10:00:00Z, or null" }).nullable(),
  })
  .strict();
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
  await app.register(pluginChangesPlugin);
  await app.register(flexibleLeverageRunnerPlugin);

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
    async (request) => {
      const view = await saveSettings(deps, actorOf(request), request.params.id, request.params.pluginId, request.body);
      forgetPopulation(deps, request.organization.id, request.params.id);
      // Rules Toolbox runs apply at once rather than at the next round (as a plugin applies a save).
      if (view.runBy === "toolbox") flexibleLeverageRunnerOf(app.ctx)?.refresh();
      return view;
    },
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

  api.get(
    "/accounts/:platformId/:login/leverageChanges",
    {
      config: { permission: { module: "users", value: "read" } },
      schema: {
        tags: ["accounts"],
        summary: "The account's leverage changes made by Flexible Leverage (the server's plugin or Toolbox's runner), newest first, at most 50",
        params: AccountParamsSchema,
        response: { 200: z.array(LeverageChangeSchema), 404: refusal("No such trade platform in this organization") },
      },
    },
    async (request) => {
      const { platformId, login } = request.params;
      const organizationId = request.organization.id;
      if (!(await findPlatform(app.ctx.database.db, organizationId, platformId))) throw new NotFoundError("No such trade platform in this organization.");
      const rows = await changesOfAccount(app.ctx.database.db, organizationId, platformId, login, 50);
      return rows.map((r) => ({
        id: r.id,
        at: r.changedAt.toISOString(),
        from: r.fromLeverage,
        to: r.toLeverage,
        rule: r.ruleName,
        tier: r.tierIndex,
        window: r.windowKind,
        reason: r.reason,
        source: r.source,
        status: r.status,
        error: r.error,
      }));
    },
  );

  api.post(
    "/tradePlatforms/:id/simulator/clock",
    {
      config: { permission: { module: "tradePlatforms", value: "write" } },
      schema: {
        tags: ["tradePlatforms"],
        summary:
          "Demo and tests: set a simulated server's own clock (or back to the real time), then run its Flexible Leverage plugin (or Toolbox's rules for it) at that time at once",
        params: z.object({ id: z.uuid({ error: "id must be a UUID" }) }),
        body: SimulatorClockSchema,
        response: {
          200: z.object({ serverTime: z.string(), changes: z.number().int() }),
          404: refusal("No such simulated platform (or it is not running on this node)"),
        },
      },
    },
    async (request) => {
      const platform = await findPlatform(app.ctx.database.db, request.organization.id, request.params.id);
      const server = platform ? app.platforms.simulatedServer(platform.id) : undefined;
      if (!platform || !server) throw new NotFoundError("No such simulated platform (or it is not running)");
      const { serverClock } = request.body;
      server.setServerClock(serverClock === null ? null : Date.parse(serverClock));
      await app.quotesMonitor.serverClockChanged(platform.id);
      // The plugin's round at the new time now (a recorded call, as its own rounds are), else Toolbox's round for it.
      let changes = server.engine.runFlexibleLeverage().length;
      const runner = flexibleLeverageRunnerOf(app.ctx);
      if (runner) changes += (await runner.round(platform.id)).applied.length;
      const offset = server.timeZoneOffsetMinutes * 60_000;
      return { serverTime: new Date(server.engine.ctx.clock.now() + offset).toISOString().slice(0, 19), changes };
    },
  );
}
