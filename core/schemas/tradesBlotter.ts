/**
 * The Trades Blotter's historical API, written once: the server validates and shapes with these
 * (server/modules/tradeHistory/), the OpenAPI document shows them, the blotter screen infers its
 * types from them. Reference: docs/trades-blotter.md ("Historical API"). Money is a two-decimal string
 * (decision 0019), volume a string of lots, times ISO 8601 UTC with milliseconds.
 */
import { z } from "zod";
import { LotsSchema as lots, MoneySchema as money, NativeIdsSchema as native } from "./accountViews.ts";
import { DEAL_ACTIONS, DEAL_ENTRIES } from "../trading/deal.ts";
import { SIDES } from "../trading/position.ts";
import { PENDING_ORDER_TYPES } from "../trading/pendingOrder.ts";
import { blankToUndefined, optionalQuery } from "./query.ts";
import { isTimeZone } from "./timeZone.ts";

/** The longest date range one query may ask for. */
export const BLOTTER_MAX_RANGE_DAYS = 366;
/** The most rows one page may ask for, and the default. */
export const BLOTTER_PAGE_LIMIT_MAX = 1000;
export const BLOTTER_PAGE_LIMIT_DEFAULT = 200;
/** A first page counts matching rows up to this many; beyond it `total` is this and `totalCapped` is true. */
export const BLOTTER_TOTAL_CAP = 10_000;

const utc = z.iso.datetime().meta({ description: "UTC, ISO 8601 with milliseconds" });
const serverTime = z.string().meta({ description: "The same instant on the platform's clock (its time zone), 'YYYY-MM-DD HH:MM:SS.mmm'" });

/** One deal as the blotter lists it (a row of the grid, a line of the CSV). */
export const BlotterDealSchema = z.object({
  /** Unique across the organization: `<platformId>:<dealId>`; the grid's row id. */
  key: z.string(),
  platformId: z.guid(),
  platformName: z.string(),
  /** The platform's deal id as the connector names it (MT4 ticket, MT5 deal, Match-Trader id). */
  dealId: z.string(),
  /** What a dealer calls it on that platform: MT4 ticket, MT5 deal number, Match-Trader id. */
  ticket: z.string(),
  login: z.string(),
  /** The account's group now (from the accounts mirror); "" while the account is not mirrored yet. */
  group: z.string(),
  time: utc,
  serverTime,
  action: z.enum(DEAL_ACTIONS),
  /** buy or sell for trades; null for balance and credit deals. */
  side: z.enum(SIDES).nullable(),
  entry: z.enum(DEAL_ENTRIES).nullable(),
  positionId: z.string().nullable(),
  symbol: z.string().nullable(),
  volume: lots,
  price: z.number(),
  sl: z.number().nullable(),
  tp: z.number().nullable(),
  profit: money,
  commission: money,
  swap: money,
  reason: z.string(),
  comment: z.string(),
  native,
});
export type BlotterDeal = z.infer<typeof BlotterDealSchema>;

/** One open position as the store holds it now. */
export const BlotterPositionSchema = z.object({
  /** `<platformId>:<positionId>`. */
  key: z.string(),
  platformId: z.guid(),
  platformName: z.string(),
  positionId: z.string(),
  ticket: z.string(),
  login: z.string(),
  group: z.string(),
  symbol: z.string(),
  side: z.enum(SIDES),
  volume: lots,
  openTime: utc,
  serverOpenTime: serverTime,
  openPrice: z.number(),
  currentPrice: z.number(),
  sl: z.number().nullable(),
  tp: z.number().nullable(),
  profit: money,
  swap: money,
  reason: z.string(),
  comment: z.string(),
  native,
  /** When the store last changed this position (an event or a backfill). */
  updatedAt: utc,
});
export type BlotterPosition = z.infer<typeof BlotterPositionSchema>;

/**
 * `ended`: the order left the book while Toolbox did not follow the platform (down, not connected)
 * and how is not known: a backfill found it no longer waiting, and no open position names it.
 */
export const PENDING_ORDER_STATES = ["placed", "filled", "cancelled", "expired", "ended"] as const;

/** One pending order as the store holds it: waiting (`placed`), or with how it ended. */
export const BlotterOrderSchema = z.object({
  /** `<platformId>:<orderId>`. */
  key: z.string(),
  platformId: z.guid(),
  platformName: z.string(),
  orderId: z.string(),
  login: z.string(),
  group: z.string(),
  symbol: z.string(),
  type: z.enum(PENDING_ORDER_TYPES),
  volume: lots,
  price: z.number(),
  sl: z.number().nullable(),
  tp: z.number().nullable(),
  expiration: utc.nullable(),
  placedTime: utc,
  serverPlacedTime: serverTime,
  state: z.enum(PENDING_ORDER_STATES),
  /** The position a fill opened. */
  positionId: z.string().nullable(),
  doneTime: utc.nullable(),
  reason: z.string(),
  comment: z.string(),
  native,
  updatedAt: utc,
});
export type BlotterOrder = z.infer<typeof BlotterOrderSchema>;

const pageShape = <T extends z.ZodType>(item: T) =>
  z.object({
    items: z.array(item),
    /** Pass as `cursor` for the next page; null on the last one. */
    nextCursor: z.string().nullable(),
    /** Matching rows, counted on the first page only (null on the following ones), at most BLOTTER_TOTAL_CAP. */
    total: z.number().int().nullable(),
    /** true when there are more than `total` matching rows. */
    totalCapped: z.boolean(),
  });

export const BlotterDealPageSchema = pageShape(BlotterDealSchema);
export type BlotterDealPage = z.infer<typeof BlotterDealPageSchema>;
export const BlotterPositionPageSchema = pageShape(BlotterPositionSchema);
export type BlotterPositionPage = z.infer<typeof BlotterPositionPageSchema>;
export const BlotterOrderPageSchema = pageShape(BlotterOrderSchema);
export type BlotterOrderPage = z.infer<typeof BlotterOrderPageSchema>;

/**
 * GET /api/tradesBlotter/deals/totals: the figures of every deal matching the filters over the whole
 * range, summed in the database (docs/trades-blotter.md#totals). Trading and money movements apart:
 * profit, commission, swap, volume and `deals` are of buy and sell deals only; balance deals are
 * deposits (positive) and withdrawals (negative, given as a positive amount), credit deals the net
 * credit. Money in the deals' own account currencies, summed as they are (as the platforms' reports do).
 */
export const BlotterDealTotalsSchema = z.object({
  /** Buy and sell deals. */
  deals: z.number().int(),
  /** Balance and credit deals. */
  movements: z.number().int(),
  volume: lots,
  profit: money,
  commission: money,
  swap: money,
  deposits: money,
  withdrawals: money,
  credit: money,
});
export type BlotterDealTotals = z.infer<typeof BlotterDealTotalsSchema>;

/**
 * GET /api/tradesBlotter/exposure-rates: what the blotter needs to state net exposure in one
 * currency, the organization's (docs/trades-blotter.md#net-exposure): per symbol of each connected
 * blotter platform, its contract size, the currency its price is quoted in, and the rate from that
 * currency to the organization's, from the platform's own quotes (mid); null when the platform
 * quotes no pair to convert with.
 */
export const ExposureRatesSchema = z.object({
  currency: z.string(),
  asOf: utc,
  symbols: z.array(
    z.object({
      platformId: z.guid(),
      symbol: z.string(),
      contractSize: z.number(),
      quoteCurrency: z.string(),
      rate: z.number().nullable(),
    }),
  ),
  /** Blotter platforms not connected now: their symbols are not listed. */
  unavailable: z.array(z.guid()),
});
export type ExposureRates = z.infer<typeof ExposureRatesSchema>;

// ——— Queries ———

const LOTS_PATTERN = /^\d{1,9}(\.\d{1,4})?$/;
const lotsFilter = (name: string) =>
  optionalQuery(
    z
      .string()
      .trim()
      .regex(LOTS_PATTERN, { error: `${name} must be a volume in lots such as 0.1 or 5` }),
  );

/** `platformIds=a,b` or `platformIds=a&platformIds=b`. */
const platformIds = z.preprocess(
  (value: unknown) => {
    const list = (Array.isArray(value) ? (value as unknown[]) : [value])
      .flatMap((v): unknown[] => (typeof v === "string" ? v.split(",").map((part) => part.trim()) : [v]))
      .filter((v) => v !== undefined && v !== "");
    return list.length === 0 ? undefined : list;
  },
  z
    .array(z.guid({ error: "platformIds must be platform ids (UUIDs), comma-separated" }))
    .max(100, { error: "platformIds lists at most 100 platforms" })
    .optional(),
);

const maskFilter = (name: string) =>
  optionalQuery(
    z
      .string()
      .trim()
      .max(500, { error: `${name} is at most 500 characters` })
      .meta({ description: "Mask as on the platforms: comma-separated, `*` any characters, a leading `!` excludes (e.g. `EUR*,!*.demo`)" }),
  );

/** The filters deals and positions share. */
const filterFields = {
  platformIds,
  /** The screen's login filter as typed: logins separated by commas, each exact or a prefix followed by `*`. */
  login: optionalQuery(
    z
      .string()
      .trim()
      .max(2000, { error: "login is at most 2000 characters" })
      .regex(/^[A-Za-z0-9._-]{1,32}\*?(\s*,\s*[A-Za-z0-9._-]{1,32}\*?)*$/, {
        error: "login must be logins (exact) or the start of one followed by * (e.g. 1002*), separated by commas",
      }),
  ),
  groupMask: maskFilter("groupMask"),
  symbolMask: maskFilter("symbolMask"),
  side: optionalQuery(z.enum(SIDES, { error: "side must be buy or sell" })),
  volumeMin: lotsFilter("volumeMin"),
  volumeMax: lotsFilter("volumeMax"),
  text: optionalQuery(
    z.string().trim().max(200, { error: "text is at most 200 characters" }).meta({ description: "Comment, symbol or login contains (any case)" }),
  ),
};

/** Deals also filter on balance and credit (their action); positions are only buy or sell. */
const dealFilterFields = {
  ...filterFields,
  side: optionalQuery(z.enum(DEAL_ACTIONS, { error: "side must be buy, sell, balance or credit" })),
};

const cursorField = optionalQuery(z.string().trim().max(200, { error: "cursor is not one this API gave" }));
const limitField = z.preprocess(
  blankToUndefined,
  z.coerce
    .number({ error: "limit must be a whole number" })
    .int({ error: "limit must be a whole number" })
    .min(1, { error: `limit must be from 1 to ${BLOTTER_PAGE_LIMIT_MAX}` })
    .max(BLOTTER_PAGE_LIMIT_MAX, { error: `limit must be from 1 to ${BLOTTER_PAGE_LIMIT_MAX}` })
    .default(BLOTTER_PAGE_LIMIT_DEFAULT),
);
const required = (name: string) =>
  z.preprocess(blankToUndefined, z.iso.datetime({ offset: true, error: `${name} must be a date and time in ISO 8601, e.g. 2025-01-31T00:00:00Z` }));

const volumeOrder = (q: { volumeMin?: string | undefined; volumeMax?: string | undefined }) =>
  !(q.volumeMin && q.volumeMax) || Number(q.volumeMin) <= Number(q.volumeMax);

/** GET /api/tradesBlotter/deals.csv: every deal matching, `from` ≤ time < `to`. */
export const BlotterDealFiltersSchema = z
  .object({ from: required("from"), to: required("to"), ...dealFilterFields })
  .refine((q) => Date.parse(q.from) < Date.parse(q.to), { error: "from must be before to", path: ["from"] })
  .refine((q) => Date.parse(q.to) - Date.parse(q.from) <= BLOTTER_MAX_RANGE_DAYS * 86_400_000, {
    error: `The date range is at most ${BLOTTER_MAX_RANGE_DAYS} days`,
    path: ["to"],
  })
  .refine(volumeOrder, { error: "volumeMin must not be greater than volumeMax", path: ["volumeMin"] });
export type BlotterDealFilters = z.infer<typeof BlotterDealFiltersSchema>;

/** GET /api/tradesBlotter/deals.csv: the filters, and the zone the export's times are written in (the member's display preference). */
export const BlotterDealExportSchema = z.intersection(
  BlotterDealFiltersSchema,
  z.object({
    timeZone: z
      .preprocess(blankToUndefined, z.string().refine(isTimeZone, { error: "timeZone must be an IANA time zone name such as Europe/Nicosia" }).optional())
      .meta({ description: "The zone of the first time column (default UTC), e.g. Europe/Nicosia" }),
  }),
);

/** GET /api/tradesBlotter/deals: a page, newest first. */
export const BlotterDealQuerySchema = z
  .object({ from: required("from"), to: required("to"), ...dealFilterFields, cursor: cursorField, limit: limitField })
  .refine((q) => Date.parse(q.from) < Date.parse(q.to), { error: "from must be before to", path: ["from"] })
  .refine((q) => Date.parse(q.to) - Date.parse(q.from) <= BLOTTER_MAX_RANGE_DAYS * 86_400_000, {
    error: `The date range is at most ${BLOTTER_MAX_RANGE_DAYS} days`,
    path: ["to"],
  })
  .refine(volumeOrder, { error: "volumeMin must not be greater than volumeMax", path: ["volumeMin"] });
export type BlotterDealQuery = z.infer<typeof BlotterDealQuerySchema>;

/** GET /api/tradesBlotter/positions: open positions, newest opened first. */
export const BlotterPositionQuerySchema = z
  .object({ ...filterFields, cursor: cursorField, limit: limitField })
  .refine(volumeOrder, { error: "volumeMin must not be greater than volumeMax", path: ["volumeMin"] });
export type BlotterPositionQuery = z.infer<typeof BlotterPositionQuerySchema>;

/** GET /api/tradesBlotter/orders: pending orders, newest placed first; `state` waiting ones only (`placed`, the default) or all with their history. */
export const BlotterOrderQuerySchema = z
  .object({
    ...filterFields,
    state: z.preprocess(blankToUndefined, z.enum(["placed", "all"], { error: "state must be placed or all" }).default("placed")),
    cursor: cursorField,
    limit: limitField,
  })
  .refine(volumeOrder, { error: "volumeMin must not be greater than volumeMax", path: ["volumeMin"] });
export type BlotterOrderQuery = z.infer<typeof BlotterOrderQuerySchema>;

/** GET /api/tradesBlotter/orders/stream: the filters of the orders list; the stream carries every waiting order. */
export const BlotterOrderStreamQuerySchema = z
  .object({ ...filterFields })
  .refine(volumeOrder, { error: "volumeMin must not be greater than volumeMax", path: ["volumeMin"] });
export type BlotterOrderStreamQuery = z.infer<typeof BlotterOrderStreamQuerySchema>;

/** The orders stream's `orders` event: waiting orders new or changed (`upsert`), and keys of those that left the view (`remove`: filled, cancelled, expired, or no longer matching). */
export interface BlotterOrderChanges {
  upsert: BlotterOrder[];
  remove: string[];
}

/** The CSV's columns, in order, as the grid shows them (header line of deals.csv). */
export const BLOTTER_CSV_COLUMNS = [
  // The member's zone first (the header names it: "Time (Europe/Nicosia)"), then each server's clock.
  ["time", "Time (UTC)"],
  ["serverTime", "Time (server)"],
  ["platformName", "Platform"],
  ["login", "Login"],
  ["group", "Group"],
  ["ticket", "Deal"],
  ["positionId", "Position"],
  ["symbol", "Symbol"],
  ["action", "Side"],
  ["entry", "Entry"],
  ["volume", "Volume"],
  ["price", "Price"],
  ["sl", "SL"],
  ["tp", "TP"],
  ["profit", "Profit"],
  ["commission", "Commission"],
  ["swap", "Swap"],
  ["reason", "Reason"],
  ["comment", "Comment"],
] as const satisfies readonly (readonly [keyof BlotterDeal, string])[];

// ——— The trade history store's state per platform (the platform's page) ———

export const TRADE_HISTORY_STATUSES = ["idle", "backfilling", "live", "failed"] as const;

export const TradeHistorySyncSchema = z.object({
  platformId: z.guid(),
  /** idle: never backfilled on this store; backfilling: reading history; live: caught up; failed: see lastError (retried on the next connect or gap). */
  status: z.enum(TRADE_HISTORY_STATUSES),
  /** The window the last backfill read. */
  windowFrom: utc.nullable(),
  windowTo: utc.nullable(),
  /** Accounts whose deals were read, of how many. */
  accountsDone: z.number().int(),
  accountsTotal: z.number().int(),
  deals: z.number().int().meta({ description: "Deals the last backfill stored (new ones; duplicates are not counted)" }),
  lastError: z.string().nullable(),
  /** The connector's sequence of the last live event applied. */
  lastSequence: z.number().int(),
  startedAt: utc.nullable(),
  finishedAt: utc.nullable(),
  updatedAt: utc,
});
export type TradeHistorySync = z.infer<typeof TradeHistorySyncSchema>;
