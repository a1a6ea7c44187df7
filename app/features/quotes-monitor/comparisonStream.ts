/**
 * The comparison across servers in the page, live: GET /api/quotesMonitor/comparison/live through
 * the app's one Server-Sent Events reader (app/api/liveStream.ts), the same as the monitor's rows
 * (./quoteStream.ts). A snapshot starts over; each frame brings the rows that changed and the
 * instruments no longer compared; the handler gets every row held, by instrument.
 */
import type { ComparisonLiveFrame, ComparisonRow } from "@core/schemas/quoteComparison";
import { apiHeaders } from "~/api/headers";
import { openLiveStream, type StreamStatus } from "~/api/liveStream";

export interface ComparisonStreamHandlers {
  onRows(rows: ComparisonRow[]): void;
  onStatus(status: StreamStatus): void;
}

export function openComparisonStream(handlers: ComparisonStreamHandlers): () => void {
  const held = new Map<string, ComparisonRow>();
  return openLiveStream({
    url: "/api/quotesMonitor/comparison/live",
    headers: () => apiHeaders(),
    onStatus: (status) => handlers.onStatus(status),
    onMessage(message) {
      if (message.event !== "snapshot" && message.event !== "frame") return;
      const frame = JSON.parse(message.data) as ComparisonLiveFrame;
      if (message.event === "snapshot") held.clear();
      for (const instrument of frame.removed) held.delete(instrument);
      for (const row of frame.rows) held.set(row.instrument, row);
      handlers.onRows([...held.values()].sort((a, b) => a.instrument.localeCompare(b.instrument)));
    },
  });
}
