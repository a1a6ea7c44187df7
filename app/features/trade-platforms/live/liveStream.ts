import { backoffDelay } from "./backoff";
import { createSseParser, type SseMessage } from "./sseParser";

export type StreamStatus = "connecting" | "open" | "waiting" | "stopped";

export interface LiveStreamOptions {
  url: string;
  /** Fresh headers for each attempt (the token may have been renewed meanwhile). */
  headers: () => Promise<Headers>;
  onMessage: (message: SseMessage) => void;
  onStatus?: (status: StreamStatus, detail?: { retryInMs?: number; error?: string }) => void;
  /** The server sends something at least every second; this long without a byte means a dead link. */
  idleTimeoutMs?: number;
  fetch?: typeof fetch;
  random?: () => number;
}

/**
 * Keeps one Server-Sent Events stream open through fetch (so it carries the API's headers):
 * parses it, and after any end or failure reconnects with exponential backoff and jitter (or
 * the server's `retry:`). Returns the function that stops it for good.
 */
export function openLiveStream(options: LiveStreamOptions): () => void {
  const { url, headers, onMessage, onStatus = () => {}, idleTimeoutMs = 20_000, random = Math.random } = options;
  const doFetch = options.fetch ?? ((...args: Parameters<typeof fetch>) => fetch(...args));
  const stop = new AbortController();
  const parser = createSseParser(onMessage);
  let attempt = 0;

  async function connectOnce(): Promise<void> {
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
      attempt = 0;
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      for (;;) {
        armIdle();
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } finally {
      clearTimeout(idle);
      stop.signal.removeEventListener("abort", abortAttempt);
      attemptAbort.abort();
    }
  }

  async function run() {
    while (!stop.signal.aborted) {
      let error: string | undefined;
      try {
        await connectOnce();
      } catch (e) {
        error = e instanceof Error ? e.message : String(e);
      }
      if (stop.signal.aborted) break;
      const retryInMs = backoffDelay(attempt++, parser.retryMs ?? undefined, random);
      onStatus("waiting", { retryInMs, error });
      await sleep(retryInMs, stop.signal);
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
