/**
 * GET /api/tradesBlotter/exposure-rates: what the blotter needs to state net exposure in the
 * organization's currency (docs/trades-blotter.md#net-exposure). For each connected blotter
 * platform, each symbol's contract size and quote currency, and the rate from that currency to
 * the organization's from the platform's own quotes (core/trading/conversion.ts: a direct pair,
 * its inverse, or through USD; mid prices). A currency the platform quotes no pair for has no
 * rate (null): the screen says so instead of guessing.
 */
import type { ExposureRates } from "../../../core/schemas/tradesBlotter.ts";
import { conversionRate } from "../../../core/trading/conversion.ts";
import type { TradeSymbol } from "../../../core/trading/symbol.ts";
import type { TradePlatformConnector } from "../../connectors/connector.ts";
import type { Db } from "../../db/client.ts";
import type { PlatformRuntime } from "../tradePlatforms/runtime/runtime.ts";
import { organizationCurrency } from "../organizations/profileRepository.ts";
import { blotterPlatformIds } from "./repository/blotterPlatforms.ts";

/**
 * Symbol lists change rarely and a real server's may hold thousands: read once per platform every
 * few minutes; quotes are read each time (one call per platform, every open blotter once a minute).
 */
const SYMBOLS_TTL_MS = 5 * 60_000;
const symbolLists = new Map<string, { at: number; list: Promise<TradeSymbol[]> }>();

function symbolsOf(platformId: string, connector: TradePlatformConnector): Promise<TradeSymbol[]> {
  const known = symbolLists.get(platformId);
  if (known && Date.now() - known.at < SYMBOLS_TTL_MS) return known.list;
  const list = connector.listSymbols();
  symbolLists.set(platformId, { at: Date.now(), list });
  // A failed read is not kept: the next request asks again.
  list.catch(() => symbolLists.delete(platformId));
  return list;
}

export async function exposureRates(db: Db, runtime: PlatformRuntime, organizationId: string, now = new Date()): Promise<ExposureRates> {
  const currency = await organizationCurrency(db, organizationId);
  const platformIds = await blotterPlatformIds(db, organizationId, undefined);
  const symbols: ExposureRates["symbols"] = [];
  const unavailable: string[] = [];
  await Promise.all(
    platformIds.map(async (platformId) => {
      // Only platforms connected now: waiting for one that is connecting would hold up the panel.
      if (runtime.state(platformId).state !== "connected") {
        unavailable.push(platformId);
        return;
      }
      try {
        const connector = await runtime.connectorFor(organizationId, platformId);
        const [list, quotes] = await Promise.all([symbolsOf(platformId, connector), connector.getQuotes()]);
        const mids = new Map(quotes.filter((q) => q.bid > 0 && q.ask > 0).map((q) => [q.symbol, (q.bid + q.ask) / 2]));
        for (const s of list) {
          const rate = conversionRate(s.profitCurrency, currency, (name) => mids.get(name));
          symbols.push({ platformId, symbol: s.name, contractSize: s.contractSize, quoteCurrency: s.profitCurrency, rate: rate ?? null });
        }
      } catch {
        unavailable.push(platformId);
      }
    }),
  );
  symbols.sort((a, b) => a.platformId.localeCompare(b.platformId) || a.symbol.localeCompare(b.symbol));
  return { currency, asOf: now.toISOString(), symbols, unavailable: unavailable.sort() };
}
