/**
 * The monitor's books seen as instruments (core/schemas/quoteComparison.ts): the comparison rows
 * the screen shows (GET /api/quotesMonitor/comparison) and the cross-server rule's verdicts, both
 * through the organization's symbol map, so what the screen highlights and what the rule raises
 * are the same figures.
 */
import { compareQuotes, instrumentResolver, type ComparedQuote, type ComparisonRow, type SymbolMap } from "../../../../core/schemas/quoteComparison.ts";
import type { AlertRule } from "../../../../core/schemas/quotesMonitor.ts";
import { compileMask } from "../../../../core/trading/index.ts";
import type { PlatformBook } from "./book.ts";

type CrossServerRule = Extract<AlertRule, { kind: "crossServer" }>;

function quotesOf(books: Iterable<PlatformBook>, now: number, matches: (symbol: string) => boolean = () => true): ComparedQuote[] {
  const quotes: ComparedQuote[] = [];
  for (const book of books)
    for (const stats of book.symbols.values())
      if (matches(stats.symbol))
        quotes.push({
          platformId: book.platformId,
          symbol: stats.symbol,
          digits: stats.digits,
          bid: stats.bid,
          ask: stats.ask,
          session: book.session(stats, now),
          lastTickAt: stats.lastTickAt,
        });
  return quotes;
}

const covers = (rule: CrossServerRule, quotes: ComparedQuote[]) => {
  if (rule.platformIds === "all") return true;
  const ids = new Set(quotes.map((q) => q.platformId));
  return rule.platformIds.filter((id) => ids.has(id)).length >= 2;
};

/** The organization's instruments on two or more platforms, with each one's threshold (the lowest of the rules that cover it). */
export function comparisonOf(books: PlatformBook[], map: SymbolMap, rules: AlertRule[], now: number): ComparisonRow[] {
  const crossRules = rules
    .filter((r): r is CrossServerRule => r.kind === "crossServer" && r.enabled)
    .map((rule) => ({ rule, matches: compileMask(rule.symbolMask) }));
  return compareQuotes(quotesOf(books, now), instrumentResolver(map), (instrument, quotes) => {
    let threshold: number | null = null;
    for (const { rule, matches } of crossRules)
      if ((matches(instrument) || quotes.some((q) => matches(q.symbol))) && covers(rule, quotes))
        threshold = threshold === null ? rule.differencePoints : Math.min(threshold, rule.differencePoints);
    return threshold;
  });
}

export interface CrossServerVerdict {
  instrument: string;
  /**
   * The two platforms measured (the highest and the lowest quote), ordered by id whichever is
   * higher: with the instrument, the alert's identity, so it does not flip when the two swap.
   */
  pair: [string, string];
  /** The first platform's symbol: the alert's row. */
  symbol: string;
  verdict: { episode: string; message: string } | null;
}

/**
 * A cross-server rule over its platforms' books: one verdict per instrument quoted open on two or
 * more, on its highest and lowest quotes.
 */
export function crossServerVerdicts(
  rule: CrossServerRule,
  books: PlatformBook[],
  map: SymbolMap,
  now: number,
  nameOf: (platformId: string) => string,
): CrossServerVerdict[] {
  const matches = compileMask(rule.symbolMask);
  const verdicts: CrossServerVerdict[] = [];
  for (const row of compareQuotes(quotesOf(books, now, matches), instrumentResolver(map))) {
    if (row.differencePoints === null) continue;
    const high = row.quotes.find((q) => q.platformId === row.highPlatformId)!;
    const low = row.quotes.find((q) => q.platformId === row.lowPlatformId)!;
    const over = row.differencePoints > rule.differencePoints;
    const [first, second] = high.platformId < low.platformId ? [high, low] : [low, high];
    const named = first.symbol === second.symbol ? first.symbol : `${row.instrument} (${first.symbol} / ${second.symbol})`;
    verdicts.push({
      instrument: row.instrument,
      pair: [first.platformId, second.platformId],
      symbol: first.symbol,
      verdict: over
        ? {
            episode: String(Math.max(low.lastTickAt ?? 0, high.lastTickAt ?? 0)),
            message:
              `${named} differs by ${row.differencePoints} points between ${nameOf(first.platformId)} and ${nameOf(second.platformId)} ` +
              `(${nameOf(high.platformId)} higher; threshold ${rule.differencePoints}).`,
          }
        : null,
    });
  }
  return verdicts;
}
