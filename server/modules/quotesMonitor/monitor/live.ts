/**
 * The monitor's books as rows for the screen (docs/quotes-monitor.md, "API"): every row now (the
 * snapshot, GET /api/quotesMonitor/rows), and what changed since a live stream's last frame. A
 * frame carries the prices that moved as compact ticks (`[key, bid, ask, spread, lastTickAt]`,
 * found by each symbol's version: no row is built for them), and, about once a second, the whole
 * rows whose slower figures changed (averages, ticks per minute, session, alerts) and rows new to
 * the stream. A consumer that reads slowly gets the latest of each row when it catches up: only
 * versions are compared, nothing is queued per tick.
 */
import { instrumentResolver, type SymbolMap } from "../../../../core/schemas/quoteComparison.ts";
import type { AlertKind, QuoteRow, QuoteTick } from "../../../../core/schemas/quotesMonitor.ts";
import type { PlatformBook, SymbolStats } from "./book.ts";

/** How often a live stream re-checks every row's slower figures. */
export const SLOW_FIGURES_EVERY_MS = 1_000;

/** What a live stream has sent: each row's version, and the signature of its slower figures. */
export class LiveCursor {
  readonly versions = new Map<string, number>();
  readonly figures = new Map<string, string>();
  lastFullAt = Number.NEGATIVE_INFINITY;
}

/** An alert raised now, as far as the rows are concerned. */
export interface RowAlert {
  organizationId: string;
  platformId: string;
  symbol: string;
  kind: AlertKind;
  /** A cross-server alert's instrument: every row of it shows the alert. */
  instrument?: string;
}

/** The alerts of each row (`${platformId}:${symbol}`) of the organization. */
export function alertsByRow(organizationId: string, active: Iterable<RowAlert>, books: Iterable<PlatformBook>, map: SymbolMap): Map<string, Set<AlertKind>> {
  const alerts = new Map<string, Set<AlertKind>>();
  let instrumentOf: ((platformId: string, symbol: string) => string) | undefined;
  const add = (key: string, kind: AlertKind) => alerts.set(key, (alerts.get(key) ?? new Set<AlertKind>()).add(kind));
  for (const a of active) {
    if (a.organizationId !== organizationId) continue;
    add(`${a.platformId}:${a.symbol}`, a.kind);
    if (a.kind === "crossServer") {
      instrumentOf ??= instrumentResolver(map);
      for (const book of books)
        if (book.organizationId === organizationId)
          for (const symbol of book.symbols.keys())
            if (instrumentOf(book.platformId, symbol) === a.instrument) add(`${book.platformId}:${symbol}`, "crossServer");
    }
  }
  return alerts;
}

const sortedAlerts = (alerts: Map<string, Set<AlertKind>>, key: string): AlertKind[] => [...(alerts.get(key) ?? [])].sort();

/** Every row of the organization's books, now. */
export function allRows(organizationId: string, books: Iterable<PlatformBook>, alerts: Map<string, Set<AlertKind>>, now: number): QuoteRow[] {
  const rows: QuoteRow[] = [];
  for (const book of books) {
    if (book.organizationId !== organizationId) continue;
    for (const stats of book.symbols.values()) {
      const key = `${book.platformId}:${stats.symbol}`;
      rows.push(stats.row(book.platformId, now, book.session(stats, now), sortedAlerts(alerts, key)));
    }
  }
  return rows;
}

const figuresOf = (row: QuoteRow) => `${row.alerts.join(",")}|${row.session}|${row.ticksPerMinute}|${row.avgSpreadMinute}|${row.avgSpreadHour}`;

const tickOf = (key: string, stats: SymbolStats): QuoteTick => [key, stats.bid!, stats.ask!, stats.spread, stats.lastTickAt!];

/**
 * What changed for a live stream since its last frame (and the cursor moved on): whole rows new to
 * it or whose slower figures changed (checked every SLOW_FIGURES_EVERY_MS, or `full`: the first
 * frame), and ticks for the other rows whose price moved. `alerts` is asked only when rows are built.
 */
export function changesSince(
  cursor: LiveCursor,
  organizationId: string,
  books: Iterable<PlatformBook>,
  alerts: () => Map<string, Set<AlertKind>>,
  now: number,
): { rows: QuoteRow[]; ticks: QuoteTick[] } {
  const full = now - cursor.lastFullAt >= SLOW_FIGURES_EVERY_MS;
  if (full) cursor.lastFullAt = now;
  let byRow: Map<string, Set<AlertKind>> | undefined;
  const rows: QuoteRow[] = [];
  const ticks: QuoteTick[] = [];
  for (const book of books) {
    if (book.organizationId !== organizationId) continue;
    for (const stats of book.symbols.values()) {
      const key = `${book.platformId}:${stats.symbol}`;
      const sent = cursor.versions.get(key);
      if (sent !== undefined && !full) {
        if (sent !== stats.version && stats.lastTickAt !== null && stats.bid !== null && stats.ask !== null) {
          ticks.push(tickOf(key, stats));
          cursor.versions.set(key, stats.version);
        }
        continue;
      }
      byRow ??= alerts();
      const row = stats.row(book.platformId, now, book.session(stats, now), sortedAlerts(byRow, key));
      const figures = figuresOf(row);
      if (sent === undefined || cursor.figures.get(key) !== figures) {
        rows.push(row);
        cursor.figures.set(key, figures);
      } else if (sent !== stats.version && stats.lastTickAt !== null && stats.bid !== null && stats.ask !== null) ticks.push(tickOf(key, stats));
      cursor.versions.set(key, stats.version);
    }
  }
  return { rows, ticks };
}
