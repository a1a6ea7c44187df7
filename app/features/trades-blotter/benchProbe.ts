/**
 * A measurement hook for `npm run bench` (bench/tradesBlotter.ts), inert otherwise: when the
 * benchmark's page script has put `window.__blotterStats` on the page, the live blotter counts
 * there what it shows in the grid: one refresh per paced frame (a "transaction"), and the rows
 * that entered, changed and left the worker's model since the last. Nothing else reads or writes it.
 */
export interface BlotterBenchStats {
  transactions: number;
  added: number;
  updated: number;
  removed: number;
  resets: number;
}

export function countGridChange(change: { added: number; updated: number; removed: number; reset: boolean }): void {
  const stats = (globalThis as { __blotterStats?: BlotterBenchStats }).__blotterStats;
  if (!stats) return;
  if (change.reset) stats.resets++;
  else stats.transactions++;
  stats.added += change.added;
  stats.updated += change.updated;
  stats.removed += change.removed;
}
