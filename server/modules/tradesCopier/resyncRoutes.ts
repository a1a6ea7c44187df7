/**
 * A follower's resync (docs/trades-copier.md "Resync"), and the copier engine's start with the
 * app (./engine/plugin.ts):
 *  - GET  /tradesCopier/links/:linkId/followers/:platformId/:login/resync: the plan (read);
 *  - POST the same path: carries out the plan through the ledger (write); a repeat does nothing twice.
 */
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { LoginSchema } from "../../../core/schemas/accounts.ts";
import { refusal } from "../../../core/schemas/apiError.ts";
import { ResyncPlanSchema, ResyncResultSchema } from "../../../core/schemas/copierResync.ts";
import { NotFoundError } from "../../errors.ts";
import type { EngineLink } from "./engine/copyOne.ts";
import { copierDepsOf, copierEnginePlugin } from "./engine/plugin.ts";
import { executeResync, resyncPlan } from "./engine/resync.ts";
import { suspensionOf } from "./engine/riskRepository.ts";
import { findLink } from "./repository.ts";

const tags = ["tradesCopier"];
const read = { permission: { module: "tradesCopier", value: "read" } } as const;
const write = { permission: { module: "tradesCopier", value: "write" } } as const;
const Params = z.object({
  linkId: z.uuid({ error: "linkId must be a copy link id" }),
  platformId: z.uuid({ error: "platformId must be a platform id" }),
  login: LoginSchema,
});
const responses = {
  404: refusal("No such copy link, or the account is not one of its followers"),
  409: refusal("A platform of the link is disabled"),
  422: refusal("A platform of the link refused to answer what the plan reads (its words)"),
  503: refusal("A platform of the link is not connected now"),
};

export async function tradesCopierResyncRoutes(app: FastifyInstance) {
  await app.register(copierEnginePlugin);
  const api = app.withTypeProvider<ZodTypeProvider>();
  const deps = copierDepsOf(app);

  async function target(organizationId: string, params: z.infer<typeof Params>) {
    const link = await findLink(deps.db, organizationId, params.linkId);
    const follower = link?.followers.find((f) => f.account.platformId === params.platformId && f.account.login === params.login);
    if (!link || !follower) throw new NotFoundError("No such follower of this copy link");
    const engineLink: EngineLink = {
      id: link.id,
      organizationId,
      enabled: link.enabled,
      sourcePlatformId: link.source.platformId,
      sourceLogin: link.source.login,
      // With its recorded suspension: a suspended follower's resync opens nothing (the rules skip new exposure).
      followers: [{ ...follower, addedAt: 0, suspension: await suspensionOf(deps.db, link.id, params.platformId, params.login) }],
    };
    return { link: engineLink, follower };
  }

  const path = "/tradesCopier/links/:linkId/followers/:platformId/:login/resync";
  api.get(
    path,
    {
      config: read,
      schema: {
        tags,
        summary: "What a resync of this follower would do: open what the source has and the follower lacks, close what it copied that the source no longer has",
        params: Params,
        response: { 200: ResyncPlanSchema, ...responses },
      },
    },
    async (request) => {
      const { link, follower } = await target(request.organization.id, request.params);
      return resyncPlan(deps, link, follower);
    },
  );

  api.post(
    path,
    {
      config: write,
      schema: {
        tags,
        summary: "Resync this follower: carries out the plan GET shows, through the copier's ledger (a repeat does nothing twice)",
        params: Params,
        response: { 200: ResyncResultSchema, ...responses },
      },
    },
    async (request) => {
      const { link, follower } = await target(request.organization.id, request.params);
      return executeResync(deps, link, follower);
    },
  );
}
