/**
 * The monitor's live rows in the page: GET /api/quotesMonitor/live through the app's one
 * Server-Sent Events reader (app/api/liveStream.ts: fetch with the API's headers, reconnects with
 * backoff), the same the Trades Blotter's worker runs. Frames come about twice a second with the
 * rows that changed (the server conflates per row), so they are applied here on the page's thread.
 */
import type { QuoteFrame, QuotePlatform, QuoteRow } from "@core/schemas/quotesMonitor";
import { apiHeaders } from "~/api/headers";
import { openLiveStream, type StreamStatus } from "~/api/liveStream";
import type { MonitorRow } from "./quoteColumns";

export interface QuoteStreamHandlers {
  /** Rows to add or update; `replace` when a snapshot starts over. */
  onRows(rows: MonitorRow[], replace: boolean): void;
  onPlatforms(platforms: QuotePlatform[]): void;
  /** The server's clock as of the last frame. */
  onNow(now: number): void;
  onStatus(status: StreamStatus): void;
}

export function openQuoteStream(handlers: QuoteStreamHandlers): () => void {
  const held = new Map<string, MonitorRow>();
  const names = new Map<string, string>();
  const toRow = (row: QuoteRow): MonitorRow => {
    const before = held.get(row.key);
    const moved = before && before.bid !== null && row.bid !== null && row.bid !== before.bid;
    const next: MonitorRow = {
      ...row,
      platformName: names.get(row.platformId) ?? row.platformId,
      direction: moved ? (row.bid! > before.bid! ? "up" : "down") : (before?.direction ?? null),
      movedAt: moved ? performance.now() : (before?.movedAt ?? 0),
    };
    held.set(row.key, next);
    return next;
  };
  return openLiveStream({
    url: "/api/quotesMonitor/live",
    headers: () => apiHeaders(),
    onStatus: (status) => handlers.onStatus(status),
    onMessage(message) {
      if (message.event !== "snapshot" && message.event !== "frame") return;
      const frame = JSON.parse(message.data) as QuoteFrame;
      if (frame.platforms) {
        for (const p of frame.platforms) names.set(p.id, p.name);
        handlers.onPlatforms(frame.platforms);
      }
      if (message.event === "snapshot") held.clear();
      handlers.onNow(frame.now);
      handlers.onRows(frame.rows.map(toRow), message.event === "snapshot");
    },
  });
}
