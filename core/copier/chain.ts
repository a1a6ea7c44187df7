/**
 * MT4 closes part of a trade by closing its ticket (its exit's comment "to #124") and re-issuing
 * the rest as a new ticket that names the one it continues (`previousId`, comment "from #123").
 * After several partial closes, an open ticket names only the ticket just before it; the copier
 * knows the trade by its first ticket (the chain's root). This walks the chain back through the
 * exits' "to #" comments to the root, so a restart finds the copy under the id it was made for.
 */
const CONTINUED = /^to #(\S+)/;

export interface ChainExit {
  /** The closed ticket. */
  positionId: string | null;
  comment: string;
}

/**
 * The first ticket of each open position's chain: itself when it continues nothing; else walking
 * back from `previousId` through the exits ("to #<ticket>" names the ticket that continued it).
 * A break in the history (a ticket no exit continues) stops at the earliest ticket known.
 */
export function chainRoots(open: readonly { id: string; previousId: string | null }[], exits: readonly ChainExit[]): Map<string, string> {
  const before = new Map<string, string>();
  for (const exit of exits) {
    const next = exit.positionId === null ? null : CONTINUED.exec(exit.comment)?.[1];
    if (next && exit.positionId !== null && next !== exit.positionId) before.set(next, exit.positionId);
  }
  const roots = new Map<string, string>();
  for (const p of open) {
    let root = p.id;
    let previous: string | undefined = p.previousId ?? before.get(p.id);
    const seen = new Set([root]);
    while (previous !== undefined && !seen.has(previous)) {
      seen.add(previous);
      root = previous;
      previous = before.get(previous);
    }
    roots.set(p.id, root);
  }
  return roots;
}
