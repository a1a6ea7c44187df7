/**
 * The live blotter's stream core (app/features/trades-blotter/blotterStreamCore.ts), which the
 * page runs in a Web Worker: the real SSE-over-fetch client reading a stream this test writes,
 * the frames coalesced per row into the rows the grid reads (in its sort order), the page told
 * once and the rows merged when its refresh takes them, pause with only the held-back count, the row bound,
 * reconnection with fresh headers and the last event id. Then the page's side (blotterStream.ts) where no worker exists (jsdom): the same
 * core on the main thread.
 */
import { afterEach, describe, expect, it, vi } from "vitest";

vi.mock("~/auth", () => ({
  getFreshUser: vi.fn(async () => ({ access_token: "page-token", token_type: "Bearer", profile: { sub: "u1" } })),
}));

import type { BlotterRow } from "@core/schemas/blotterLive";
import { openBlotterStream } from "~/features/trades-blotter/blotterStream";
import { createBlotterStreamCore, RETELL_MS, type BlotterUpdate } from "~/features/trades-blotter/blotterStreamCore";
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
  /** What the grid would read: the rows from `start` to `end` in this order (newest first by default); `take` as a refresh reads. */
  const view = (start = 0, end = 1_000, sort: SortEntry[] = [{ colId: "serverTime", sort: "desc" }], take = false) => {
    const id = ++asked;
    core.handle({ type: "rows?", id, ranges: [{ start, end }], sort, take });
    const answer = updates.findLast((u) => u.type === "rows" && u.id === id);
    if (answer?.type !== "rows") throw new Error("no answer");
    return answer;
  };
  /** The keys a block scrolled to would show, in the grid's order (a plain read). */
  const keys = (sort?: SortEntry[]) => view(0, 1_000, sort).blocks[0]!.map((r) => r.key);
  /** What the grid's refresh would read: it takes the rows gathered first. */
  const take = (sort?: SortEntry[]) => view(0, 1_000, sort, true);
  /** Everything written before this marker has been read and parsed once the marker's platforms event is posted. */
  let marks = 0;
  async function read() {
    const mark = `mark-${++marks}`;
    server.platforms(mark);
    await vi.waitFor(() => expect(updates.some((u) => u.type === "platforms" && u.platforms[0]!.id === mark)).toBe(true));
  }
  return { server, core, updates, changes, states, view, keys, take, read, clock };
}

afterEach(() => vi.restoreAllMocks());

describe("the blotter's stream core", () => {
  it("tells the page once that there are rows to take and merges them only when its refresh reads them, coalesced per row; a plain read shows the rows as the last refresh left them, newest first", async () => {
    const { server, core, changes, states, keys, take, read, clock } = harness();
    core.handle({ type: "start", url: "/api/tradesBlotter/stream?symbol=EUR*", clear: false });
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    expect(server.requests[0]!.url).toBe("/api/tradesBlotter/stream?symbol=EUR*");
    expect(server.requests[0]!.headers.get("Authorization")).toBe("Bearer token-1");
    expect(server.requests[0]!.headers.get("OrganizationId")).toBe("org-1");

    const snapshot = [row("p:1", { time: 10 }), row("d:1", { side: "sell", volume: 5_000, time: 20 })];
    server.snapshot(snapshot);
    await read();
    // Told at once, with no timer's turn; nothing is merged before a refresh reads it.
    expect(changes()).toEqual([{ type: "changed" }]);
    expect(keys()).toEqual([]);
    const first = take();
    expect(first.change).toEqual({ reset: true, added: 2, updated: 0, removed: 0 });
    expect(first.blocks[0]!.map((r) => r.key)).toEqual(["d:1", "p:1"]);
    // A snapshot's figures go with it.
    expect(states().at(-1)).toEqual({
      type: "state",
      state: { held: 0, paused: false, rowCount: 2 },
      figures: { totals: totalsOf(snapshot), exposure: exposureOf(snapshot) },
    });
    const seqAtSnapshot = first.seq;

    server.frame([row("p:1", { sl: 1, time: 10 }), row("d:2", { time: 30 })]);
    server.frame([row("p:1", { sl: 2, time: 10 })]);
    await read();
    server.frame([row("p:1", { sl: 3, time: 10 })]);
    await read();
    core.tick();
    // Told once for the three frames; a block scrolled to meanwhile fits the blocks the grid drew.
    expect(changes()).toHaveLength(2);
    expect(keys()).toEqual(["d:1", "p:1"]);
    // Not taken for a second (a refresh that read nothing): told again, once.
    clock.now = RETELL_MS - 1;
    core.tick();
    expect(changes()).toHaveLength(2);
    clock.now = RETELL_MS;
    core.tick();
    core.tick();
    expect(changes()).toHaveLength(3);
    const second = take();
    expect(second.change).toEqual({ reset: false, added: 1, updated: 1, removed: 0 });
    expect(second.blocks[0]!.map((r) => [r.key, r.sl])).toEqual([
      ["d:2", null],
      ["d:1", null],
      ["p:1", 3],
    ]);
    expect(second.rowCount).toBe(3);
    // The rows that entered or changed since the snapshot are the ones above its arrival number (they flash).
    expect(second.blocks[0]!.filter((r) => r.s > seqAtSnapshot).map((r) => r.key)).toEqual(["d:2", "p:1"]);
    // Nothing new: the page is not told, not even a while later, and a refresh takes nothing.
    clock.now = 10 * RETELL_MS;
    core.tick();
    expect(changes()).toHaveLength(3);
    expect(take().change).toBeNull();
    core.dispose();
  });

  it("answers the blocks the grid asks for in the grid's sort order, and a block past the end with what is left", async () => {
    const { server, core, updates, keys, view, take, read } = harness();
    core.handle({ type: "start", url: "/s", clear: false });
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    server.snapshot([
      row("d:1", { time: 5, symbol: "XAUUSD", volume: 30_000 }),
      row("d:2", { time: 5, symbol: "EURUSD", volume: 10_000 }),
      row("d:3", { time: 7, symbol: null, volume: 20_000 }),
    ]);
    await read();
    take();
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
      take: false,
    });
    const answer = updates.findLast((u) => u.type === "rows" && u.id === 99);
    expect(answer?.type === "rows" && answer.blocks.map((block) => block.map((r) => r.key))).toEqual([["d:3", "d:2"], ["d:1"]]);
    core.dispose();
  });

  it("paused, posts only the count of updates held back and the grid reads still rows; resumed, one change with each row's latest state", async () => {
    const { server, core, changes, states, keys, take, read } = harness();
    core.handle({ type: "start", url: "/s", clear: false });
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    server.snapshot([row("p:1")]);
    await read();
    take();

    core.handle({ type: "pause" });
    expect(states().at(-1)!.state).toEqual({ held: 0, paused: true, rowCount: 1 });
    server.frame([row("p:1", { sl: 1 }), row("d:1", { time: 2 })]);
    server.frame([row("p:1", { sl: 2 })]);
    await read();
    core.tick();
    core.tick();
    expect(changes()).toHaveLength(1);
    expect(states().at(-1)!.state).toEqual({ held: 3, paused: true, rowCount: 1 });
    // Paused, the grid does not change, so neither do its figures; a refresh takes nothing.
    expect(states().at(-1)!.figures).toBeNull();
    const still = take();
    expect(still.change).toBeNull();
    expect(still.blocks[0]!.map((r) => [r.key, r.sl])).toEqual([["p:1", null]]);

    core.handle({ type: "resume" });
    expect(changes()).toHaveLength(2);
    expect(states().at(-1)!.state).toEqual({ held: 0, paused: false, rowCount: 2 });
    expect(take().change).toEqual({ reset: false, added: 1, updated: 1, removed: 0 });
    expect(keys()).toEqual(["d:1", "p:1"]);
    core.dispose();
  });

  it("keeps the newest rows up to its bound, the oldest leaving in the same change; the figures follow at most twice a second", async () => {
    const { server, core, states, keys, take, read, clock } = harness(2);
    core.handle({ type: "start", url: "/s", clear: false });
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    server.snapshot([row("d:1"), row("d:2")]);
    await read();
    take();
    server.frame([row("d:3", { symbol: "XAUUSD", contractSize: 100, price: 2000 })]);
    await read();
    expect(take().change).toEqual({ reset: false, added: 1, updated: 0, removed: 1 });
    expect(keys()).toEqual(["d:3", "d:2"]);
    // The snapshot's figures went just now: these wait …
    expect(states().at(-1)!.figures).toBeNull();
    const sent = states().length;
    core.tick();
    expect(states()).toHaveLength(sent);
    // … until half a second has passed, then go on their own.
    clock.now = 500;
    core.tick();
    const kept = [row("d:2"), row("d:3", { symbol: "XAUUSD", contractSize: 100, price: 2000 })];
    expect(states().slice(sent)).toEqual([
      { type: "state", state: { held: 0, paused: false, rowCount: 2 }, figures: { totals: totalsOf(kept), exposure: exposureOf(kept) } },
    ]);
    core.tick();
    expect(states()).toHaveLength(sent + 1);
    core.dispose();
  });

  it("reconnects when the stream ends, with fresh headers and the last event id; start with clear empties the grid", async () => {
    const { server, core, changes, states, keys, take, read } = harness();
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
    expect(take().blocks[0]).toHaveLength(2);

    const told = changes().length;
    core.handle({ type: "start", url: "/s?other", clear: true });
    // Emptied at once (a plain read already shows it), and the page told to refresh.
    expect(keys()).toEqual([]);
    expect(changes()).toHaveLength(told + 1);
    expect(take().change).toEqual({ reset: true, added: 0, updated: 0, removed: 0 });
    expect(states().at(-1)).toMatchObject({ state: { rowCount: 0 }, figures: { totals: totalsOf([]), exposure: [] } });
    await vi.waitFor(() => expect(server.requests).toHaveLength(3));
    // Another stream: it starts from its own snapshot, not from the last id of the one before.
    expect(server.requests[2]!.headers.get("Last-Event-ID")).toBeNull();
    core.dispose();
  });
});

describe("the page's side of the stream, where no worker can start", () => {
  it("runs the core on the main thread with the page's API headers; the page is told once, and its refresh takes the rows", async () => {
    const server = sseServer();
    let told = 0;
    const stream = openBlotterStream(
      {
        onChanged: () => told++,
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
    await vi.waitFor(() => expect(told).toBe(1));
    server.frame([row("d:2", { time: 2 })]);
    // Told once until the page takes the rows.
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(told).toBe(1);
    const read = (take = false) => stream.rows([{ start: 0, end: 10 }], [], take);
    expect((await read()).blocks[0]).toEqual([]);
    const taken = await read(true);
    expect(taken.change).toEqual({ reset: true, added: 2, updated: 0, removed: 0 });
    expect(taken.blocks[0]!.map((r) => r.key)).toEqual(["d:2", "d:1"]);
    server.frame([row("d:3", { time: 3 })]);
    await vi.waitFor(() => expect(told).toBe(2));
    stream.close();
    await expect(read()).rejects.toThrow(/closed/);
  });
});
