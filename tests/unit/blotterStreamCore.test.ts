/**
 * The live blotter's stream core (app/features/trades-blotter/blotterStreamCore.ts), which the
 * page runs in a Web Worker: the real SSE-over-fetch client reading a stream this test writes,
 * the frames coalesced per row, one batch per turn and none until the page applied the last,
 * pause with only the held-back count, the row bound, reconnection with fresh headers and the
 * last event id. Then the page's side (blotterStream.ts) where no worker exists (jsdom): the same
 * core on the main thread.
 */
import { afterEach, describe, expect, it, vi } from "vitest";

vi.mock("~/auth", () => ({
  getFreshUser: vi.fn(async () => ({ access_token: "page-token", token_type: "Bearer", profile: { sub: "u1" } })),
}));

import type { BlotterRow } from "@core/schemas/blotterLive";
import { openBlotterStream } from "~/features/trades-blotter/blotterStream";
import { createBlotterStreamCore, type BlotterUpdate } from "~/features/trades-blotter/blotterStreamCore";
import { exposureOf, totalsOf } from "~/features/trades-blotter/blotterTotals";

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
  const rows = () => updates.filter((u) => u.type === "rows");
  const states = () => updates.filter((u) => u.type === "state");
  /** Everything written before this marker has been read and parsed once the marker's platforms event is posted. */
  let marks = 0;
  async function read() {
    const mark = `mark-${++marks}`;
    server.platforms(mark);
    await vi.waitFor(() => expect(updates.some((u) => u.type === "platforms" && u.platforms[0]!.id === mark)).toBe(true));
  }
  return { server, core, updates, rows, states, read, clock };
}

afterEach(() => vi.restoreAllMocks());

describe("the blotter's stream core", () => {
  it("posts the snapshot, then one batch per turn coalesced per row, and nothing more until the page applied the last", async () => {
    const { server, core, rows, read } = harness();
    core.handle({ type: "start", url: "/api/tradesBlotter/stream?symbol=EUR*", clear: false });
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    expect(server.requests[0]!.url).toBe("/api/tradesBlotter/stream?symbol=EUR*");
    expect(server.requests[0]!.headers.get("Authorization")).toBe("Bearer token-1");
    expect(server.requests[0]!.headers.get("OrganizationId")).toBe("org-1");

    const snapshot = [row("p:1"), row("d:1", { side: "sell", volume: 5_000 })];
    server.snapshot(snapshot);
    await read();
    expect(rows()).toHaveLength(0);
    core.tick();
    expect(rows()).toEqual([
      {
        type: "rows",
        reset: snapshot,
        batch: null,
        state: { held: 0, paused: false, rowCount: 2 },
        figures: { totals: totalsOf(snapshot), exposure: exposureOf(snapshot) },
      },
    ]);

    server.frame([row("p:1", { sl: 1 }), row("d:2")]);
    server.frame([row("p:1", { sl: 2 })]);
    await read();
    core.tick();
    // The page has not applied the snapshot yet: the frames wait, coalescing.
    expect(rows()).toHaveLength(1);
    server.frame([row("p:1", { sl: 3 })]);
    await read();
    core.handle({ type: "applied" });
    core.tick();
    expect(rows()).toHaveLength(2);
    expect(rows()[1]).toMatchObject({ reset: null, batch: { add: [row("d:2")], update: [row("p:1", { sl: 3 })], remove: [] }, state: { rowCount: 3 } });
    core.tick();
    expect(rows()).toHaveLength(2);
    core.dispose();
  });

  it("paused, posts only the count of updates held back; resumed, one batch with each row's latest state", async () => {
    const { server, core, rows, states, read } = harness();
    core.handle({ type: "start", url: "/s", clear: false });
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    server.snapshot([row("p:1")]);
    await read();
    core.tick();
    core.handle({ type: "applied" });

    core.handle({ type: "pause" });
    expect(states().at(-1)!.state).toEqual({ held: 0, paused: true, rowCount: 1 });
    server.frame([row("p:1", { sl: 1 }), row("d:1")]);
    server.frame([row("p:1", { sl: 2 })]);
    await read();
    core.tick();
    core.tick();
    expect(rows()).toHaveLength(1);
    expect(states().at(-1)!.state).toEqual({ held: 3, paused: true, rowCount: 1 });
    // Paused, the grid does not change, so neither do its figures.
    expect(states().at(-1)!.figures).toBeNull();

    core.handle({ type: "resume" });
    expect(rows()).toHaveLength(2);
    expect(rows()[1]).toMatchObject({
      batch: { add: [row("d:1")], update: [row("p:1", { sl: 2 })], remove: [] },
      state: { held: 0, paused: false, rowCount: 2 },
    });
    core.dispose();
  });

  it("keeps the newest rows up to its bound, the oldest leaving in the same batch; the figures follow at most twice a second", async () => {
    const { server, core, rows, states, read, clock } = harness(2);
    core.handle({ type: "start", url: "/s", clear: false });
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    server.snapshot([row("d:1"), row("d:2")]);
    await read();
    core.tick();
    core.handle({ type: "applied" });
    server.frame([row("d:3", { symbol: "XAUUSD", contractSize: 100, price: 2000 })]);
    await read();
    core.tick();
    expect(rows()[1]).toMatchObject({ batch: { add: [row("d:3", { symbol: "XAUUSD", contractSize: 100, price: 2000 })], update: [], remove: [row("d:1")] } });
    // The snapshot's figures went just now: these wait …
    expect(rows()[1]!.figures).toBeNull();
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
    const { server, core, rows, read } = harness();
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

    core.handle({ type: "start", url: "/s?other", clear: true });
    expect(rows().at(-1)).toMatchObject({ reset: [], batch: null, state: { rowCount: 0 }, figures: { totals: totalsOf([]), exposure: [] } });
    await vi.waitFor(() => expect(server.requests).toHaveLength(3));
    // Another stream: it starts from its own snapshot, not from the last id of the one before.
    expect(server.requests[2]!.headers.get("Last-Event-ID")).toBeNull();
    core.dispose();
  });
});

describe("the page's side of the stream, where no worker can start", () => {
  it("runs the core on the main thread with the page's API headers, and answers each batch once applied", async () => {
    const server = sseServer();
    const applied: { reset: BlotterRow[] | null; add: string[]; update: string[] }[] = [];
    const stream = openBlotterStream(
      {
        onRows: (reset, batch) => applied.push({ reset, add: batch?.add.map((r) => r.key) ?? [], update: batch?.update.map((r) => r.key) ?? [] }),
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
    await vi.waitFor(() => expect(applied).toHaveLength(1));
    server.frame([row("d:2")]);
    // Only reaches the grid if the snapshot's batch was acknowledged.
    await vi.waitFor(() => expect(applied).toHaveLength(2));
    expect(applied).toEqual([
      { reset: [row("d:1")], add: [], update: [] },
      { reset: null, add: ["d:2"], update: [] },
    ]);
    stream.close();
  });
});
