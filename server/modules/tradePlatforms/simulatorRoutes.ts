/**
 * POST /api/tradePlatforms/{id}/simulator/faults: the demo tool that switches a simulated
 * platform's faults (server/connectors/simulated/faults.ts) while it runs, so a person trying
 * Toolbox (and the browser tests) can see an outage: the live state, the inbox, the channels.
 * Simulated platforms of the caller's organization only; real platforms answer 404.
 *
 * POST /api/tradePlatforms/{id}/simulator/quotes: the same for one symbol's feed (the Quotes
 * Monitor's demo and browser test): stop or resume it, widen its spread, set its tick rate, or
 * move the server's clock (a weekend shows closed markets).
 *
 * POST /api/tradePlatforms/{id}/simulator/trades: one of the simulated server's traders opens a
 * market position on its account, as a client terminal would (the Trades Copier's demo and browser
 * test: a source trade to copy). Toolbox's own order operations are the accounts' position actions.
 *
 * POST /api/tradePlatforms/{id}/simulator/orders: the same trader places a pending order a given
 * number of points from the market (the blotter's browser test: a waiting order that fills soon).
 */
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { randomUUID } from "node:crypto";
import { refusal } from "../../../core/schemas/apiError.ts";
import { lotsToVolume } from "../../../core/trading/volume.ts";
import { PENDING_ORDER_TYPES, pendingOrderSide } from "../../../core/trading/pendingOrder.ts";
import { pointSize } from "../../../core/trading/price.ts";
import { InvalidRequestError, NotFoundError } from "../../errors.ts";
import { findPlatform } from "./repository.ts";

const FaultSchema = z
  .object({
    /** `disconnect`: drop every connection now (and refuse new ones until `restore`); `restore`: back to normal. */
    action: z.enum(["disconnect", "restore"], { error: 'action must be "disconnect" or "restore"' }),
  })
  .strict();

const QuoteFaultSchema = z
  .object({
    /** The symbol whose feed changes; needed with `stopped`, `spreadFactor` or `ticksPerSecond`. */
    symbol: z.string({ error: "symbol must be text" }).min(1, "symbol must not be empty").max(64, "symbol has at most 64 characters").optional(),
    stopped: z.boolean({ error: "stopped must be true or false" }).optional(),
    spreadFactor: z
      .number({ error: "spreadFactor must be a number" })
      .min(1, "spreadFactor is at least 1")
      .max(1000, "spreadFactor is at most 1000")
      .optional(),
    ticksPerSecond: z
      .number({ error: "ticksPerSecond must be a number or null" })
      .min(0, "ticksPerSecond is at least 0")
      .max(1000, "ticksPerSecond is at most 1000")
      .nullable()
      .optional(),
    /** The server's own clock (RFC 3339), e.g. a Saturday to see closed markets; null: the real time again. */
    serverClock: z.iso.datetime({ offset: true, error: "serverClock must be an RFC 3339 time, such as 2026-11-28T12:00:00Z" }).nullable().optional(),
    /** Every symbol's feed back to normal and the real time, before any other change here. */
    restore: z.boolean({ error: "restore must be true or false" }).optional(),
  })
  .strict()
  .refine((b) => b.symbol !== undefined || (b.stopped === undefined && b.spreadFactor === undefined && b.ticksPerSecond === undefined), {
    message: "Name the symbol whose feed changes",
  });

const LotsSchema = z
  .number({ error: "lots must be a number" })
  .positive("lots must be more than 0")
  .max(100, "lots is at most 100")
  .refine((lots) => Math.abs(Math.round(lots * 100) - lots * 100) < 1e-9, "lots has at most 2 decimals");

const TraderOpenSchema = z
  .object({
    login: z.string({ error: "login must be text" }).regex(/^[0-9]{1,20}$/, "login must be the account's number"),
    symbol: z.string({ error: "symbol must be text" }).min(1, "symbol must not be empty").max(64, "symbol has at most 64 characters"),
    side: z.enum(["buy", "sell"], { error: 'side must be "buy" or "sell"' }),
    lots: LotsSchema,
  })
  .strict();

const TraderPendingSchema = z
  .object({
    login: z.string({ error: "login must be text" }).regex(/^[0-9]{1,20}$/, "login must be the account's number"),
    symbol: z.string({ error: "symbol must be text" }).min(1, "symbol must not be empty").max(64, "symbol has at most 64 characters"),
    type: z.enum(PENDING_ORDER_TYPES, { error: `type must be one of ${PENDING_ORDER_TYPES.join(", ")}` }),
    lots: LotsSchema,
    /** How far from the market (the ask for a buy, the bid for a sell), in the symbol's points: below it for a limit to buy or a stop to sell, above it otherwise. */
    points: z
      .number({ error: "points must be a number" })
      .int("points must be a whole number")
      .min(0, "points is at least 0")
      .max(1_000_000, "points is at most 1,000,000"),
  })
  .strict();

const QuoteFaultAnswer = z.object({
  symbol: z.string().nullable(),
  stopped: z.boolean(),
  spreadFactor: z.number(),
  ticksPerSecond: z.number().nullable(),
});

export async function simulatorRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  /** The running simulated server of one of the organization's platforms; 404 for any other. */
  const simulatedServerOf = async (organizationId: string, platformId: string) => {
    const platform = await findPlatform(app.ctx.database.db, organizationId, platformId);
    const server = platform ? app.platforms.simulatedServer(platform.id) : undefined;
    if (!platform || !server) throw new NotFoundError("No such simulated platform (or it is not running)");
    return { id: platform.id, server };
  };
  api.post(
    "/tradePlatforms/:id/simulator/faults",
    {
      config: { permission: { module: "tradePlatforms", value: "write" } },
      schema: {
        tags: ["tradePlatforms"],
        summary: "Demo: drop a simulated platform's connections (refusing new ones) or restore them",
        params: z.object({ id: z.uuid({ error: "id must be a UUID" }) }),
        body: FaultSchema,
        response: { 200: z.object({ action: z.string() }) },
      },
    },
    async (request) => {
      const { server } = await simulatedServerOf(request.organization.id, request.params.id);
      if (request.body.action === "disconnect") server.faults.disconnect({ refuseReconnect: true });
      else server.faults.restore();
      return { action: request.body.action };
    },
  );

  api.post(
    "/tradePlatforms/:id/simulator/quotes",
    {
      config: { permission: { module: "tradePlatforms", value: "write" } },
      schema: {
        tags: ["tradePlatforms"],
        summary: "Demo: stop or resume a simulated symbol's feed, widen its spread, set its tick rate, or move the server's clock",
        params: z.object({ id: z.uuid({ error: "id must be a UUID" }) }),
        body: QuoteFaultSchema,
        response: { 200: QuoteFaultAnswer },
      },
    },
    async (request) => {
      const { id, server } = await simulatedServerOf(request.organization.id, request.params.id);
      const { symbol, restore, serverClock, ...change } = request.body;
      const feed = server.engine.ctx.feed;
      if (symbol !== undefined && !feed.quote(symbol)) throw new InvalidRequestError(`The simulated server has no symbol ${symbol}`);
      if (restore) {
        feed.restoreControls();
        server.setServerClock(null);
      }
      if (serverClock !== undefined) server.setServerClock(serverClock === null ? null : Date.parse(serverClock));
      // The Quotes Monitor reads each server's clock every few seconds; this one now.
      if (serverClock !== undefined || restore) await app.quotesMonitor.serverClockChanged(id);
      if (symbol !== undefined) feed.control(symbol, change);
      return { symbol: symbol ?? null, ...(symbol !== undefined ? feed.controlOf(symbol) : { stopped: false, spreadFactor: 1, ticksPerSecond: null }) };
    },
  );

  api.post(
    "/tradePlatforms/:id/simulator/trades",
    {
      config: { permission: { module: "tradePlatforms", value: "write" } },
      schema: {
        tags: ["tradePlatforms"],
        summary: "Demo: a simulated account's trader opens a market position, as from a client terminal",
        params: z.object({ id: z.uuid({ error: "id must be a UUID" }) }),
        body: TraderOpenSchema,
        response: {
          200: z.object({ positionId: z.string(), volume: z.number(), price: z.number() }),
          422: refusal("Refused by the simulated server in its own words (a closed market, not enough margin, a disabled account)"),
        },
      },
    },
    async (request) => {
      const { server } = await simulatedServerOf(request.organization.id, request.params.id);
      const { login, symbol, side, lots } = request.body;
      if (!server.engine.ctx.state.accounts.has(login)) throw new InvalidRequestError(`The simulated server has no account ${login}`);
      if (!server.engine.ctx.feed.quote(symbol)) throw new InvalidRequestError(`The simulated server has no symbol ${symbol}`);
      // Refusals (a closed market, no money) are the server's own, in its words.
      const result = server.engine.placeOrder({ requestId: `trader-${randomUUID()}`, login, symbol, side, volume: lotsToVolume(lots), reason: "client" });
      return { positionId: result.positionId, volume: result.volume, price: result.price };
    },
  );

  api.post(
    "/tradePlatforms/:id/simulator/orders",
    {
      config: { permission: { module: "tradePlatforms", value: "write" } },
      schema: {
        tags: ["tradePlatforms"],
        summary: "Demo: a simulated account's trader places a pending order some points from the market, as from a client terminal",
        params: z.object({ id: z.uuid({ error: "id must be a UUID" }) }),
        body: TraderPendingSchema,
        response: {
          200: z.object({ orderId: z.string(), volume: z.number(), price: z.number() }),
          422: refusal("Refused by the simulated server in its own words (a level inside the stops level, a closed market, a disabled account)"),
        },
      },
    },
    async (request) => {
      const { server } = await simulatedServerOf(request.organization.id, request.params.id);
      const { login, symbol, type, lots, points } = request.body;
      const { state, feed } = server.engine.ctx;
      if (!state.accounts.has(login)) throw new InvalidRequestError(`The simulated server has no account ${login}`);
      const quote = feed.quote(symbol);
      if (!quote) throw new InvalidRequestError(`The simulated server has no symbol ${symbol}`);
      const { digits } = state.symbol(symbol);
      const market = pendingOrderSide(type) === "buy" ? quote.ask : quote.bid;
      const below = type === "buyLimit" || type === "sellStop";
      const distance = points * pointSize(digits);
      const price = Number((below ? market - distance : market + distance).toFixed(digits));
      // A level inside the stops level, like any other refusal, is the server's own, in its words.
      const result = server.engine.placePendingOrder({
        requestId: `trader-${randomUUID()}`,
        login,
        symbol,
        type,
        volume: lotsToVolume(lots),
        price,
        reason: "client",
      });
      return { orderId: result.orderId, volume: result.volume, price: result.price };
    },
  );
}
