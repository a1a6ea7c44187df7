/**
 * The monitor's books as rows for the screen (docs/quotes-monitor.md, "API"): every row now (the
 * snapshot, GET /api/quotesMonitor/rows), and what changed since a live stream's last frame. A
 * frame carries the prices that moved as compact ticks (`[key, bid, ask, spread, lastTickAt]`,
 * found by each symbol's version: no row is built for them); about once a second the figures that
 * changed (`[key, ticksPerMinute, avgSpreadMinute, avgSpreadHour]`); and whole rows only for rows
 * new to the stream or whose session or alerts changed. A consumer that reads slowly gets the latest of each row when it catches up: only
 * versions are compared, nothing is queued per tick.
 */
import { instrumentResolver, type SymbolMap } from "../../../../core/schemas/quoteComparison.ts";
import type { AlertKind, QuoteFigures, QuoteRow, QuoteTick } from "../../../../core/schemas/quotesMonitor.ts";
import type { PlatformBook, SymbolStats } from "./book.ts";

/** How often a live stream re-checks every row's slower figures. */
export const SLOW_FIGURES_EVERY_MS = 1_000;

/** What a live stream has sent: each row's version, its session and alerts, and its figures. */
export class LiveCursor {
  readonly versions = new Map<string, number>();
  readonly states = new Map<string, string>();
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

const stateOf = (row: QuoteRow) => `${row.alerts.join(",")}|${row.session}`;
const figuresOf = (row: QuoteRow) => `${row.ticksPerMinute}|${row.avgSpreadMinute}|${row.avgSpreadHour}`;

const tickOf = (key: string, stats: SymbolStats): QuoteTick => [key, stats.bid!, stats.ask!, stats.spread, stats.lastTickAt!];

/**
 * What changed for a live stream since its last frame (and the cursor moved on): whole rows new to
 * it or whose session or alerts changed, and the figures that changed (both checked every
 * SLOW_FIGURES_EVERY_MS, the first frame included), and ticks for the other rows whose price
 * moved. `alerts` is asked only when rows are built.
 */
export function changesSince(
  cursor: LiveCursor,
  organizationId: string,
  books: Iterable<PlatformBook>,
  alerts: () => Map<string, Set<AlertKind>>,
  now: number,
): { rows: QuoteRow[]; ticks: QuoteTick[]; figures: QuoteFigures[] } {
  const full = now - cursor.lastFullAt >= SLOW_FIGURES_EVERY_MS;
  if (full) cursor.lastFullAt = now;
  let byRow: Map<string, Set<AlertKind>> | undefined;
  const rows: QuoteRow[] = [];
  const ticks: QuoteTick[] = [];
  const figures: QuoteFigures[] = [];
  for (const book of books) {
    if (book.organizationId !== organizationId) continue;
    for (const stats of book.symbols.values()) {
      const key = stats.key;
      const sent = cursor.versions.get(key);
      if (sent === stats.version && !full) continue;
      const moved = sent !== stats.version && stats.lastTickAt !== null && stats.bid !== null && stats.ask !== null;
      cursor.versions.set(key, stats.version);
      if (sent !== undefined && !full) {
        if (moved) ticks.push(tickOf(key, stats));
        continue;
      }
      byRow ??= alerts();
      const row = stats.row(book.platformId, now, book.session(stats, now), sortedAlerts(byRow, key));
      const state = stateOf(row);
      const figured = figuresOf(row);
      if (sent === undefined || cursor.states.get(key) !== state) {
        rows.push(row);
        cursor.states.set(key, state);
        cursor.figures.set(key, figured);
        continue;
      }
      if (moved) ticks.push(tickOf(key, stats));
      if (cursor.figures.get(key) !== figured) {
        figures.push([key, row.ticksPerMinute, row.avgSpreadMinute, row.avgSpreadHour]);
        cursor.figures.set(key, figured);
      }
    }
  }
  return { rows, ticks, figures };
}
