/**
 * The Trades Blotter's live rows and filters, shared by the stream (server/modules/tradesBlotter/
 * stream.ts) and the screen (app/features/trades-blotter/). One row per deal and one per
 * position: a position's later events replace its row (the key stays), so a frame and the grid
 * both coalesce by `key`. Money is in minor units (core/trading/money.ts), volume in 1/10000
 * lots (core/trading/volume.ts), times in ms UTC. Historical mode's deals (the store's
 * `BlotterDeal`, ./tradesBlotter.ts) become the same rows (`rowOfStoredDeal`): one grid, one
 * column set, one CSV of the view for both modes.
 */
import { z } from "zod";
import { compileMask } from "../trading/mask.ts";
import { DEAL_ACTIONS, type Deal } from "../trading/deal.ts";
import type { TradeEvent } from "../trading/events.ts";
import type { NativeDealRef, NativePositionRef } from "../trading/native.ts";
import { moneyFromDecimal } from "../trading/money.ts";
import type { Position, TradeReason } from "../trading/position.ts";
import { lotsToVolume } from "../trading/volume.ts";
import { optionalQuery } from "./query.ts";
import type { BlotterDeal } from "./tradesBlotter.ts";

export type BlotterRowKind = "deal" | "position";
export type BlotterSide = "buy" | "sell" | "balance" | "credit";

export interface BlotterRow {
  /** "d:<platformId>:<dealId>" or "p:<platformId>:<positionId>": unique in an organization. */
  key: string;
  kind: BlotterRowKind;
  platformId: string;
  login: string;
  /** From the accounts mirror; "" while unknown. */
  group: string;
  /** The deal's time, or the position's open time (close time once closed). */
  time: number;
  /** The ticket or deal number as the platform's terminal shows it. */
  ticket: string;
  /** The position as the platform shows it; null for balance and credit deals. */
  position: string | null;
  symbol: string | null;
  side: BlotterSide;
  entry: "in" | "out" | null;
  volume: number;
  price: number;
  sl: number | null;
  tp: number | null;
  profit: number;
  commission: number;
  swap: number;
  reason: TradeReason;
  comment: string;
  /** Positions only: open, or closed (its last event). */
  state: "open" | "closed" | null;
  /** Units of the base asset per lot (the symbol's contract size), for notional exposure; null when unknown. */
  contractSize: number | null;
}

/** The platforms the stream covers (those with the Trades Blotter app assigned). */
export interface BlotterPlatform {
  id: string;
  name: string;
  type: "MT4" | "MT5" | "MatchTrader";
  timeZone: string;
}

/** `event: frame` and `event: snapshot` data. A snapshot replaces everything the client holds. */
export interface BlotterFrame {
  rows: BlotterRow[];
}

/** A row's side: a position's buy or sell, or a deal's action (balance and credit included). */
export const BLOTTER_SIDES = DEAL_ACTIONS;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const lots = (name: string) =>
  optionalQuery(
    z.coerce
      .number({ error: `${name} must be a number of lots` })
      .refine((n) => Number.isFinite(n) && n >= 0 && n <= 1_000_000, `${name} must be between 0 and 1,000,000 lots`),
  );

/** The blotter's filters, as the URL and the stream's query string carry them. */
export const BlotterFiltersSchema = z
  .object({
    /** Comma-separated platform ids; none = all the blotter's platforms. */
    platforms: optionalQuery(
      z
        .string()
        .max(4000, "platforms is too long")
        .transform((s) =>
          s
            .split(",")
            .map((p) => p.trim().toLowerCase())
            .filter(Boolean),
        )
        .refine((ids) => ids.every((id) => UUID.test(id)), "platforms must be platform ids separated by commas"),
    ),
    /** Comma-separated logins (exact). */
    login: optionalQuery(
      z
        .string()
        .max(2000, "login is too long")
        .regex(/^[\w\-., ]*$/, "login must be logins separated by commas"),
    ),
    group: optionalQuery(z.string().max(500, "group is too long")),
    symbol: optionalQuery(z.string().max(500, "symbol is too long")),
    side: optionalQuery(z.enum(BLOTTER_SIDES, { error: "side must be buy, sell, balance or credit" })),
    minLots: lots("minLots"),
    maxLots: lots("maxLots"),
    text: optionalQuery(z.string().max(200, "text is too long")),
  })
  .refine((f) => f.minLots === undefined || f.maxLots === undefined || f.minLots <= f.maxLots, "minLots must not be above maxLots");

export type BlotterFilters = z.output<typeof BlotterFiltersSchema>;

/** A compiled filter: one call per row, masks compiled once. */
export function blotterRowFilter(filters: BlotterFilters): (row: BlotterRow) => boolean {
  const platforms = filters.platforms && filters.platforms.length > 0 ? new Set(filters.platforms) : null;
  const logins = filters.login
    ? new Set(
        filters.login
          .split(",")
          .map((l) => l.trim())
          .filter(Boolean),
      )
    : null;
  const group = filters.group ? compileMask(filters.group) : null;
  const symbol = filters.symbol ? compileMask(filters.symbol) : null;
  const min = filters.minLots === undefined ? null : lotsToVolume(filters.minLots);
  const max = filters.maxLots === undefined ? null : lotsToVolume(filters.maxLots);
  const text = filters.text?.trim().toLowerCase() || null;
  return (row) => {
    if (platforms && !platforms.has(row.platformId)) return false;
    if (logins && logins.size > 0 && !logins.has(row.login)) return false;
    if (group && !group(row.group)) return false;
    if (symbol && !symbol(row.symbol ?? "")) return false;
    if (filters.side && row.side !== filters.side) return false;
    if (min !== null && row.volume < min) return false;
    if (max !== null && row.volume > max) return false;
    if (text && !searchText(row).includes(text)) return false;
    return true;
  };
}

function searchText(row: BlotterRow): string {
  return `${row.login} ${row.ticket} ${row.position ?? ""} ${row.symbol ?? ""} ${row.comment} ${row.group}`.toLowerCase();
}

/** The filters as a query string (stable order, empty ones left out): the stream's URL and the page's. */
export function blotterFiltersQuery(filters: Partial<Record<keyof BlotterFilters, string | number | string[] | undefined>>): URLSearchParams {
  const q = new URLSearchParams();
  for (const key of ["platforms", "login", "group", "symbol", "side", "minLots", "maxLots", "text"] as const) {
    const value = filters[key];
    if (value === undefined || value === "" || (Array.isArray(value) && value.length === 0)) continue;
    q.set(key, Array.isArray(value) ? value.join(",") : String(value));
  }
  return q;
}

export function nativeDealTicket(native: NativeDealRef): string {
  switch (native.platform) {
    case "MT4":
      return String(native.ticket);
    case "MT5":
      return String(native.deal);
    case "MatchTrader":
      return "ledgerId" in native ? native.ledgerId : (native.closeId ?? native.positionId);
  }
}

export function nativeDealPosition(native: NativeDealRef): string | null {
  switch (native.platform) {
    case "MT4":
      return native.entry === null ? null : String(native.ticket);
    case "MT5":
      return native.position === null ? null : String(native.position);
    case "MatchTrader":
      return "ledgerId" in native ? null : native.positionId;
  }
}

export function nativePosition(native: NativePositionRef): string {
  switch (native.platform) {
    case "MT4":
      return String(native.ticket);
    case "MT5":
      return String(native.position);
    case "MatchTrader":
      return native.positionId;
  }
}

/** What a platform knows beyond the event: an account's group, a symbol's contract size. */
export interface BlotterLookups {
  group(login: string): string;
  contractSize(symbol: string | null): number | null;
}

export function dealRow(platformId: string, deal: Deal, lookups: BlotterLookups): BlotterRow {
  return {
    key: `d:${platformId}:${deal.id}`,
    kind: "deal",
    platformId,
    login: deal.login,
    group: lookups.group(deal.login),
    time: deal.time,
    ticket: nativeDealTicket(deal.native),
    position: nativeDealPosition(deal.native),
    symbol: deal.symbol,
    side: deal.action,
    entry: deal.entry,
    volume: deal.volume,
    price: deal.price,
    sl: null,
    tp: null,
    profit: deal.profit,
    commission: deal.commission,
    swap: deal.swap,
    reason: deal.reason,
    comment: deal.comment,
    state: null,
    contractSize: lookups.contractSize(deal.symbol),
  };
}

export function positionRow(platformId: string, position: Position & { closeTime?: number; closePrice?: number }, lookups: BlotterLookups): BlotterRow {
  const ticket = nativePosition(position.native);
  const closed = position.closeTime !== undefined;
  return {
    key: `p:${platformId}:${position.id}`,
    kind: "position",
    platformId,
    login: position.login,
    group: lookups.group(position.login),
    time: position.closeTime ?? position.openTime,
    ticket,
    position: ticket,
    symbol: position.symbol,
    side: position.side,
    entry: closed ? "out" : "in",
    volume: position.volume,
    price: closed ? (position.closePrice ?? position.currentPrice) : position.openPrice,
    sl: position.sl,
    tp: position.tp,
    profit: position.profit,
    commission: 0,
    swap: position.swap,
    reason: position.reason,
    comment: position.comment,
    state: closed ? "closed" : "open",
    contractSize: lookups.contractSize(position.symbol),
  };
}

/** The row a trade event changes, or null (account changes are no trade). */
export function rowOfTradeEvent(platformId: string, event: TradeEvent, lookups: BlotterLookups): BlotterRow | null {
  switch (event.type) {
    case "dealAdded":
      return dealRow(platformId, event.deal, lookups);
    case "positionOpened":
    case "positionModified":
    case "positionClosed":
      return positionRow(platformId, event.position, lookups);
    case "accountChanged":
      return null;
    // Pending orders have their own view (pendingOrderRows); the position a fill opens comes as positionOpened.
    case "orderPlaced":
    case "orderModified":
    case "orderCancelled":
    case "orderFilled":
      return null;
  }
}

const REASONS = new Set<string>(["client", "mobile", "web", "expert", "dealer", "api", "sl", "tp", "stopOut"]);

/**
 * A deal of the trade history store (GET /api/tradesBlotter/deals) as the row the live stream
 * would have sent for it: same key (`d:<platformId>:<dealId>`), ticket and position as the
 * platform shows them (from its native ids, as `dealRow` does), money and volume in minor units.
 */
export function rowOfStoredDeal(deal: BlotterDeal): BlotterRow {
  const native = deal.native as unknown as NativeDealRef;
  const known = typeof native.platform === "string";
  return {
    key: `d:${deal.platformId}:${deal.dealId}`,
    kind: "deal",
    platformId: deal.platformId,
    login: deal.login,
    group: deal.group,
    time: Date.parse(deal.time),
    ticket: deal.ticket,
    position: known ? nativeDealPosition(native) : deal.positionId,
    symbol: deal.symbol,
    side: deal.action,
    entry: deal.entry,
    volume: lotsToVolume(Number(deal.volume)),
    price: deal.price,
    sl: deal.sl,
    tp: deal.tp,
    profit: moneyFromDecimal(deal.profit),
    commission: moneyFromDecimal(deal.commission),
    swap: moneyFromDecimal(deal.swap),
    reason: REASONS.has(deal.reason) ? (deal.reason as TradeReason) : "client",
    comment: deal.comment,
    state: null,
    contractSize: null,
  };
}
