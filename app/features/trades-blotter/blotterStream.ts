/**
 * The page's side of the blotter's one live connection (GET /api/tradesBlotter/stream, SSE over
 * fetch with the bearer token: docs/decisions/0042). The stream itself, its parsing, coalescing,
 * row bound and the side panel's figures run in a Web Worker (blotterStream.worker.ts around
 * blotterStreamCore.ts, docs/decisions/0062), and so do the rows in the grid's order (the same
 * decision): the page hears that there are rows to take (`changed`, once until it takes them), and its
 * grid asks for the rows in view (`rows`), taking the new ones with each refresh (`take`).
 *
 * Each connection attempt asks the page for the API headers as they are then (a renewed token
 * after the server ended the stream at expiry, the current organization); the worker sends them
 * with `Last-Event-ID`, so a reconnect resumes with nothing lost or repeated.
 */
import type { BlotterPlatform } from "@core/schemas/blotterLive";
import type { StreamStatus } from "~/api/liveStream";
import { apiHeaders } from "~/api/headers";
import type { BlotterFigures } from "./blotterTotals";
import {
  createBlotterStreamCore,
  type BlotterChange,
  type BlotterCommand,
  type BlotterStreamState,
  type BlotterUpdate,
  type BlotterWorkerInput,
  type BlotterWorkerOutput,
} from "./blotterStreamCore";
import type { LiveRow, SortEntry } from "./liveRowModel";

export const BLOTTER_STREAM_URL = "/api/tradesBlotter/stream";

export interface BlotterStreamHandlers {
  /** There are rows to take: the grid should refresh, reading its rows with `take` (said once until it does). */
  onChanged: () => void;
  /** Held-back count, paused, rows held; `figures` when the side panel's figures changed. */
  onState: (state: BlotterStreamState, figures: BlotterFigures | null) => void;
  onPlatforms: (platforms: BlotterPlatform[]) => void;
  onStatus?: (status: StreamStatus) => void;
}

/**
 * The answer to `rows()`: a block per range asked, the rows there are, the highest arrival number
 * given, and what a `take` merged first (null: nothing, or a plain read).
 */
export interface LiveRowsAnswer {
  blocks: LiveRow[][];
  rowCount: number;
  seq: number;
  change: BlotterChange | null;
}

export interface BlotterStream {
  /** (Re)opens the stream for these filters; `clear` empties the grid first (another organization). */
  start(query: URLSearchParams, clear?: boolean): void;
  stop(): void;
  pause(): void;
  resume(): void;
  /**
   * The rows of these ranges (start included, end excluded), in this order. `take`: a refresh of
   * every block the grid holds, which takes the rows that came since the last first.
   */
  rows(ranges: { start: number; end: number }[], sort: SortEntry[], take?: boolean): Promise<LiveRowsAnswer>;
  /** Ends the stream and its worker. */
  close(): void;
  /** "worker", or "main" when no worker could start. */
  readonly runsIn: "worker" | "main";
}

export function blotterStreamUrl(query: URLSearchParams): string {
  const search = query.toString();
  return search ? `${BLOTTER_STREAM_URL}?${search}` : BLOTTER_STREAM_URL;
}

/**
 * Starts the stream's worker (browser only: call it from an effect). `worker: false`, or a browser
 * where no worker starts, runs the same core on the main thread.
 */
export function openBlotterStream(handlers: BlotterStreamHandlers, options: { worker?: boolean; fetch?: typeof fetch } = {}): BlotterStream {
  let send: (command: BlotterCommand) => void;
  let end: () => void;
  let runsIn: "worker" | "main" = "main";
  /** What to replay on the main thread if the worker fails to load. */
  let lastStart: BlotterCommand | null = null;
  let paused = false;
  let closed = false;
  let lastRequest = 0;
  const asked = new Map<number, { resolve: (answer: LiveRowsAnswer) => void; reject: (error: Error) => void }>();

  function receive(update: BlotterUpdate) {
    if (closed) return;
    switch (update.type) {
      case "changed":
        handlers.onChanged();
        break;
      case "rows": {
        const request = asked.get(update.id);
        asked.delete(update.id);
        request?.resolve({ blocks: update.blocks, rowCount: update.rowCount, seq: update.seq, change: update.change });
        break;
      }
      case "state":
        handlers.onState(update.state, update.figures);
        break;
      case "platforms":
        handlers.onPlatforms(update.platforms);
        break;
      case "status":
        handlers.onStatus?.(update.status);
        break;
    }
  }

  function onMainThread() {
    const core = createBlotterStreamCore({ post: receive, headers: () => apiHeaders(), fetch: options.fetch });
    runsIn = "main";
    send = (command) => core.handle(command);
    end = () => core.dispose();
  }

  function inWorker(): boolean {
    // The fallback is for browsers (or tests in jsdom) without module workers, and for a worker
    // script that fails to load (a strict Content-Security-Policy, a stale deployment): the blotter
    // must still work there, only with its parsing on the main thread.
    if (options.worker === false || typeof Worker === "undefined") return false;
    let worker: Worker;
    try {
      worker = new Worker(new URL("./blotterStream.worker.ts", import.meta.url), { type: "module", name: "trades-blotter-stream" });
    } catch {
      return false;
    }
    let heard = false;
    const post = (message: BlotterWorkerInput) => worker.postMessage(message);
    worker.onmessage = ({ data }: MessageEvent<BlotterWorkerOutput>) => {
      heard = true;
      if (data.type !== "headers?") return receive(data);
      void apiHeaders().then(
        (headers) => post({ type: "headers", id: data.id, entries: [...headers] }),
        () => post({ type: "headers", id: data.id, entries: [] }),
      );
    };
    worker.onerror = (event) => {
      if (heard || closed) return;
      // It never ran: the same work on the main thread, from where the page is.
      event.preventDefault();
      worker.terminate();
      // Its rows went with it: the grid asks the main thread's core again.
      for (const request of asked.values()) request.reject(new Error("The blotter's worker did not start."));
      asked.clear();
      onMainThread();
      if (lastStart) send(lastStart);
      if (paused) send({ type: "pause" });
    };
    runsIn = "worker";
    send = post;
    end = () => worker.terminate();
    return true;
  }

  if (!inWorker()) onMainThread();

  return {
    start(query, clear = false) {
      lastStart = { type: "start", url: blotterStreamUrl(query), clear };
      send(lastStart);
    },
    stop() {
      lastStart = null;
      send({ type: "stop" });
    },
    pause() {
      paused = true;
      send({ type: "pause" });
    },
    resume() {
      paused = false;
      send({ type: "resume" });
    },
    rows(ranges, sort, take = false) {
      if (closed) return Promise.reject(new Error("The blotter's stream is closed."));
      const id = ++lastRequest;
      return new Promise<LiveRowsAnswer>((resolve, reject) => {
        asked.set(id, { resolve, reject });
        send({ type: "rows?", id, ranges, sort, take });
      });
    },
    close() {
      closed = true;
      for (const request of asked.values()) request.reject(new Error("The blotter's stream is closed."));
      asked.clear();
      end();
    },
    get runsIn() {
      return runsIn;
    },
  };
}
