/**
 * The Quotes Monitor's comparison and settings routes (docs/quotes-monitor.md#comparison,
 * #holidays): the same instruments across the organization's platforms now, the organization's
 * symbol map, and its market holidays. Registered by ./routes.ts, behind the same guard.
 */
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { SymbolMapSchema } from "../../../core/schemas/quoteComparison.ts";
import { HolidaySchema, HolidaysSchema } from "../../../core/schemas/quoteHolidays.ts";
import { actorOf } from "../audit/record.ts";
import { readSettings } from "./settingsRepository.ts";
import { replaceHolidays, replaceSymbolMap } from "./settingsService.ts";

const tags = ["quotesMonitor"];
const read = { permission: { module: "quotesMonitor", value: "read" } } as const;
const write = { permission: { module: "quotesMonitor", value: "write" } } as const;

const ComparedQuoteAnswer = z.object({
  platformId: z.string(),
  symbol: z.string(),
  digits: z.number(),
  bid: z.number().nullable(),
  ask: z.number().nullable(),
  mid: z.number().nullable(),
  session: z.string(),
  lastTickAt: z.number().nullable(),
});
const ComparisonAnswer = z.object({
  now: z.number(),
  rows: z.array(
    z.object({
      instrument: z.string(),
      quotes: z.array(ComparedQuoteAnswer),
      highPlatformId: z.string().nullable(),
      lowPlatformId: z.string().nullable(),
      differencePoints: z.number().nullable(),
      threshold: z.number().nullable(),
    }),
  ),
});
const SymbolMapAnswer = SymbolMapSchema.meta({ description: "The organization's symbol map for the comparison and the cross-server rule" });
const HolidaysAnswer = z.object({ holidays: z.array(HolidaySchema) });

export async function quoteSettingsRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { db } = app.ctx.database;

  api.get(
    "/quotesMonitor/comparison",
    {
      config: read,
      schema: {
        tags,
        summary: "The same instruments across the organization's platforms now: each platform's quote and the difference in points",
        description:
          "Instruments quoted by two or more of the monitor's platforms, matched by the organization's symbol map. `differencePoints` is the highest minus " +
          "the lowest mid price among the open sessions, in points of the fewest digits; `threshold` the lowest of the enabled cross-server rules that cover it.",
        response: { 200: ComparisonAnswer },
      },
    },
    async (request) => app.quotesMonitor.comparisonOf(request.organization.id),
  );

  api.get(
    "/quotesMonitor/symbol-map",
    {
      config: read,
      schema: { tags, summary: "The organization's symbol map: prefixes and suffixes stripped, explicit pairs", response: { 200: SymbolMapAnswer } },
    },
    async (request) => (await readSettings(db, request.organization.id)).symbolMap,
  );

  api.put(
    "/quotesMonitor/symbol-map",
    {
      config: write,
      schema: { tags, summary: "Replace the organization's symbol map", body: SymbolMapSchema, response: { 200: SymbolMapAnswer } },
    },
    async (request) => {
      const map = await replaceSymbolMap(db, actorOf(request), request.body);
      await app.quotesMonitor.refresh();
      return map;
    },
  );

  api.get(
    "/quotesMonitor/holidays",
    { config: read, schema: { tags, summary: "The organization's market holidays", response: { 200: HolidaysAnswer } } },
    async (request) => ({ holidays: (await readSettings(db, request.organization.id)).holidays }),
  );

  api.put(
    "/quotesMonitor/holidays",
    {
      config: write,
      schema: { tags, summary: "Replace the organization's market holidays", body: HolidaysSchema, response: { 200: HolidaysAnswer } },
    },
    async (request) => {
      const holidays = await replaceHolidays(db, actorOf(request), request.body.holidays);
      await app.quotesMonitor.refresh();
      return { holidays };
    },
  );
}
