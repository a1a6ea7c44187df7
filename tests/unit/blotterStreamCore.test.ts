/**
 * The live blotter's stream core (app/features/trades-blotter/blotterStreamCore.ts), which the
 * page runs in a Web Worker: the real SSE-over-fetch client reading a stream this test writes,
 * the frames coalesced per row into the rows the grid reads (in its sort order), one change per
 * turn and none until the page took the last, pause with only the held-back count, the row bound,
 * reconnection with fresh headers and the last event id. Then the page's side (blotterStream.ts) where no worker exists (jsdom): the same
 * core on the main thread.
 */
import { afterEach, describe, expect, it, vi } from "vitest";

vi.mock("~/auth", () => ({
  getFreshUser: vi.fn(async () => ({ access_token: "page-token", token_type: "Bearer", profile: { sub: "u1" } })),
}));

import type { BlotterRow } from "@core/schemas/blotterLive";
import { openBlotterStream } from "~/features/trades-blotter/blotterStream";
import { createBlotterStreamCore, type BlotterChange, type BlotterUpdate } from "~/features/trades-blotter/blotterStreamCore";
import { exposureOf, totalsOf } from "~/features/trades-blotter/blotterTotals";
import type { SortEntry } from "~/features/trades-blotter/liveRowModel";

function row(key: string, extra: Partial<BlotterRow> = {}): BlotterRow {
  return {
    key,
    kind: key.startsWith("p:") ? "position" : "deal",
    platformId: "p1",
    login: "1001",
    group: "real",
    time: 1,
    ticket: key,
    position: null,
    symbol: "EURUSD",
    side: "buy",
    entry: "in",
    volume: 10_000,
    price: 1.1,
    sl: null,
    tp: null,
    profit: 100,
    commission: -5,
    swap: 0,
    reason: "client",
    comment: "",
    state: key.startsWith("p:") ? "open" : null,
    contractSize: 100_000,
    ...extra,
  };
}

/** A server end: every fetch opens a stream this test writes to (`retry: 1` so a reconnect is immediate). */
function sseServer() {
  const requests: { url: string; headers: Headers }[] = [];
  const streams: ReadableStreamDefaultController<Uint8Array>[] = [];
  const fetch = vi.fn(async (url: RequestInfo | URL, init?: RequestInit) => {
    requests.push({ url: url instanceof Request ? url.url : url.toString(), headers: new Headers(init?.headers) });
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        streams.push(controller);
        controller.enqueue(new TextEncoder().encode("retry: 1\n\n"));
        init?.signal?.addEventListener("abort", () => {
          try {
            controller.error(new Error("aborted"));
          } catch {
            // already closed
          }
        });
      },
    });
    return new Response(body, { headers: { "Content-Type": "text/event-stream" } });
  });
  let lastId = 0;
  const send = (event: string, data: unknown) =>
    streams.at(-1)!.enqueue(new TextEncoder().encode(`event: ${event}\nid: ${++lastId}\ndata: ${JSON.stringify(data)}\n\n`));
  return {
    fetch: fetch as unknown as typeof globalThis.fetch,
    requests,
    snapshot: (rows: BlotterRow[]) => send("snapshot", { rows }),
    frame: (rows: BlotterRow[]) => send("frame", { rows }),
    platforms: (id: string) =>
      streams.at(-1)!.enqueue(new TextEncoder().encode(`event: platforms\ndata: ${JSON.stringify([{ id, name: id, type: "MT5", timeZone: "UTC" }])}\n\n`)),
    end: () => streams.at(-1)!.close(),
  };
}

function harness(maxRows?: number) {
  const server = sseServer();
  const updates: BlotterUpdate[] = [];
  let token = 0;
  const clock = { now: 0 };
  const core = createBlotterStreamCore({
    post: (u) => updates.push(u),
    headers: async () => new Headers({ Authorization: `Bearer token-${++token}`, OrganizationId: "org-1" }),
    fetch: server.fetch,
    every: () => () => {},
    now: () => clock.now,
    ...(maxRows ? { maxRows } : {}),
  });
  const changes = () => updates.filter((u) => u.type === "changed");
  const states = () => updates.filter((u) => u.type === "state");
  let asked = 0;
  /** What the grid would read: the rows from `start` to `end` in this order (newest first by default). */
  const view = (start = 0, end = 1_000, sort: SortEntry[] = [{ colId: "serverTime", sort: "desc" }]) => {
    const id = ++asked;
    core.handle({ type: "rows?", id, ranges: [{ start, end }], sort });
    const answer = updates.findLast((u) => u.type === "rows" && u.id === id);
    if (answer?.type !== "rows") throw new Error("no answer");
    return answer;
  };
  /** The keys the grid would show, in its order. */
  const keys = (sort?: SortEntry[]) => view(0, 1_000, sort).blocks[0]!.map((r) => r.key);
  /** Everything written before this marker has been read and parsed once the marker's platforms event is posted. */
  let marks = 0;
  async function read() {
    const mark = `mark-${++marks}`;
    server.platforms(mark);
    await vi.waitFor(() => expect(updates.some((u) => u.type === "platforms" && u.platforms[0]!.id === mark)).toBe(true));
  }
  return { server, core, updates, changes, states, view, keys, read, clock };
}

afterEach(() => vi.restoreAllMocks());

describe("the blotter's stream core", () => {
  it("holds the snapshot, then one change per turn coalesced per row, and no more until the page took the last; the grid reads the rows newest first", async () => {
    const { server, core, changes, keys, view, read } = harness();
    core.handle({ type: "start", url: "/api/tradesBlotter/stream?symbol=EUR*", clear: false });
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    expect(server.requests[0]!.url).toBe("/api/tradesBlotter/stream?symbol=EUR*");
    expect(server.requests[0]!.headers.get("Authorization")).toBe("Bearer token-1");
    expect(server.requests[0]!.headers.get("OrganizationId")).toBe("org-1");

    const snapshot = [row("p:1", { time: 10 }), row("d:1", { side: "sell", volume: 5_000, time: 20 })];
    server.snapshot(snapshot);
    await read();
    expect(changes()).toHaveLength(0);
    expect(keys()).toEqual([]);
    core.tick();
    expect(changes()).toEqual([
      {
        type: "changed",
        change: { reset: true, added: 2, updated: 0, removed: 0 },
        state: { held: 0, paused: false, rowCount: 2 },
        figures: { totals: totalsOf(snapshot), exposure: exposureOf(snapshot) },
      },
    ]);
    expect(keys()).toEqual(["d:1", "p:1"]);
    const seqAtSnapshot = view().seq;

    server.frame([row("p:1", { sl: 1, time: 10 }), row("d:2", { time: 30 })]);
    server.frame([row("p:1", { sl: 2, time: 10 })]);
    await read();
    core.tick();
    // The page has not taken the snapshot yet: the frames wait, coalescing, and the grid reads the rows as they were.
    expect(changes()).toHaveLength(1);
    expect(keys()).toEqual(["d:1", "p:1"]);
    server.frame([row("p:1", { sl: 3, time: 10 })]);
    await read();
    core.handle({ type: "applied" });
    core.tick();
    expect(changes()).toHaveLength(2);
    expect(changes()[1]).toMatchObject({ change: { reset: false, added: 1, updated: 1, removed: 0 }, state: { rowCount: 3 } });
    const answer = view();
    expect(answer.blocks[0]!.map((r) => [r.key, r.sl])).toEqual([
      ["d:2", null],
      ["d:1", null],
      ["p:1", 3],
    ]);
    expect(answer.rowCount).toBe(3);
    // The rows that entered or changed since the snapshot are the ones above its arrival number (they flash).
    expect(answer.blocks[0]!.filter((r) => r.s > seqAtSnapshot).map((r) => r.key)).toEqual(["d:2", "p:1"]);
    core.tick();
    expect(changes()).toHaveLength(2);
    core.dispose();
  });

  it("answers the blocks the grid asks for in the grid's sort order, and a block past the end with what is left", async () => {
    const { server, core, updates, keys, view, read } = harness();
    core.handle({ type: "start", url: "/s", clear: false });
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    server.snapshot([
      row("d:1", { time: 5, symbol: "XAUUSD", volume: 30_000 }),
      row("d:2", { time: 5, symbol: "EURUSD", volume: 10_000 }),
      row("d:3", { time: 7, symbol: null, volume: 20_000 }),
    ]);
    await read();
    core.tick();
    // Equal times: the later arrival first.
    expect(keys()).toEqual(["d:3", "d:2", "d:1"]);
    expect(keys([{ colId: "utcTime", sort: "asc" }])).toEqual(["d:2", "d:1", "d:3"]);
    expect(keys([{ colId: "volume", sort: "desc" }])).toEqual(["d:1", "d:3", "d:2"]);
    // No symbol sorts first going up, as AG Grid sorts an empty value.
    expect(keys([{ colId: "symbol", sort: "asc" }])).toEqual(["d:3", "d:2", "d:1"]);
    expect(keys([{ colId: "symbol", sort: "desc" }])).toEqual(["d:1", "d:2", "d:3"]);
    // No sort: newest first, the blotter's own order.
    expect(keys([])).toEqual(["d:3", "d:2", "d:1"]);
    expect(view(2, 100).blocks[0]!.map((r) => r.key)).toEqual(["d:1"]);
    // Two blocks asked together are answered together, from one state of the rows.
    core.handle({
      type: "rows?",
      id: 99,
      ranges: [
        { start: 0, end: 2 },
        { start: 2, end: 4 },
      ],
      sort: [],
    });
    const answer = updates.findLast((u) => u.type === "rows" && u.id === 99);
    expect(answer?.type === "rows" && answer.blocks.map((block) => block.map((r) => r.key))).toEqual([["d:3", "d:2"], ["d:1"]]);
    core.dispose();
  });

  it("paused, posts only the count of updates held back and the grid reads still rows; resumed, one change with each row's latest state", async () => {
    const { server, core, changes, states, keys, view, read } = harness();
    core.handle({ type: "start", url: "/s", clear: false });
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    server.snapshot([row("p:1")]);
    await read();
    core.tick();
    core.handle({ type: "applied" });

    core.handle({ type: "pause" });
    expect(states().at(-1)!.state).toEqual({ held: 0, paused: true, rowCount: 1 });
    server.frame([row("p:1", { sl: 1 }), row("d:1", { time: 2 })]);
    server.frame([row("p:1", { sl: 2 })]);
    await read();
    core.tick();
    core.tick();
    expect(changes()).toHaveLength(1);
    expect(states().at(-1)!.state).toEqual({ held: 3, paused: true, rowCount: 1 });
    // Paused, the grid does not change, so neither do its figures.
    expect(states().at(-1)!.figures).toBeNull();
    expect(view().blocks[0]!.map((r) => [r.key, r.sl])).toEqual([["p:1", null]]);

    core.handle({ type: "resume" });
    expect(changes()).toHaveLength(2);
    expect(changes()[1]).toMatchObject({ change: { reset: false, added: 1, updated: 1, removed: 0 }, state: { held: 0, paused: false, rowCount: 2 } });
    expect(keys()).toEqual(["d:1", "p:1"]);
    core.dispose();
  });

  it("keeps the newest rows up to its bound, the oldest leaving in the same change; the figures follow at most twice a second", async () => {
    const { server, core, changes, states, keys, read, clock } = harness(2);
    core.handle({ type: "start", url: "/s", clear: false });
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    server.snapshot([row("d:1"), row("d:2")]);
    await read();
    core.tick();
    core.handle({ type: "applied" });
    server.frame([row("d:3", { symbol: "XAUUSD", contractSize: 100, price: 2000 })]);
    await read();
    core.tick();
    expect(changes()[1]).toMatchObject({ change: { added: 1, updated: 0, removed: 1 } });
    expect(keys()).toEqual(["d:3", "d:2"]);
    // The snapshot's figures went just now: these wait …
    expect(changes()[1]!.figures).toBeNull();
    core.handle({ type: "applied" });
    core.tick();
    expect(states()).toHaveLength(0);
    // … until half a second has passed, then go on their own.
    clock.now = 500;
    core.tick();
    const kept = [row("d:2"), row("d:3", { symbol: "XAUUSD", contractSize: 100, price: 2000 })];
    expect(states()).toEqual([
      { type: "state", state: { held: 0, paused: false, rowCount: 2 }, figures: { totals: totalsOf(kept), exposure: exposureOf(kept) } },
    ]);
    core.tick();
    expect(states()).toHaveLength(1);
    core.dispose();
  });

  it("reconnects when the stream ends, with fresh headers and the last event id; start with clear empties the grid", async () => {
    const { server, core, changes, keys, read } = harness();
    core.handle({ type: "start", url: "/s", clear: false });
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    server.snapshot([row("d:1")]);
    server.frame([row("d:2")]);
    await read();
    // The server ends the stream when the token expires: the next attempt carries the renewed one.
    server.end();
    await vi.waitFor(() => expect(server.requests).toHaveLength(2));
    expect(server.requests[1]!.headers.get("Last-Event-ID")).toBe("2");
    expect(server.requests[1]!.headers.get("Authorization")).toBe("Bearer token-2");
    core.tick();
    expect(keys()).toHaveLength(2);
    core.handle({ type: "applied" });

    core.handle({ type: "start", url: "/s?other", clear: true });
    expect(changes().at(-1)).toMatchObject({ change: { reset: true, added: 0 }, state: { rowCount: 0 }, figures: { totals: totalsOf([]), exposure: [] } });
    expect(keys()).toEqual([]);
    await vi.waitFor(() => expect(server.requests).toHaveLength(3));
    // Another stream: it starts from its own snapshot, not from the last id of the one before.
    expect(server.requests[2]!.headers.get("Last-Event-ID")).toBeNull();
    core.dispose();
  });
});

describe("the page's side of the stream, where no worker can start", () => {
  it("runs the core on the main thread with the page's API headers; the grid reads its rows, and the next change waits for the page to take the last", async () => {
    const server = sseServer();
    const changes: BlotterChange[] = [];
    const stream = openBlotterStream(
      {
        onChanged: (change) => changes.push(change),
        onState: () => {},
        onPlatforms: () => {},
      },
      { fetch: server.fetch },
    );
    expect(stream.runsIn).toBe("main");
    stream.start(new URLSearchParams("symbol=XAU*"));
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    expect(server.requests[0]!.url).toBe("/api/tradesBlotter/stream?symbol=XAU*");
    expect(server.requests[0]!.headers.get("Authorization")).toBe("Bearer page-token");
    server.snapshot([row("d:1")]);
    await vi.waitFor(() => expect(changes).toHaveLength(1));
    server.frame([row("d:2", { time: 2 })]);
    // Not told until the page took the snapshot's change.
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(changes).toHaveLength(1);
    const keys = async () => (await stream.rows([{ start: 0, end: 10 }], [])).blocks[0]!.map((r) => r.key);
    expect(await keys()).toEqual(["d:1"]);
    stream.applied();
    await vi.waitFor(() => expect(changes).toHaveLength(2));
    expect(changes).toEqual([
      { reset: true, added: 1, updated: 0, removed: 0 },
      { reset: false, added: 1, updated: 0, removed: 0 },
    ]);
    expect(await keys()).toEqual(["d:2", "d:1"]);
    stream.close();
    await expect(stream.rows([{ start: 0, end: 10 }], [])).rejects.toThrow(/closed/);
  });
});
