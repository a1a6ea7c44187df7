import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { NotFoundError } from "../../errors.ts";
import { NOT_FOUND } from "../tradePlatforms/deps.ts";
import { findPlatform } from "../tradePlatforms/repository.ts";
import { csvStream } from "./csv.ts";
import { normalizeTimeZone } from "../../../core/schemas/timeZone.ts";
import { allDeals, dealTotals, dealsPage } from "./repository/deals.ts";
import { orderStreams } from "./ordersStream.ts";
import { tradeHistoryOf, tradeHistoryPlugin } from "./plugin.ts";
import { exposureRates } from "./exposureRates.ts";
import { positionsPage } from "./repository/positions.ts";
import { ordersPage } from "./repository/orders.ts";
import {
  BlotterDealFiltersSchema,
  BlotterDealExportSchema,
  BlotterDealPageSchema,
  BlotterDealQuerySchema,
  BlotterDealTotalsSchema,
  BlotterOrderPageSchema,
  BlotterOrderQuerySchema,
  BlotterOrderStreamQuerySchema,
  BlotterPositionPageSchema,
  BlotterPositionQuerySchema,
  ExposureRatesSchema,
  PlatformParamsSchema,
  TradeHistorySyncSchema,
} from "./schemas.ts";
import { getSync, syncView } from "./repository/syncState.ts";

const tags = ["tradesBlotter"];
const read = { permission: { module: "tradesBlotter", value: "read" } } as const;
const platformRead = { permission: { module: "tradePlatforms", value: "read" } } as const;

/**
 * The Trades Blotter's historical side: deals and open positions from the trade history store
 * (./store.ts), only of the organization's platforms with the blotter assigned. Reference:
 * docs/trades-blotter.md ("Historical API").
 */
export async function tradeHistoryRoutes(app: FastifyInstance) {
  await app.register(tradeHistoryPlugin);
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { db } = app.ctx.database;

  api.get(
    "/tradesBlotter/deals",
    {
      config: read,
      schema: {
        tags,
        summary: "Deals within [from, to) on the blotter's platforms, newest first, keyset paged",
        querystring: BlotterDealQuerySchema,
        response: { 200: BlotterDealPageSchema },
      },
    },
    async (request) => dealsPage(db, request.organization.id, request.query),
  );

  api.get(
    "/tradesBlotter/orders",
    {
      config: read,
      schema: {
        tags,
        summary: "Pending orders on the blotter's platforms, newest placed first, keyset paged: waiting ones (state=placed) or all with how they ended",
        querystring: BlotterOrderQuerySchema,
        response: { 200: BlotterOrderPageSchema },
      },
    },
    async (request) => ordersPage(db, request.organization.id, request.query),
  );

  const streams = orderStreams(db, app.bus, (platformId) => tradeHistoryOf(app.ctx)?.pendingEvents(platformId) ?? []);
  app.addHook("preClose", async () => streams.closeAll());
  api.get(
    "/tradesBlotter/orders/stream",
    {
      exposeHeadRoute: false,
      // Open streams are re-checked against members' claims (streamAccess.ts): people only, as the trades stream.
      config: { ...read, callers: "people", rateLimit: { max: 60, timeWindow: "1 minute" } },
      schema: {
        tags,
        summary: "The waiting pending orders on the blotter's platforms, live (text/event-stream)",
        description:
          "Filters as GET /api/tradesBlotter/orders. Events: `snapshot` {orders} every waiting order (no cap), then `orders` {upsert, remove}: " +
          "orders new or changed, and the keys of those that left (filled, cancelled, expired, no longer matching). Reopen it to start over.",
        querystring: BlotterOrderStreamQuerySchema,
        produces: ["text/event-stream"],
      },
    },
    async (request, reply) => streams.open(request, reply, request.query),
  );

  api.get(
    "/tradesBlotter/deals/totals",
    {
      config: read,
      schema: {
        tags,
        summary: "Totals of every deal matching the filters over the whole range: trading apart from deposits, withdrawals and credit",
        querystring: BlotterDealFiltersSchema,
        response: { 200: BlotterDealTotalsSchema },
      },
    },
    async (request) => dealTotals(db, request.organization.id, request.query),
  );

  api.get(
    "/tradesBlotter/deals.csv",
    {
      config: read,
      schema: {
        tags,
        summary:
          "Every deal matching the filters as CSV, streamed; X-Total-Count gives the number of data lines. Times as 'YYYY-MM-DD HH:MM:SS' in `timeZone` (default UTC), then each server's clock with its offset",
        querystring: BlotterDealExportSchema,
      },
    },
    async (request, reply) => {
      const { total, pages } = await allDeals(db, request.organization.id, request.query);
      const day = (iso: string) => iso.slice(0, 10);
      return reply
        .header("Content-Type", "text/csv; charset=utf-8")
        .header("Content-Disposition", `attachment; filename="trades-${day(request.query.from)}-${day(request.query.to)}.csv"`)
        .header("X-Total-Count", String(total))
        .header("Access-Control-Expose-Headers", "X-Total-Count, Content-Disposition")
        .send(csvStream(pages, request.query.timeZone ? (normalizeTimeZone(request.query.timeZone) ?? "UTC") : "UTC"));
    },
  );

  api.get(
    "/tradesBlotter/positions",
    {
      config: read,
      schema: {
        tags,
        summary: "Open positions on the blotter's platforms, newest opened first, keyset paged",
        querystring: BlotterPositionQuerySchema,
        response: { 200: BlotterPositionPageSchema },
      },
    },
    async (request) => positionsPage(db, request.organization.id, request.query),
  );

  api.get(
    "/tradesBlotter/exposure-rates",
    {
      config: read,
      schema: {
        tags,
        summary: "The organization's currency, and per symbol of each connected blotter platform its contract size, quote currency and rate to it",
        response: { 200: ExposureRatesSchema },
      },
    },
    async (request) => exposureRates(db, app.platforms, request.organization.id),
  );

  api.get(
    "/tradePlatforms/:id/trade-history",
    {
      config: platformRead,
      schema: {
        tags: ["tradePlatforms"],
        summary: "The trade history store's backfill progress and state for the platform",
        params: PlatformParamsSchema,
        response: { 200: TradeHistorySyncSchema },
      },
    },
    async (request) => {
      const platform = await findPlatform(db, request.organization.id, request.params.id);
      if (!platform) throw new NotFoundError(NOT_FOUND);
      return syncView(platform.id, await getSync(db, platform.id));
    },
  );
}
