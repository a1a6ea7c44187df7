/**
 * The Trades Copier's copy links (docs/trades-copier.md "Links and the screen"): list, read, create, replace
 * (If-Match: the version read; 409 when stale), delete, a link or one follower on or off, and
 * resuming a follower a risk stop suspended.
 * Reads need tradesCopier:read, changes tradesCopier:write.
 */
import { refusal } from "../../../core/schemas/apiError.ts";
import type { FastifyInstance, FastifyReply } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { CopyLinkBodySchema, CopyLinkSchema, type CopyLink } from "../../../core/schemas/copier.ts";
import { LoginSchema } from "../../../core/schemas/accounts.ts";
import { NotFoundError } from "../../errors.ts";
import { InvalidRequestError } from "../../errors.ts";
import { actorOf } from "../audit/record.ts";
import { platformRuntimeOf } from "../accounts/platformPort.ts";
import { findLink, listLinks, platformsOf } from "./repository.ts";
import * as service from "./service.ts";
import { LinkInvalidError } from "./validation.ts";

const tags = ["tradesCopier"];
const read = { permission: { module: "tradesCopier", value: "read" } } as const;
const write = { permission: { module: "tradesCopier", value: "write" } } as const;

const LinkParams = z.object({ linkId: z.uuid({ error: "linkId must be a copy link id" }) });
const FollowerParams = LinkParams.extend({ platformId: z.uuid({ error: "platformId must be a platform id" }), login: LoginSchema });
const EnabledBody = z.object({ enabled: z.boolean({ error: "enabled must be true or false" }) }, { error: "The body must be {enabled}" });
const IfMatch = z.object({
  "if-match": z.string().optional().meta({ description: 'The version read (its ETag, e.g. "3"); a stale one answers 409' }),
});
const CopierPlatformSchema = z.object({ id: z.string(), name: z.string(), type: z.string() });

/** The version an If-Match names (`"3"`, `W/"3"` or `3`); undefined when absent. */
export function versionOf(ifMatch: string | undefined): number | undefined {
  if (ifMatch === undefined || ifMatch.trim() === "") return undefined;
  const match = /^(?:W\/)?"?(\d{1,9})"?$/.exec(ifMatch.trim());
  if (!match) throw new InvalidRequestError('If-Match must be the version read, such as "3"');
  return Number(match[1]);
}

function sendLink(reply: FastifyReply, link: CopyLink, status = 200) {
  return reply.status(status).header("etag", `"${link.version}"`).send(link);
}

/** A link refused field by field answers 400 with `issues` (the screen shows each on its field). */
async function withIssues<T>(reply: FastifyReply, run: () => Promise<T>): Promise<T | FastifyReply> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof LinkInvalidError)) throw error;
    return reply.status(400).send({ statusCode: 400, error: "Bad Request", message: error.message, issues: error.issues });
  }
}

export async function tradesCopierRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { db } = app.ctx.database;
  const deps: service.CopierDeps = { db, connectorFor: (organizationId, platformId) => platformRuntimeOf(app).connectorFor(organizationId, platformId) };

  api.get(
    "/tradesCopier/platforms",
    {
      config: read,
      schema: {
        tags,
        summary: "The organization's platforms with the Trades Copier assigned (a link's accounts are on these)",
        response: { 200: z.array(CopierPlatformSchema) },
      },
    },
    async (request) => (await platformsOf(db, request.organization.id)).filter((p) => p.copier).map(({ id, name, type }) => ({ id, name, type })),
  );

  api.get(
    "/tradesCopier/links",
    { config: read, schema: { tags, summary: "The organization's copy links, by name", response: { 200: z.array(CopyLinkSchema) } } },
    async (request) => listLinks(db, request.organization.id),
  );

  api.get(
    "/tradesCopier/links/:linkId",
    { config: read, schema: { tags, summary: "One copy link (its ETag is its version)", params: LinkParams, response: { 200: CopyLinkSchema } } },
    async (request, reply) => {
      const link = await findLink(db, request.organization.id, request.params.linkId);
      if (!link) throw new NotFoundError("No such copy link");
      return sendLink(reply, link);
    },
  );

  api.post(
    "/tradesCopier/links",
    {
      config: write,
      schema: {
        tags,
        summary: "Create a copy link: a source account and its followers, each with its settings",
        description:
          "400 with `issues` naming the field: an account following itself or twice, a platform without the Trades Copier, an account its platform does not have, a cycle across the organization's links. 404 for another organization's platform.",
        body: CopyLinkBodySchema,
        response: { 201: CopyLinkSchema },
      },
    },
    async (request, reply) => withIssues(reply, async () => sendLink(reply, await service.createLink(deps, actorOf(request), request.body), 201)),
  );

  api.put(
    "/tradesCopier/links/:linkId",
    {
      config: write,
      schema: {
        tags,
        summary: "Replace a copy link; If-Match must carry the version read (409 when someone changed it meanwhile)",
        params: LinkParams,
        headers: IfMatch,
        body: CopyLinkBodySchema,
        response: { 200: CopyLinkSchema, 409: refusal("Someone changed the link since it was read (a stale If-Match version): read it again") },
      },
    },
    async (request, reply) => {
      const version = versionOf(request.headers["if-match"]);
      if (version === undefined)
        throw new InvalidRequestError('Send the version you read in If-Match (such as "3"), so a change made meanwhile is not overwritten');
      return withIssues(reply, async () => sendLink(reply, await service.replaceLink(deps, actorOf(request), request.params.linkId, version, request.body)));
    },
  );

  api.delete(
    "/tradesCopier/links/:linkId",
    {
      config: write,
      schema: {
        tags,
        summary: "Delete a copy link (If-Match optional: 409 when stale)",
        params: LinkParams,
        headers: IfMatch,
        response: { 204: z.null(), 409: refusal("Someone changed the link since it was read (a stale If-Match version): read it again") },
      },
    },
    async (request, reply) => {
      await service.removeLink(deps, actorOf(request), request.params.linkId, versionOf(request.headers["if-match"]));
      return reply.status(204).send(null);
    },
  );

  api.put(
    "/tradesCopier/links/:linkId/enabled",
    {
      config: write,
      schema: {
        tags,
        summary: "Turn a copy link on or off (If-Match optional)",
        params: LinkParams,
        headers: IfMatch,
        body: EnabledBody,
        response: { 200: CopyLinkSchema, 409: refusal("Someone changed the link since it was read (a stale If-Match version): read it again") },
      },
    },
    async (request, reply) =>
      sendLink(
        reply,
        await service.setLinkEnabled(deps, actorOf(request), request.params.linkId, request.body.enabled, versionOf(request.headers["if-match"])),
      ),
  );

  api.put(
    "/tradesCopier/links/:linkId/followers/:platformId/:login/enabled",
    {
      config: write,
      schema: {
        tags,
        summary: "Turn one follower of a copy link on or off (If-Match optional)",
        params: FollowerParams,
        headers: IfMatch,
        body: EnabledBody,
        response: { 200: CopyLinkSchema, 409: refusal("Someone changed the link since it was read (a stale If-Match version): read it again") },
      },
    },
    async (request, reply) => {
      const { linkId, platformId, login } = request.params;
      const version = versionOf(request.headers["if-match"]);
      return sendLink(reply, await service.setFollowerEnabled(deps, actorOf(request), linkId, { platformId, login }, request.body.enabled, version));
    },
  );

  api.post(
    "/tradesCopier/links/:linkId/followers/:platformId/:login/resume",
    {
      config: write,
      schema: {
        tags,
        summary: "Resume a follower a risk stop suspended (audited); a follower not suspended is left as is",
        description:
          "The stop is checked again at the follower's next new copy and the engine's next pass: a follower still beyond its equity floor or daily loss limit is suspended again. 404 for another organization's link or an account that is not its follower.",
        params: FollowerParams,
        response: { 200: CopyLinkSchema, 404: refusal("No such copy link, or the account is not one of its followers") },
      },
    },
    async (request, reply) => {
      const { linkId, platformId, login } = request.params;
      return sendLink(reply, await service.resumeFollower(deps, actorOf(request), linkId, { platformId, login }));
    },
  );
}
