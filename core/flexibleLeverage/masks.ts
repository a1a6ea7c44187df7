/**
 * The rules' masks, with the platforms' syntax (core/trading/mask.ts): comma-separated patterns,
 * `*` for any run of characters, `!` excludes, exclusions first, case-insensitive.
 *
 * Groups are matched by their full name ("real\usd\standard" against "real\*"). Symbols may be
 * given by name ("EURUSD") or, on MT5, by path ("Forex\Majors\EURUSD"): a pattern with a
 * backslash is matched against the path, a pattern without one against the name (the part after
 * the last backslash), so both "*\EURUSD*" and "EURUSD*" find Forex\Majors\EURUSD.
 */
import { compileMask, wildcardMatch } from "../trading/mask.ts";

export const compileGroupMask = compileMask;

function patternsOf(mask: string): { includes: string[]; excludes: string[] } {
  const parts = mask
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
  return {
    includes: parts.filter((p) => !p.startsWith("!")).map((p) => p.toLowerCase()),
    excludes: parts.filter((p) => p.startsWith("!")).map((p) => p.slice(1).toLowerCase()),
  };
}

/** The pattern's own test of a symbol given by name or path (see the top of this file). */
export function symbolPatternMatches(pattern: string, symbol: string): boolean {
  const text = symbol.toLowerCase();
  if (pattern.includes("\\")) return wildcardMatch(pattern, text);
  return wildcardMatch(pattern, text.slice(text.lastIndexOf("\\") + 1));
}

export function compileSymbolMask(mask: string): (symbol: string) => boolean {
  const { includes, excludes } = patternsOf(mask);
  if (includes.length === 0 && excludes.length === 0) return () => true;
  return (symbol) => {
    if (excludes.some((p) => symbolPatternMatches(p, symbol))) return false;
    return includes.length === 0 || includes.some((p) => symbolPatternMatches(p, symbol));
  };
}

/** Whether a mask takes every name ("*", "*,*"): then a rule needs no position on a symbol. */
export function matchesEverything(mask: string): boolean {
  const { includes, excludes } = patternsOf(mask);
  return excludes.length === 0 && (includes.length === 0 || includes.some((p) => /^\*+$/.test(p)));
}

/** The include patterns of a mask as written ("real*" of "real*,!real\demo*"), for warnings. */
export function includePatterns(mask: string): string[] {
  return mask
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p && !p.startsWith("!"));
}
