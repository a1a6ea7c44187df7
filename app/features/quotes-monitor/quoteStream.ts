/**
 * The monitor's live rows in the page: GET /api/quotesMonitor/live through the app's one
 * Server-Sent Events reader (app/api/liveStream.ts: fetch with the API's headers, reconnects with
 * backoff). Frames come about ten times a second with what changed: prices as compact ticks; about
 * once a second the figures; whole rows when new or their session or alerts changed (docs/quotes-monitor.md).
 *
 * Each row is one object for its whole life in the page: a frame changes it in place (no copy per
 * frame) and marks it to be shown. The marked rows are offered to the grid once per animation
 * frame (`onChanges`), which may take some now and the rest later: a page that falls behind shows
 * the latest of each row, never a queue of frames.
 */
import type { QuoteFigures, QuoteFrame, QuotePlatform, QuoteRow, QuoteTick } from "@core/schemas/quotesMonitor";
import { apiHeaders } from "~/api/headers";
import { openLiveStream, type StreamStatus } from "~/api/liveStream";
import type { MonitorRow } from "./quoteColumns";

export interface QuoteStreamHandlers {
  /** A snapshot: every row, replacing what the grid holds. */
  onSnapshot(rows: MonitorRow[]): void;
  /**
   * Rows new since the last call, and the rows changed in place and not shown yet: the handler
   * deletes from `pending` the rows it gives the grid; those it leaves are offered again at the
   * next animation frame (with any change meanwhile: the latest of each row, never a queue).
   */
  onChanges(added: MonitorRow[], pending: Set<MonitorRow>): void;
  onPlatforms(platforms: QuotePlatform[]): void;
  /** The server's clock as of the last frame. */
  onNow(now: number): void;
  onStatus(status: StreamStatus): void;
}

/** Sets a row's price, and which way its bid moved (and when) if it did. */
function priceRow(row: MonitorRow, bid: number | null, ask: number | null): void {
  if (row.bid !== null && bid !== null && bid !== row.bid) {
    row.direction = bid > row.bid ? "up" : "down";
    row.movedAt = performance.now();
  }
  row.bid = bid;
  row.ask = ask;
}

export function openQuoteStream(handlers: QuoteStreamHandlers): () => void {
  const held = new Map<string, MonitorRow>();
  const names = new Map<string, string>();
  let added: MonitorRow[] = [];
  /** Rows added since the last flush: the grid gets them whole, never also as updates. */
  const fresh = new Set<MonitorRow>();
  const updated = new Set<MonitorRow>();
  const mark = (row: MonitorRow) => void (fresh.has(row) || updated.add(row));
  let scheduled = 0;

  const flush = () => {
    scheduled = 0;
    if (added.length === 0 && updated.size === 0) return;
    const rows = added;
    added = [];
    fresh.clear();
    handlers.onChanges(rows, updated);
    if (updated.size > 0) schedule();
  };
  const schedule = () => {
    if (scheduled === 0) scheduled = requestAnimationFrame(flush);
  };

  const wholeRow = (row: QuoteRow) => {
    const before = held.get(row.key);
    if (!before) {
      const next: MonitorRow = { ...row, platformName: names.get(row.platformId) ?? row.platformId, direction: null, movedAt: 0 };
      held.set(row.key, next);
      added.push(next);
      fresh.add(next);
      return;
    }
    const { bid, ask, ...rest } = row;
    Object.assign(before, rest);
    priceRow(before, bid, ask);
    mark(before);
  };
  const tick = ([key, bid, ask, spread, lastTickAt]: QuoteTick) => {
    const row = held.get(key);
    if (!row) return;
    priceRow(row, bid, ask);
    row.spread = spread;
    row.lastTickAt = lastTickAt;
    mark(row);
  };

  const figure = ([key, ticksPerMinute, avgSpreadMinute, avgSpreadHour]: QuoteFigures) => {
    const row = held.get(key);
    if (!row) return;
    row.ticksPerMinute = ticksPerMinute;
    row.avgSpreadMinute = avgSpreadMinute;
    row.avgSpreadHour = avgSpreadHour;
    mark(row);
  };

  const stop = openLiveStream({
    url: "/api/quotesMonitor/live",
    headers: () => apiHeaders(),
    onStatus: (status) => handlers.onStatus(status),
    onMessage(message) {
      if (message.event !== "snapshot" && message.event !== "frame") return;
      const frame = JSON.parse(message.data) as QuoteFrame;
      if (frame.platforms) {
        for (const p of frame.platforms) names.set(p.id, p.name);
        for (const row of held.values()) {
          const name = names.get(row.platformId) ?? row.platformId;
          if (row.platformName !== name) {
            row.platformName = name;
            mark(row);
          }
        }
        handlers.onPlatforms(frame.platforms);
      }
      handlers.onNow(frame.now);
      if (message.event === "snapshot") {
        held.clear();
        added = [];
        fresh.clear();
        updated.clear();
        const rows = frame.rows.map((row): MonitorRow => ({ ...row, platformName: names.get(row.platformId) ?? row.platformId, direction: null, movedAt: 0 }));
        for (const row of rows) held.set(row.key, row);
        handlers.onSnapshot(rows);
        return;
      }
      for (const row of frame.rows) wholeRow(row);
      for (const t of frame.ticks ?? []) tick(t);
      for (const f of frame.figures ?? []) figure(f);
      schedule();
    },
  });
  return () => {
    stop();
    if (scheduled !== 0) cancelAnimationFrame(scheduled);
  };
}
