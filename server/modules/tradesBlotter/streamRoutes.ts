/**
 * The Trades Blotter's live side over HTTP: the routes that list its platforms and open a stream
 * (./stream.ts), with the query's and `Last-Event-ID`'s checks.
 */
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { BlotterFiltersSchema, BLOTTER_SIDES } from "../../../core/schemas/blotterLive.ts";
import { optionalQuery } from "../../../core/schemas/query.ts";
import { TRADE_PLATFORM_TYPES } from "../../../core/trading/platform.ts";
import { InvalidRequestError } from "../../errors.ts";

const read = { permission: { module: "tradesBlotter", value: "read" } } as const;
const tags = ["tradesBlotter"];

const StreamQuerySchema = BlotterFiltersSchema.and(
  z.object({
    /** Resume after this event id (what `Last-Event-ID` says; the header wins). */
    after: optionalQuery(z.coerce.number({ error: "after must be an event id" }).int("after must be an event id").min(0, "after must be an event id")),
  }),
);

const BlotterPlatformListSchema = z.array(z.object({ id: z.string(), name: z.string(), type: z.enum(TRADE_PLATFORM_TYPES), timeZone: z.string() }));

/** The Trades Blotter's live side: its platforms, and the stream (./stream.ts). */
export async function blotterStreamRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const streams = app.blotterStreams;

  api.get(
    "/tradesBlotter/platforms",
    {
      config: read,
      schema: { tags, summary: "The organization's platforms with the Trades Blotter assigned", response: { 200: BlotterPlatformListSchema } },
    },
    async (request) => streams.platformsOf(request.organization.id),
  );

  api.get(
    "/tradesBlotter/stream",
    {
      exposeHeadRoute: false,
      // Open streams are re-checked against members' claims (streamAccess.ts): people only, for now.
      config: { ...read, callers: "people", rateLimit: { max: 60, timeWindow: "1 minute" } },
      schema: {
        tags,
        summary: "Every trade and deal on the blotter's platforms, live (text/event-stream)",
        description:
          "Filters as in the query (platforms, login, group and symbol masks, side " +
          BLOTTER_SIDES.join("/") +
          ", minLots, maxLots, text). Events: `platforms` [{id,name,type,timeZone}] at once and on change; " +
          "`snapshot` {rows} replaces what the client holds; `frame` {rows} (about every 50 ms, coalesced per row key). " +
          "`snapshot` and `frame` carry `id:`; send it back as `Last-Event-ID` (or `?after=`) to resume with nothing lost. A deal may come again (a row replaced by its key: same fields) when a resumed id falls between a snapshot and a deal the bus carried after it (docs/decisions/0088).",
        querystring: StreamQuerySchema,
        produces: ["text/event-stream"],
      },
    },
    async (request, reply) => {
      const header = request.headers["last-event-id"];
      let after = request.query.after;
      if (typeof header === "string" && header.trim() !== "") {
        // Up to 2^53: the in-process bus numbers from the clock (server/events/inProcess.ts), 16 digits.
        if (!/^\d{1,16}$/.test(header.trim()) || !Number.isSafeInteger(Number(header.trim())))
          throw new InvalidRequestError("Last-Event-ID must be an event id");
        after = Number(header.trim());
      }
      const { after: _after, ...filters } = request.query;
      await streams.open(request, reply, filters, after);
    },
  );
}
