/**
 * The blotter's one live connection (GET /api/tradesBlotter/stream, SSE over fetch with the
 * bearer token: docs/decisions/0042). Each attempt sends the API headers as they are then (a
 * renewed token after the server ended the stream at expiry) and `Last-Event-ID`, so a
 * reconnect resumes with nothing lost or repeated; `snapshot` replaces the rows, `frame` adds
 * to them (through the row batcher), `platforms` says which platforms the stream covers.
 */
import type { BlotterPlatform, BlotterRow } from "@core/schemas/blotterLive";
import { apiHeaders } from "~/api/headers";
import { openLiveStream, type StreamStatus } from "~/features/trade-platforms";

export const BLOTTER_STREAM_URL = "/api/tradesBlotter/stream";

export interface BlotterStreamHandlers {
  onSnapshot: (rows: BlotterRow[]) => void;
  onFrame: (rows: BlotterRow[]) => void;
  onPlatforms: (platforms: BlotterPlatform[]) => void;
  onStatus?: (status: StreamStatus, detail?: { error?: string }) => void;
}

/** Opens the stream for these filters (a query string); returns the function that closes it. */
export function openBlotterStream(query: URLSearchParams, handlers: BlotterStreamHandlers, fetchImpl?: typeof fetch): () => void {
  let lastEventId: string | undefined;
  const search = query.toString();
  return openLiveStream({
    url: search ? `${BLOTTER_STREAM_URL}?${search}` : BLOTTER_STREAM_URL,
    headers: async () => {
      const headers = await apiHeaders();
      if (lastEventId !== undefined) headers.set("Last-Event-ID", lastEventId);
      return headers;
    },
    // The server writes a frame, or a ping, well within this.
    idleTimeoutMs: 30_000,
    fetch: fetchImpl,
    onStatus: handlers.onStatus,
    onMessage: (message) => {
      if (message.event === "platforms") {
        handlers.onPlatforms(JSON.parse(message.data) as BlotterPlatform[]);
        return;
      }
      if (message.event !== "frame" && message.event !== "snapshot") return;
      const { rows } = JSON.parse(message.data) as { rows: BlotterRow[] };
      if (message.event === "snapshot") handlers.onSnapshot(rows);
      else if (rows.length > 0) handlers.onFrame(rows);
      if (message.id) lastEventId = message.id;
    },
  });
}
