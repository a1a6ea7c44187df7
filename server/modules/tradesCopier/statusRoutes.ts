/**
 * The copier's status routes (docs/trades-copier.md "Status"), tradesCopier:read, the
 * organization's links only: each link and follower with the ledger's figures; the failed and
 * skipped copies, newest first, paged; and the divergence between sources and followers, read
 * live from the platforms.
 */
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { CopierDivergenceSchema, CopierStatusSchema, COPY_EVENT_STATES, CopyEventsSchema } from "../../../core/schemas/copierStatus.ts";
import { InvalidRequestError } from "../../errors.ts";
import { copierDivergence } from "./divergence.ts";
import { copierStatus, skipText } from "./status.ts";
import { copyEvents } from "./statusRepository.ts";

const tags = ["tradesCopier"];
const read = { permission: { module: "tradesCopier", value: "read" } } as const;

const EventsQuery = z.object({
  linkId: z.uuid({ error: "linkId must be a copy link id" }).optional(),
  state: z.enum(COPY_EVENT_STATES, { error: "state must be failed or skipped" }).optional(),
  limit: z.coerce.number({ error: "limit must be a number" }).int().min(1).max(500).default(50),
  before: z.string().max(200).optional().meta({ description: "The `next` of the previous page" }),
});
const DivergenceQuery = z.object({ linkId: z.uuid({ error: "linkId must be a copy link id" }).optional() });

function cursorOf(before: string | undefined) {
  if (before === undefined) return undefined;
  const match = /^(\d{1,20})_(.{1,120})$/.exec(before);
  if (!match) throw new InvalidRequestError("before must be the `next` of the previous page");
  return { micros: match[1]!, requestId: match[2]! };
}

export async function tradesCopierStatusRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { db } = app.ctx.database;

  api.get(
    "/tradesCopier/status",
    {
      config: read,
      schema: {
        tags,
        summary: "Each copy link and follower: state, last copy, today's copies, failures and skips, latency p50/p99 per stage, a 24-hour latency series",
        description:
          "Today starts at midnight in the organization's time zone; latencies cover the copies decided in the last 24 hours, in milliseconds (nearest-rank percentiles).",
        response: { 200: CopierStatusSchema },
      },
    },
    async (request) => copierStatus(db, request.organization.id),
  );

  api.get(
    "/tradesCopier/status/events",
    {
      config: read,
      schema: {
        tags,
        summary: "The failed and skipped copies with their reasons, newest first, a page at a time",
        querystring: EventsQuery,
        response: { 200: CopyEventsSchema },
      },
    },
    async (request) => {
      const { linkId, state, limit, before } = request.query;
      const rows = await copyEvents(db, request.organization.id, { linkId, state, limit: limit + 1, before: cursorOf(before) });
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        events: page.map(({ micros: _micros, platformId, login, ...r }) => ({
          ...r,
          follower: { platformId, login },
          reasonText: r.state === "skipped" ? skipText(r.reason) : r.reason,
        })),
        next: rows.length > limit && last ? `${last.micros}_${last.requestId}` : null,
      };
    },
  );

  api.get(
    "/tradesCopier/status/divergence",
    {
      config: read,
      schema: {
        tags,
        summary: "Per follower: the source's open positions against the follower's copies (missing or extra), and the copies' floating P/L",
        description: "Read live from the platforms; a platform that cannot be read gives `known: false` and its error for the followers it concerns.",
        querystring: DivergenceQuery,
        response: { 200: CopierDivergenceSchema },
      },
    },
    async (request) => copierDivergence(db, app.platforms, request.organization.id, request.query.linkId),
  );
}
