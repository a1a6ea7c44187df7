/**
 * The live blotter's stream, off the main thread (issue 7, "Speed"; docs/decisions/0047): reads
 * GET /api/tradesBlotter/stream (SSE over fetch, decision 0042), parses its frames, coalesces them
 * per row (the row batcher, decision 0043), bounds the rows, keeps the side panel's figures
 * incrementally, and posts the page at most one batch per ~50 ms, already in the grid's row shape.
 *
 * A plain module: blotterStream.worker.ts runs it in a Web Worker, blotterStream.ts on the main
 * thread when no worker can start, and tests/unit/blotterStreamCore.test.ts drives it directly.
 *
 * Flow control: after posting rows the core waits for the page's `applied` before posting more;
 * meanwhile frames keep coalescing here. A page that falls behind gets fewer, larger batches (each
 * row's latest state), never a queue of stale ones.
 *
 * Paused, frames keep coalescing here and the page gets only the count of updates held back.
 */
import type { BlotterPlatform, BlotterRow } from "@core/schemas/blotterLive";
import { openLiveStream, type StreamStatus } from "~/api/liveStream";
import { createTotalsAccumulator, type BlotterFigures } from "./blotterTotals";
import { BATCH_INTERVAL_MS, createRowBatcher, type RowBatch } from "./rowBatcher";

/**
 * The most rows the streaming grid holds; past it the oldest leave first. The stream's snapshot
 * is the open positions plus 500 recent deals per platform (a few thousand rows on a busy
 * server), and a dealer reads the newest trades at the top: 20,000 keeps the whole snapshot and
 * about a second of new deals at 20,000 updates/s, while every transaction, sort and CSV export
 * works over 2.5× fewer rows than the 50,000 of before. It matches the server's per-stream bound
 * of rows gathered (decision 0043), so one resynchronizing snapshot always fits.
 */
export const STREAM_MAX_ROWS = 20_000;
/** The side panel's figures follow at most twice a second. */
export const FIGURES_INTERVAL_MS = 500;

export interface BlotterStreamState {
  /** Updates received while paused (every one counts, even several for one row). */
  held: number;
  paused: boolean;
  rowCount: number;
}

/** Page → core. */
export type BlotterCommand =
  /** (Re)open the stream at this URL; `clear` empties the grid first (another organization). */
  | { type: "start"; url: string; clear: boolean }
  | { type: "stop" }
  | { type: "pause" }
  | { type: "resume" }
  /** The page applied the last `rows` it was posted. */
  | { type: "applied" };

/** Core → page. */
export type BlotterUpdate =
  | { type: "status"; status: StreamStatus }
  | { type: "platforms"; platforms: BlotterPlatform[] }
  /** `reset`: replace every row with these (then apply `batch`, if any). Answer with `applied`. */
  | { type: "rows"; reset: BlotterRow[] | null; batch: RowBatch<BlotterRow> | null; state: BlotterStreamState; figures: BlotterFigures | null }
  | { type: "state"; state: BlotterStreamState; figures: BlotterFigures | null };

export interface BlotterStreamCoreOptions {
  post: (update: BlotterUpdate) => void;
  /** The API headers for a connection attempt (bearer token, OrganizationId), fresh each time. */
  headers: () => Promise<Headers>;
  fetch?: typeof fetch;
  /** setInterval by default; tests call `tick()` themselves with `() => () => {}`. */
  every?: (fn: () => void, ms: number) => () => void;
  now?: () => number;
  maxRows?: number;
}

export interface BlotterStreamCore {
  handle(command: BlotterCommand): void;
  /** One batching turn (the interval calls it every 50 ms). */
  tick(): void;
  dispose(): void;
}

export function createBlotterStreamCore(options: BlotterStreamCoreOptions): BlotterStreamCore {
  const { post, headers, now = Date.now, maxRows = STREAM_MAX_ROWS } = options;
  const every =
    options.every ??
    ((fn: () => void, ms: number) => {
      const id = setInterval(fn, ms);
      return () => clearInterval(id);
    });
  const figures = createTotalsAccumulator();
  let figuresChanged = false;
  let figuresDue = 0;
  const tracker = {
    add: (row: BlotterRow) => {
      figuresChanged = true;
      figures.add(row);
    },
    remove: (row: BlotterRow) => {
      figuresChanged = true;
      figures.remove(row);
    },
    clear: () => {
      figuresChanged = true;
      figures.clear();
    },
  };
  /** What the batcher handed over since the last post. */
  let reset: BlotterRow[] | null = null;
  let batch: RowBatch<BlotterRow> | null = null;
  let stateChanged = false;
  /** Rows posted and not yet applied by the page. */
  let unapplied = 0;
  let current: BlotterStreamState = { held: 0, paused: false, rowCount: 0 };
  const batcher = createRowBatcher<BlotterRow>({
    key: (r) => r.key,
    maxRows,
    tracker,
    every: () => () => {},
    reset: (rows) => {
      reset = rows;
      batch = null;
    },
    // Each turn below posts what a flush handed over before the next flush can run.
    apply: (next) => {
      batch = next;
    },
    onChange: ({ held, paused, rowCount }) => {
      current = { held, paused, rowCount };
      stateChanged = true;
    },
  });
  const state = () => ({ ...current });

  /** The figures, if they changed and are due (or `force`: a reset shows its figures at once). */
  function figuresToSend(force: boolean): BlotterFigures | null {
    if (!figuresChanged || (!force && now() < figuresDue)) return null;
    figuresChanged = false;
    figuresDue = now() + FIGURES_INTERVAL_MS;
    return figures.figures();
  }

  function send() {
    if (reset || batch) {
      const message: BlotterUpdate = { type: "rows", reset, batch, state: state(), figures: figuresToSend(reset !== null) };
      reset = null;
      batch = null;
      stateChanged = false;
      unapplied++;
      post(message);
      return;
    }
    const due = figuresChanged && !batcher.paused ? figuresToSend(false) : null;
    if (stateChanged || due) {
      stateChanged = false;
      post({ type: "state", state: state(), figures: due });
    }
  }

  function tick() {
    if (unapplied === 0) batcher.flush();
    send();
  }

  let stopStream: (() => void) | null = null;
  function start(url: string) {
    stopStream?.();
    let lastEventId: string | undefined;
    stopStream = openLiveStream({
      url,
      headers: async () => {
        const h = await headers();
        // A reconnect (the token expired and was renewed, the link dropped) resumes where it was.
        if (lastEventId !== undefined) h.set("Last-Event-ID", lastEventId);
        return h;
      },
      // The server writes a frame, or a ping, well within this.
      idleTimeoutMs: 30_000,
      fetch: options.fetch,
      onStatus: (status) => post({ type: "status", status }),
      onMessage: (message) => {
        if (message.event === "platforms") {
          post({ type: "platforms", platforms: JSON.parse(message.data) as BlotterPlatform[] });
          return;
        }
        if (message.event !== "frame" && message.event !== "snapshot") return;
        const { rows } = JSON.parse(message.data) as { rows: BlotterRow[] };
        if (message.event === "snapshot") batcher.snapshot(rows);
        else if (rows.length > 0) batcher.push(rows);
        if (message.id) lastEventId = message.id;
      },
    });
  }

  const stopTicking = every(tick, BATCH_INTERVAL_MS);

  return {
    handle(command) {
      switch (command.type) {
        case "start":
          if (command.clear) batcher.clear();
          start(command.url);
          break;
        case "stop":
          stopStream?.();
          stopStream = null;
          break;
        case "pause":
          batcher.pause();
          break;
        case "resume":
          // The held-back rows go at once, in one batch (after the one in flight, if any).
          batcher.resume();
          break;
        case "applied":
          unapplied = Math.max(0, unapplied - 1);
          return;
      }
      send();
    },
    tick,
    dispose() {
      stopTicking();
      stopStream?.();
      stopStream = null;
    },
  };
}

/** The page → worker messages: the commands, and the headers the worker asked for. */
export type BlotterWorkerInput = BlotterCommand | { type: "headers"; id: number; entries: [string, string][] };
/** The worker → page messages: the updates, and a request for the API headers (before each connection attempt). */
export type BlotterWorkerOutput = BlotterUpdate | { type: "headers?"; id: number };
