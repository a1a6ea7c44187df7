/**
 * A profile's spread markup for one symbol (docs/dealing.md "Spread markups"): the symbol's own
 * markup if it has one, else the markup of the deepest symbol group it lies in (its path, e.g.
 * "Forex\\Majors"), else none. Markups widen the quote: the bid goes down by its points, the ask
 * up by its points (a point is the symbol's smallest price step, 10^-digits).
 */
import type { ExecutionProfile } from "./schema.ts";

export interface SymbolRef {
  name: string;
  /** The symbol's group path on the server, "Forex\\Majors" or "Forex\\Majors\\EURUSD" (the symbol's own name at the end is ignored). */
  path: string;
}

export interface ResolvedMarkup {
  bidPoints: number;
  askPoints: number;
  /** "symbol EURUSD", "group Forex\\Majors", or "none". */
  from: string;
}

const segments = (path: string) => path.split(/[\\/]/).filter((s) => s !== "");

/** Whether `group` ("Forex" or "Forex\\Majors") contains a symbol at `path`. */
export function inGroup(group: string, path: string): boolean {
  const g = segments(group.toLowerCase());
  const p = segments(path.toLowerCase());
  return g.length > 0 && g.length <= p.length && g.every((s, i) => s === p[i]);
}

export function markupFor(profile: ExecutionProfile, symbol: SymbolRef): ResolvedMarkup {
  const own = profile.markups.find((m) => m.kind === "symbol" && m.target.toLowerCase() === symbol.name.toLowerCase());
  if (own) return { bidPoints: own.bidPoints, askPoints: own.askPoints, from: `symbol ${own.target}` };
  let best: { depth: number; bid: number; ask: number; target: string } | null = null;
  for (const m of profile.markups) {
    if (m.kind !== "group" || !inGroup(m.target, symbol.path)) continue;
    const depth = segments(m.target).length;
    if (best === null || depth > best.depth) best = { depth, bid: m.bidPoints, ask: m.askPoints, target: m.target };
  }
  if (best) return { bidPoints: best.bid, askPoints: best.ask, from: `group ${best.target}` };
  return { bidPoints: 0, askPoints: 0, from: "none" };
}

/** The quote a client gets: bid lowered and ask raised by the markup, at the symbol's digits. */
export function markedUp(quote: { bid: number; ask: number }, markup: { bidPoints: number; askPoints: number }, digits: number): { bid: number; ask: number } {
  const point = 10 ** -digits;
  const round = (x: number) => Number(x.toFixed(digits));
  return { bid: round(quote.bid - markup.bidPoints * point), ask: round(quote.ask + markup.askPoints * point) };
}
