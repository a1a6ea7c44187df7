import { createParser, type EventSourceMessage } from "eventsource-parser";
import { BACKOFF, retry } from "./retry";

export type StreamStatus = "connecting" | "open" | "waiting" | "stopped";
/** One Server-Sent Event; `event` is undefined when the server named none ("message"). */
export type LiveMessage = EventSourceMessage;

export interface LiveStreamOptions {
  url: string;
  /** Fresh headers for each attempt (the token may have been renewed meanwhile). */
  headers: () => Promise<Headers>;
  onMessage: (message: LiveMessage) => void;
  onStatus?: (status: StreamStatus, detail?: { error?: string }) => void;
  /** The server sends something at least every second; this long without a byte means a dead link. */
  idleTimeoutMs?: number;
  fetch?: typeof fetch;
}

/**
 * Keeps one Server-Sent Events stream open through fetch, not EventSource, because EventSource
 * cannot send the API's Authorization and OrganizationId headers. The text is parsed by
 * eventsource-parser. A connection that cannot open is tried again with the app's backoff
 * (app/api/retry.ts); a stream that opened and then ended is reopened after the first wait (or
 * the server's `retry:`), with the backoff starting over. Returns the function that stops it.
 * Nothing here needs a window: the Trades Blotter runs it in a Web Worker.
 */
export function openLiveStream(options: LiveStreamOptions): () => void {
  const { url, headers, onMessage, onStatus = () => {}, idleTimeoutMs = 20_000 } = options;
  const doFetch = options.fetch ?? ((...args: Parameters<typeof fetch>) => fetch(...args));
  const stop = new AbortController();
  let serverRetryMs: number | undefined;
  const parser = createParser({ onEvent: onMessage, onRetry: (ms) => (serverRetryMs = ms) });

  /** One connection: throws if it could not open; once open, returns when the stream ends, however it ends. */
  async function connect(): Promise<void> {
    const attemptAbort = new AbortController();
    const abortAttempt = () => attemptAbort.abort();
    stop.signal.addEventListener("abort", abortAttempt);
    let idle: ReturnType<typeof setTimeout> | undefined;
    const armIdle = () => {
      clearTimeout(idle);
      idle = setTimeout(() => attemptAbort.abort(new Error("No data from the server")), idleTimeoutMs);
    };
    try {
      onStatus("connecting");
      armIdle();
      const response = await doFetch(url, {
        headers: withAccept(await headers()),
        signal: attemptAbort.signal,
        credentials: "same-origin",
        cache: "no-store",
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      if (!response.headers.get("Content-Type")?.includes("text/event-stream") || !response.body) throw new Error("Not an event stream");
      parser.reset();
      onStatus("open");
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      try {
        for (;;) {
          armIdle();
          const { done, value } = await reader.read();
          if (done) break;
          parser.feed(decoder.decode(value, { stream: true }));
        }
      } catch {
        // The link dropped or went idle: like an end, the stream is opened again.
      }
    } finally {
      clearTimeout(idle);
      stop.signal.removeEventListener("abort", abortAttempt);
      attemptAbort.abort();
    }
  }

  async function run() {
    while (!stop.signal.aborted) {
      try {
        await retry(connect, {
          signal: stop.signal,
          minTimeout: serverRetryMs ?? BACKOFF.minTimeout,
          retryIf: () => !stop.signal.aborted,
          onRetry: (error) => onStatus("waiting", { error: error.message }),
        });
      } catch {
        break; // stopped
      }
      if (stop.signal.aborted) break;
      onStatus("waiting");
      await sleep(serverRetryMs ?? BACKOFF.minTimeout, stop.signal);
    }
    onStatus("stopped");
  }

  void run();
  return () => stop.abort();
}

function withAccept(headers: Headers): Headers {
  headers.set("Accept", "text/event-stream");
  return headers;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}
