/**
 * The live blotter's stream and rows, off the main thread (docs/requirements.md#r-targets-blotter; docs/decisions/0062
 * and 0060): reads GET /api/tradesBlotter/stream (SSE over fetch, decision 0042), parses its
 * frames, coalesces them per row (the row batcher), bounds the rows, keeps them in
 * the grid's order (liveRowModel.ts) and the side panel's figures incrementally. The page's grid
 * (AG Grid's infinite row model) asks for the rows in view (`rows?`) and gets them from here: the
 * main thread never holds more than a few blocks of rows.
 *
 * A plain module: blotterStream.worker.ts runs it in a Web Worker, blotterStream.ts on the main
 * thread when no worker can start, and tests/unit/blotterStreamCore.test.ts drives it directly.
 *
 * Flow control: the page pulls. When frames come, the page hears once that there is something to
 * take (`changed`); its grid's next refresh, paced by the page (framePacer.ts), reads the rows
 * with `take` set, and only then are the rows gathered merged into the model, just before they are
 * read: each row reaches the screen as soon as the page draws again, not after a turn of a timer
 * of its own here (2026-11-24: that turn cost the page 25–30 ms of every row's way to the screen
 * at every rate). Until then frames keep coalescing in the batcher: a page that falls behind gets
 * fewer, larger changes (each row's latest state), never a queue of stale ones. A read without
 * `take` (the grid scrolling to a block it has not read, an export) reads the rows as the page
 * last drew them, so blocks read at different times still fit together.
 *
 * Paused, frames keep coalescing in the batcher, the model stays still (the grid can still scroll
 * through it) and the page gets only the count of updates held back.
 */
import type { BlotterPlatform, BlotterRow } from "@core/schemas/blotterLive";
import { openLiveStream, type StreamStatus } from "~/api/liveStream";
import { createTotalsAccumulator, type BlotterFigures } from "./blotterTotals";
import { createLiveRowModel, type LiveRow, type SortEntry } from "./liveRowModel";
import { BATCH_INTERVAL_MS, createRowBatcher } from "./rowBatcher";

/**
 * The most rows the live view holds (here, in the worker); past it the oldest leave first. The
 * stream's snapshot is the open positions plus 500 recent deals per platform (a few thousand rows
 * on a busy server), and a dealer reads the newest trades at the top: 20,000 keeps the whole
 * snapshot and about a second of new deals at 20,000 updates/s, while every merge, sort and CSV
 * export works over 2.5× fewer rows than the 50,000 of before. It is also the most open positions
 * one server snapshot sends (`snapshotPositions`, server/modules/tradesBlotter/stream.ts).
 */
export const STREAM_MAX_ROWS = 20_000;
/** The side panel's figures follow at most twice a second. */
export const FIGURES_INTERVAL_MS = 500;
/**
 * Told and not taken for this long (a refresh the grid read nothing for, a message lost with a
 * worker's restart), the page is told again: a change never waits for a frame that may not come.
 */
export const RETELL_MS = 1_000;

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
  /**
   * The rows of these ranges (start included, end excluded) in this order; answered by `rows`.
   * `take`: a refresh of every block the grid holds; the rows gathered since the last are merged first.
   */
  | { type: "rows?"; id: number; ranges: { start: number; end: number }[]; sort: SortEntry[]; take: boolean };

/** The rows a `take` merged: how many entered, changed and left (`reset`: all replaced, a snapshot). */
export interface BlotterChange {
  reset: boolean;
  added: number;
  updated: number;
  removed: number;
}

/** Core → page. */
export type BlotterUpdate =
  | { type: "status"; status: StreamStatus }
  | { type: "platforms"; platforms: BlotterPlatform[] }
  /** There are rows to take: the grid should read them again, with `take` (said once until it does). */
  | { type: "changed" }
  | { type: "state"; state: BlotterStreamState; figures: BlotterFigures | null }
  /**
   * The answer to `rows?`: a block per range, the rows there are, the highest arrival number given,
   * and what a `take` merged (null: nothing, or a plain read).
   */
  | { type: "rows"; id: number; blocks: LiveRow[][]; rowCount: number; seq: number; change: BlotterChange | null };

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
  /**
   * One turn: the page hears of the held-back count and the side panel's figures, and again of rows
   * to take if it was told a while ago and took nothing (the interval calls it every 50 ms).
   */
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
  const model = createLiveRowModel();
  /** What changed in the model since the last `take` answered (null: nothing). */
  let change: BlotterChange | null = null;
  let stateChanged = false;
  /** The page was told there are rows to take and has not taken them yet (since `toldAt`). */
  let told = false;
  let toldAt = 0;
  let current: BlotterStreamState = { held: 0, paused: false, rowCount: 0 };
  const batcher = createRowBatcher<BlotterRow>({
    key: (r) => r.key,
    maxRows,
    tracker,
    every: () => () => {},
    reset: (rows) => {
      model.reset(rows);
      change = { reset: true, added: rows.length, updated: 0, removed: 0 };
    },
    apply: (batch) => {
      model.apply(batch);
      change ??= { reset: false, added: 0, updated: 0, removed: 0 };
      change.added += batch.add.length;
      change.updated += batch.update.length;
      change.removed += batch.remove.length;
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

  /** The held-back count and rows held, if they changed, and the figures if due (`force`: at once). */
  function send(force = false) {
    const due = figuresChanged && !batcher.paused ? figuresToSend(force) : null;
    if (stateChanged || due) {
      stateChanged = false;
      post({ type: "state", state: state(), figures: due });
    }
  }

  /** Tells the page once that there are rows to take (merged ones, or some gathered and not paused). */
  function tell() {
    if (told || (change === null && (batcher.paused || !batcher.gathering))) return;
    told = true;
    toldAt = now();
    post({ type: "changed" });
  }

  function answer(command: Extract<BlotterCommand, { type: "rows?" }>) {
    let taken: BlotterChange | null = null;
    if (command.take) {
      batcher.flush();
      taken = change;
      change = null;
      told = false;
    }
    model.sortBy(command.sort);
    post({
      type: "rows",
      id: command.id,
      blocks: command.ranges.map(({ start, end }) => model.slice(start, end)),
      rowCount: model.size,
      seq: model.seq,
      change: taken,
    });
    if (taken) send(taken.reset);
    // Frames that came after the page was told and before this read went in with it; any other
    // change (a clear) is told again.
    tell();
  }

  function tick() {
    if (told && now() - toldAt >= RETELL_MS) told = false;
    tell();
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
        tell();
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
          // The held-back rows go with the grid's next refresh, in one batch.
          batcher.resume();
          break;
        case "rows?":
          answer(command);
          return;
      }
      tell();
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
