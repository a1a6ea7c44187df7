/**
 * The Quotes Monitor's comparison (docs/quotes-monitor.md#comparison): the same instrument across
 * the organization's servers. Which symbols are one instrument is the organization's symbol map:
 * an explicit pair (platform, symbol) → instrument wins; any other symbol is its name in capitals
 * with the map's prefixes and suffixes stripped and, by default, anything after a separator
 * (`EURUSD.pro`, `EURUSD_i`, `EURUSD#`, `#EURUSD` are all EURUSD). The difference is between the
 * highest and the lowest mid price among the servers whose session is open, in points of the
 * fewest digits. Shared by the API (GET/PUT /api/quotesMonitor/symbol-map, GET
 * /api/quotesMonitor/comparison), the cross-server alert rule and the screen.
 */
import { z } from "zod";
import type { SessionState } from "../trading/symbol.ts";

export const SYMBOL_PAIRS_MAX = 1000;
const AFFIXES_MAX = 20;

const symbolName = (field: string) =>
  z
    .string({ error: `${field} must be text` })
    .trim()
    .min(1, `${field} must not be empty`)
    .max(64, `${field} has at most 64 characters`);

const affix = z
  .string({ error: "A prefix or suffix must be text" })
  .trim()
  .min(1, "A prefix or suffix must not be empty")
  .max(16, "A prefix or suffix has at most 16 characters");

export const SymbolPairSchema = z
  .object({
    platformId: z.uuid({ error: "platformId must be a platform id" }),
    symbol: symbolName("symbol"),
    instrument: symbolName("instrument"),
  })
  .strict();
export type SymbolPair = z.infer<typeof SymbolPairSchema>;

/** What a client sends to replace the organization's symbol map (PUT /api/quotesMonitor/symbol-map). */
export const SymbolMapSchema = z
  .object({
    /** Stripped from the start of a symbol's name (e.g. "#", "m_"), the longest that fits first. */
    prefixes: z.array(affix, { error: "prefixes must be a list" }).max(AFFIXES_MAX, `At most ${AFFIXES_MAX} prefixes`).default([]),
    /** Stripped from the end (e.g. "m", ".pro"), the longest that fits first. */
    suffixes: z.array(affix, { error: "suffixes must be a list" }).max(AFFIXES_MAX, `At most ${AFFIXES_MAX} suffixes`).default([]),
    /** Whether anything after a separator (. _ - # + !) is dropped, and separators before the name. */
    stripAfterSeparator: z.boolean({ error: "stripAfterSeparator must be true or false" }).default(true),
    pairs: z
      .array(SymbolPairSchema, { error: "pairs must be a list" })
      .max(SYMBOL_PAIRS_MAX, `At most ${SYMBOL_PAIRS_MAX.toLocaleString("en-US")} symbol pairs`)
      .refine((pairs) => new Set(pairs.map((p) => `${p.platformId.toLowerCase()}:${p.symbol}`)).size === pairs.length, {
        error: "Each platform's symbol can be paired once",
      })
      .default([]),
  })
  .strict();
export type SymbolMap = z.infer<typeof SymbolMapSchema>;

export const EMPTY_SYMBOL_MAP: SymbolMap = { prefixes: [], suffixes: [], stripAfterSeparator: true, pairs: [] };

const SEPARATORS = /[._\-#+!]/;

/** A symbol's instrument under a map (without its pairs: `instrumentResolver` applies those). */
export function defaultInstrument(symbol: string, map: Pick<SymbolMap, "prefixes" | "suffixes" | "stripAfterSeparator">): string {
  let name = symbol.trim().toUpperCase();
  if (map.stripAfterSeparator) {
    name = name.replace(/^[._\-#+!]+/, "");
    const cut = name.search(SEPARATORS);
    if (cut > 0) name = name.slice(0, cut);
  }
  const byLength = (list: string[]) => list.map((a) => a.toUpperCase()).sort((a, b) => b.length - a.length);
  const prefix = byLength(map.prefixes).find((p) => name.startsWith(p) && name.length > p.length);
  if (prefix) name = name.slice(prefix.length);
  const suffix = byLength(map.suffixes).find((s) => name.endsWith(s) && name.length > s.length);
  if (suffix) name = name.slice(0, -suffix.length);
  return name === "" ? symbol.trim().toUpperCase() : name;
}

/** (platform, symbol) → instrument under the organization's map. */
export function instrumentResolver(map: SymbolMap): (platformId: string, symbol: string) => string {
  const pairs = new Map(map.pairs.map((p) => [`${p.platformId.toLowerCase()}:${p.symbol}`, p.instrument.toUpperCase()]));
  const cache = new Map<string, string>();
  return (platformId, symbol) => {
    const paired = pairs.get(`${platformId.toLowerCase()}:${symbol}`);
    if (paired) return paired;
    let name = cache.get(symbol);
    if (name === undefined) {
      name = defaultInstrument(symbol, map);
      cache.set(symbol, name);
    }
    return name;
  };
}

/** One platform's quote of an instrument. */
export interface ComparedQuote {
  platformId: string;
  symbol: string;
  digits: number;
  bid: number | null;
  ask: number | null;
  session: SessionState;
  lastTickAt: number | null;
}

/** An instrument quoted by two or more of the organization's platforms. */
export interface ComparisonRow {
  instrument: string;
  quotes: (ComparedQuote & { mid: number | null })[];
  /** The highest and lowest mid among the open sessions; null with fewer than two. */
  highPlatformId: string | null;
  lowPlatformId: string | null;
  /** (highest mid − lowest mid) in points of the fewest digits; null with fewer than two open quotes. */
  differencePoints: number | null;
  /** The lowest threshold of the organization's enabled cross-server rules that cover it; null without one. */
  threshold: number | null;
}

export interface ComparisonFrame {
  now: number;
  rows: ComparisonRow[];
}

/**
 * A frame of the comparison's live stream (GET /api/quotesMonitor/comparison/live): a `snapshot`
 * has every row; a `frame` the rows that changed and the instruments no longer compared.
 */
export interface ComparisonLiveFrame extends ComparisonFrame {
  removed: string[];
}

/** Mid price, or null without both sides. */
export const midOf = (q: { bid: number | null; ask: number | null }) => (q.bid === null || q.ask === null ? null : (q.bid + q.ask) / 2);

/** The points between two prices at `digits` (rounded: float noise never makes a point). */
export const pointsBetween = (high: number, low: number, digits: number) => Math.round((high - low) * 10 ** digits);

/**
 * Groups quotes into instruments (those on two or more platforms) and measures each one's
 * difference. `thresholdOf` gives the threshold that applies to an instrument's quotes.
 */
export function compareQuotes(
  quotes: Iterable<ComparedQuote>,
  instrumentOf: (platformId: string, symbol: string) => string,
  thresholdOf: (instrument: string, quotes: ComparedQuote[]) => number | null = () => null,
): ComparisonRow[] {
  const byInstrument = new Map<string, ComparedQuote[]>();
  for (const q of quotes) {
    const key = instrumentOf(q.platformId, q.symbol);
    const list = byInstrument.get(key) ?? [];
    list.push(q);
    byInstrument.set(key, list);
  }
  const rows: ComparisonRow[] = [];
  for (const [instrument, list] of byInstrument) {
    if (new Set(list.map((q) => q.platformId)).size < 2) continue;
    const withMid = list.map((q) => ({ ...q, mid: midOf(q) })).sort((a, b) => a.platformId.localeCompare(b.platformId) || a.symbol.localeCompare(b.symbol));
    // One quote per platform is measured: the symbol named as the instrument, else the first.
    const measuredOf = new Map<string, (typeof withMid)[number]>();
    for (const q of withMid) {
      if (q.mid === null || q.session !== "open") continue;
      const held = measuredOf.get(q.platformId);
      if (!held || (held.symbol.toUpperCase() !== instrument && q.symbol.toUpperCase() === instrument)) measuredOf.set(q.platformId, q);
    }
    const open = [...measuredOf.values()].sort((a, b) => a.mid! - b.mid!);
    const low = open[0];
    const high = open.at(-1);
    const measured = low !== undefined && high !== undefined && open.length >= 2;
    rows.push({
      instrument,
      quotes: withMid,
      highPlatformId: measured ? high.platformId : null,
      lowPlatformId: measured ? low.platformId : null,
      differencePoints: measured ? pointsBetween(high.mid!, low.mid!, Math.min(low.digits, high.digits)) : null,
      threshold: thresholdOf(instrument, list),
    });
  }
  return rows.sort((a, b) => a.instrument.localeCompare(b.instrument));
}

/** Whether a row is over its threshold (the page's own threshold when given, else the rule's). */
export function isOverThreshold(row: Pick<ComparisonRow, "differencePoints" | "threshold">, threshold: number | null = row.threshold): boolean {
  return threshold !== null && row.differencePoints !== null && row.differencePoints > threshold;
}
