/**
 * A measurement hook for `npm run bench` (bench/tradesBlotter.ts), inert otherwise: when the
 * benchmark's page script has put `window.__blotterStats` on the page, the live blotter counts
 * there what it hands to the grid. Nothing else reads or writes it.
 */
export interface BlotterBenchStats {
  transactions: number;
  added: number;
  updated: number;
  removed: number;
  resets: number;
}

export function countGridChange(change: { add?: readonly unknown[]; update?: readonly unknown[]; remove?: readonly unknown[]; reset?: boolean }): void {
  const stats = (globalThis as { __blotterStats?: BlotterBenchStats }).__blotterStats;
  if (!stats) return;
  if (change.reset) stats.resets++;
  else stats.transactions++;
  stats.added += change.add?.length ?? 0;
  stats.updated += change.update?.length ?? 0;
  stats.removed += change.remove?.length ?? 0;
}
