/**
 * The Quotes Monitor's API (docs/quotes-monitor.md): its platforms, the live rows and the live
 * comparison (Server-Sent Events), a symbol's last hour, and the organization's alert rules.
 */
import { refusal } from "../../../core/schemas/apiError.ts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { ComparisonLiveFrame } from "../../../core/schemas/quoteComparison.ts";
import { AlertRuleInputSchema, QuoteFrameSchema, QuotePlatformSchema, type QuoteFrame } from "../../../core/schemas/quotesMonitor.ts";
import { NotFoundError } from "../../errors.ts";
import { sseHub } from "../../streams/sse.ts";
import { actorOf } from "../audit/record.ts";
import { LiveCursor } from "./monitor/live.ts";
import { listRules, monitorPlatforms } from "./repository.ts";
import * as service from "./service.ts";
import { quoteSettingsRoutes } from "./settingsRoutes.ts";

const tags = ["quotesMonitor"];
const read = { permission: { module: "quotesMonitor", value: "read" } } as const;
const write = { permission: { module: "quotesMonitor", value: "write" } } as const;
/** How often the live stream sends the rows that changed (a tick waits at most this long on the server). */
export const QUOTE_FRAME_MS = 100;
/** How often the comparison's live stream sends the instruments that changed. */
export const COMPARISON_FRAME_MS = 500;
/** A live stream whose socket holds more than this unsent skips frames: its next one carries the latest of each row. */
const SLOW_CONSUMER_BYTES = 1 << 20;

const IdParams = z.object({ id: z.uuid({ error: "id must be a UUID" }) });
const RuleAnswer = z
  .object({ id: z.string(), createdAt: z.string(), updatedAt: z.string() })
  .catchall(z.unknown())
  .meta({ description: "An alert rule: the fields of the request, with id, createdAt and updatedAt" });

export async function quotesMonitorRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { db } = app.ctx.database;
  const hub = sseHub();
  app.addHook("preClose", async () => hub.closeAll());

  api.get(
    "/quotesMonitor/platforms",
    {
      config: read,
      schema: {
        tags,
        summary: "The organization's platforms with the Quotes Monitor assigned, and why quotes do not arrive",
        response: { 200: z.array(QuotePlatformSchema) },
      },
    },
    // Read from the database: an assignment committed a moment ago shows at once.
    async (request) => app.quotesMonitor.platformsOf(request.organization.id, await monitorPlatforms(db, request.organization.id)),
  );

  api.get(
    "/quotesMonitor/rows",
    {
      config: read,
      schema: {
        tags,
        summary: "Every (platform, symbol) of the monitor now, as the live stream's snapshot: {now, rows, platforms}",
        response: { 200: QuoteFrameSchema.omit({ ticks: true, figures: true }) },
      },
    },
    async (request) => {
      const monitor = app.quotesMonitor;
      const organizationId = request.organization.id;
      const platforms = monitor.platformsOf(organizationId, await monitorPlatforms(db, organizationId));
      const frame: QuoteFrame = { now: monitor.now, rows: monitor.rowsOf(organizationId), platforms };
      return frame;
    },
  );

  api.get(
    "/quotesMonitor/live",
    {
      exposeHeadRoute: false,
      config: { ...read, callers: "people", rateLimit: { max: 60, timeWindow: "1 minute" } },
      schema: {
        tags,
        summary: "Every (platform, symbol) of the monitor, live (text/event-stream)",
        description:
          "Events: `snapshot` {now, rows, platforms} at once (replaces what the client holds); `frame` {now, rows, ticks, figures[, platforms]} " +
          `about every ${QUOTE_FRAME_MS} ms with what changed: \`ticks\` [key, bid, ask, spread, lastTickAt] for rows whose price moved; ` +
          "about once a second `figures` [key, ticksPerMinute, avgSpreadMinute, avgSpreadHour] for rows whose figures changed and " +
          "`rows` whole for rows new to the stream or whose session or alerts changed; " +
          "and the platforms when they changed. A client that reads slowly gets the latest of each row (frames are skipped, never queued).",
        produces: ["text/event-stream"],
      },
    },
    async (request, reply) => {
      const organizationId = request.organization.id;
      const stream = hub.open(request, reply);
      const cursor = new LiveCursor();
      let platformsSent = "";
      let first = true;
      const send = () => {
        // A slow reader: its socket still holds earlier frames; the next frame sends the latest of each row.
        if (stream.closed || stream.res.writableLength > SLOW_CONSUMER_BYTES) return;
        const monitor = app.quotesMonitor;
        const platforms = monitor.platformsOf(organizationId);
        const platformsNow = JSON.stringify(platforms);
        const { rows, ticks, figures } = monitor.changesSince(cursor, organizationId);
        const frame: QuoteFrame = first ? { now: monitor.now, rows } : { now: monitor.now, rows, ticks, figures };
        if (platformsNow !== platformsSent) {
          frame.platforms = platforms;
          platformsSent = platformsNow;
        }
        if (first || rows.length > 0 || ticks.length > 0 || figures.length > 0 || frame.platforms) stream.send(first ? "snapshot" : "frame", frame);
        first = false;
      };
      const timer = setInterval(send, QUOTE_FRAME_MS);
      stream.onClose(() => clearInterval(timer));
      send();
    },
  );

  api.get(
    "/quotesMonitor/comparison/live",
    {
      exposeHeadRoute: false,
      config: { ...read, callers: "people", rateLimit: { max: 60, timeWindow: "1 minute" } },
      schema: {
        tags,
        summary: "The same instruments across the organization's platforms, live (text/event-stream)",
        description:
          "Events: `snapshot` {now, rows, removed: []} at once (every row, as GET /quotesMonitor/comparison answers them); `frame` {now, rows, removed} " +
          `about every ${COMPARISON_FRAME_MS} ms with the rows that changed and the instruments no longer compared.`,
        produces: ["text/event-stream"],
      },
    },
    async (request, reply) => {
      const organizationId = request.organization.id;
      const stream = hub.open(request, reply);
      const sent = new Map<string, string>();
      let first = true;
      const send = () => {
        if (stream.closed) return;
        const { now, rows } = app.quotesMonitor.comparisonOf(organizationId);
        const frame: ComparisonLiveFrame = { now, rows: [], removed: [] };
        const present = new Set<string>();
        for (const row of rows) {
          present.add(row.instrument);
          const json = JSON.stringify(row);
          if (sent.get(row.instrument) === json) continue;
          sent.set(row.instrument, json);
          frame.rows.push(row);
        }
        for (const instrument of sent.keys())
          if (!present.has(instrument)) {
            sent.delete(instrument);
            frame.removed.push(instrument);
          }
        if (first || frame.rows.length > 0 || frame.removed.length > 0) stream.send(first ? "snapshot" : "frame", frame);
        first = false;
      };
      const timer = setInterval(send, COMPARISON_FRAME_MS);
      stream.onClose(() => clearInterval(timer));
      send();
    },
  );

  api.get(
    "/quotesMonitor/history",
    {
      config: read,
      schema: {
        tags,
        summary: "A symbol's last hour in 10-second slices: ticks, last bid and ask, average and widest spread",
        querystring: z.object({
          platformId: z.uuid({ error: "platformId must be a platform id" }),
          symbol: z.string({ error: "symbol is required" }).min(1, "symbol is required").max(64, "symbol has at most 64 characters"),
        }),
        response: {
          200: z.array(
            z.object({
              time: z.number(),
              ticks: z.number(),
              bid: z.number().nullable(),
              ask: z.number().nullable(),
              avgSpread: z.number().nullable(),
              maxSpread: z.number().nullable(),
            }),
          ),
        },
      },
    },
    async (request) => {
      const history = app.quotesMonitor.historyOf(request.organization.id, request.query.platformId.toLowerCase(), request.query.symbol);
      if (!history) throw new NotFoundError("The Quotes Monitor does not follow this symbol on this platform");
      return history;
    },
  );

  api.get(
    "/quotesMonitor/alert-rules",
    { config: read, schema: { tags, summary: "The organization's alert rules", response: { 200: z.array(RuleAnswer) } } },
    async (request) => listRules(db, request.organization.id),
  );

  api.post(
    "/quotesMonitor/alert-rules",
    {
      config: write,
      schema: {
        tags,
        summary: "Create an alert rule",
        body: AlertRuleInputSchema,
        response: { 201: RuleAnswer, 409: refusal("A rule with this name already exists") },
      },
    },
    async (request, reply) => {
      const rule = await service.createRule(db, actorOf(request), request.body);
      void app.quotesMonitor.refresh();
      return reply.status(201).send(rule);
    },
  );

  api.put(
    "/quotesMonitor/alert-rules/:id",
    {
      config: write,
      schema: {
        tags,
        summary: "Replace an alert rule",
        params: IdParams,
        body: AlertRuleInputSchema,
        response: { 200: RuleAnswer, 409: refusal("A rule with this name already exists") },
      },
    },
    async (request) => {
      const rule = await service.replaceRule(db, actorOf(request), request.params.id, request.body);
      void app.quotesMonitor.refresh();
      return rule;
    },
  );

  api.delete(
    "/quotesMonitor/alert-rules/:id",
    { config: write, schema: { tags, summary: "Delete an alert rule", params: IdParams, response: { 204: z.null() } } },
    async (request, reply) => {
      await service.removeRule(db, actorOf(request), request.params.id);
      void app.quotesMonitor.refresh();
      return reply.status(204).send(null);
    },
  );

  await quoteSettingsRoutes(app);
}
