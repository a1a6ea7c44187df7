/**
 * Which follower symbol a source symbol is copied to, and whether it is copied at all
 * (docs/trades-copier.md "Symbols"). Filters look at the source's symbol; blocked is checked
 * before allowed, and an empty mask blocks nothing / allows everything.
 */
import type { SkipReason, SymbolMapping } from "../schemas/copier.ts";
import { matchesMask } from "../trading/mask.ts";
import type { TradeSymbol } from "../trading/symbol.ts";

export function symbolFilter(allowed: string, blocked: string, sourceSymbol: string): SkipReason | null {
  if (blocked.trim() !== "" && matchesMask(blocked, sourceSymbol)) return "symbolBlocked";
  if (allowed.trim() !== "" && !matchesMask(allowed, sourceSymbol)) return "symbolNotAllowed";
  return null;
}

/**
 * The follower's name for a source symbol: an explicit pair first (the source name compared
 * without letter case); otherwise the source's prefix and suffix, where present, are taken off and
 * the follower's put on ("EURUSD.m" with source suffix ".m" and follower prefix "fx" → "fxEURUSD").
 */
export function mapSymbolName(mapping: SymbolMapping, sourceSymbol: string): string {
  const lower = sourceSymbol.toLowerCase();
  const pair = mapping.pairs.find((p) => p.source.toLowerCase() === lower);
  if (pair) return pair.follower;
  let core = sourceSymbol;
  if (mapping.sourcePrefix !== "" && core.startsWith(mapping.sourcePrefix) && core.length > mapping.sourcePrefix.length) {
    core = core.slice(mapping.sourcePrefix.length);
  }
  if (mapping.sourceSuffix !== "" && core.endsWith(mapping.sourceSuffix) && core.length > mapping.sourceSuffix.length) {
    core = core.slice(0, core.length - mapping.sourceSuffix.length);
  }
  return `${mapping.followerPrefix}${core}${mapping.followerSuffix}`;
}

/** The follower's symbol spec for a name: exact, else the one symbol equal without letter case (the first in name order if several). */
export function findSymbol(symbols: ReadonlyMap<string, TradeSymbol>, name: string): TradeSymbol | undefined {
  const exact = symbols.get(name);
  if (exact) return exact;
  const lower = name.toLowerCase();
  const matches = [...symbols.values()].filter((s) => s.name.toLowerCase() === lower).sort((a, b) => (a.name < b.name ? -1 : 1));
  return matches[0];
}

/** The follower's symbol for a source symbol, or why there is none. */
export function followerSymbolOf(
  settings: { symbols: SymbolMapping; allowedSymbols: string; blockedSymbols: string },
  followerSymbols: ReadonlyMap<string, TradeSymbol>,
  sourceSymbol: string,
): { symbol: TradeSymbol } | { skip: SkipReason } {
  const filtered = symbolFilter(settings.allowedSymbols, settings.blockedSymbols, sourceSymbol);
  if (filtered) return { skip: filtered };
  const symbol = findSymbol(followerSymbols, mapSymbolName(settings.symbols, sourceSymbol));
  return symbol ? { symbol } : { skip: "symbolMissing" };
}
