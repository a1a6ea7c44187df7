/**
 * The Trades Blotter's live stream (GET /api/tradesBlotter/stream) through the real server over
 * HTTP, with trade events published on the app's bus as the platforms' feed would: scope
 * (organization, app assignment, permission), frames coalesced per row, resume by event id,
 * snapshots after a gap, and a slow client's bound.
 */
import http from "node:http";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, expect, it } from "vitest";
import { moduleClaimType } from "../../core/access.ts";
import type { BlotterRow } from "../../core/schemas/blotterLive.ts";
import type { Deal } from "../../core/trading/deal.ts";
import type { TradeEvent } from "../../core/trading/events.ts";
import type { Position } from "../../core/trading/position.ts";
import { loadConfig } from "../../server/config.ts";
import type { AppContext } from "../../server/context.ts";
import { buildApp } from "../../server/http/app.ts";
import { tradeHistoryOf } from "../../server/modules/tradeHistory/plugin.ts";
import { finishBackfill, startBackfill } from "../../server/modules/tradeHistory/repository/syncState.ts";
import { describeDb, openTestDatabase } from "../helpers/db.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { TEST_SECRETS_KEY } from "../helpers/testApp.ts";
import { tradePlatforms } from "../../server/db/schema.ts";
import { theOnly } from "../helpers/db.ts";
import { addMember, signUp } from "./support/fixtures.ts";
import { sseReader, type SseEvent } from "./support/sse.ts";

/** A stream's bound: a second of its channel's bytes, between these two. */
const MAX_BUFFERED_BYTES = 64 * 1024;
const MAX_BUFFERED_BYTES_CAP = 4 * 1024 * 1024;
const MAX_PENDING_ROWS = 500;
/** The node's rows budget, low: a snapshot read while deals keep coming must not need more. */
const MAX_TOTAL_ROWS = 2_000;

let sequence = 0;
function deal(login: string, id: string, extra: Partial<Deal> = {}): Deal {
  return {
    id,
    login,
    time: Date.now(),
    action: "buy",
    entry: "in",
    positionId: `pos-${id}`,
    symbol: "EURUSD",
    volume: 10_000,
    price: 1.1,
    profit: 0,
    commission: -700,
    swap: 0,
    comment: "",
    reason: "client",
    native: { platform: "MT5", deal: Number(id.replace(/\D/g, "")) || 1, order: 1, position: 7 },
    ...extra,
  };
}
function position(login: string, id: string, extra: Partial<Position> = {}): Position {
  return {
    id,
    login,
    symbol: "XAUUSD",
    side: "sell",
    volume: 5_000,
    openTime: Date.now(),
    openPrice: 2300,
    currentPrice: 2301,
    sl: null,
    tp: null,
    profit: -500,
    swap: 0,
    comment: "",
    reason: "client",
    previousId: null,
    native: { platform: "MT5", position: Number(id.replace(/\D/g, "")) || 1 },
    ...extra,
  };
}
const dealEvent = (d: Deal): TradeEvent => ({ type: "dealAdded", sequence: ++sequence, time: d.time, login: d.login, deal: d });

const rowsOf = (events: SseEvent[], kinds = ["frame", "snapshot"]) =>
  events.filter((e) => kinds.includes(e.event)).flatMap((e) => (e.data as { rows: BlotterRow[] }).rows);

async function waitUntil(check: () => boolean, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describeDb("Trades Blotter live stream", () => {
  let app: FastifyInstance;
  let ctx: AppContext;
  let drop: () => Promise<void>;
  let base: string;
  let tokens: TokenFactory;
  const streams: { cancel(): Promise<unknown> }[] = [];

  beforeAll(async () => {
    const database = await openTestDatabase();
    drop = () => database.drop();
    ctx = {
      config: loadConfig({ NODE_ENV: "test", LOG_LEVEL: "silent", PUBLIC_URL: "http://localhost:3000", SECRETS_KEY: TEST_SECRETS_KEY }),
      database,
    };
    app = await buildApp(ctx, {
      web: false,
      logger: false,
      blotterStream: {
        appsRecheckMs: 200,
        maxBufferedBytes: MAX_BUFFERED_BYTES,
        maxBufferedBytesCap: MAX_BUFFERED_BYTES_CAP,
        maxPendingRows: MAX_PENDING_ROWS,
        maxTotalRows: MAX_TOTAL_ROWS,
      },
    });
    base = await app.listen({ port: 0, host: "127.0.0.1" });
    tokens = await tokenFactory(ctx);
  });
  afterAll(async () => {
    for (const s of streams) await s.cancel();
    await app?.close();
    await drop?.();
  });

  /**
   * A new organization with its administrator, and platforms. They stay disabled (no connection,
   * no feed): the trade events come from the test, on the bus.
   */
  async function organization(name: string, platforms: { name: string; blotter: boolean }[]) {
    const admin = newPerson(name);
    const organizationId = await signUp({ app, ctx, close: async () => {} }, tokens, admin);
    const headers = apiHeaders(await tokens.mint(admin), organizationId);
    const ids: string[] = [];
    for (const p of platforms) {
      const row = theOnly(await ctx.database.db.insert(tradePlatforms).values({ organizationId, name: p.name, type: "MT5", enable: false }).returning());
      if (p.blotter) await assign(headers, row.id);
      ids.push(row.id);
    }
    return { organizationId, headers, ids };
  }
  async function assign(headers: Record<string, string>, platformId: string) {
    const res = await app.inject({ method: "PUT", url: `/api/tradePlatforms/${platformId}/apps`, headers, payload: [{ app: "tradesBlotter", enabled: true }] });
    expect(res.statusCode).toBe(200);
  }
  async function stream(headers: Record<string, string>, query = "", extra: Record<string, string> = {}) {
    const res = await fetch(`${base}/api/tradesBlotter/stream${query}`, { headers: { ...headers, ...extra } });
    expect(res.status, await (res.status === 200 ? Promise.resolve("") : res.text())).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const sse = sseReader(res.body!);
    streams.push(sse);
    return sse;
  }
  const publish = (organizationId: string, platformId: string, events: TradeEvent[]) =>
    app.bus.publish(events.map((event) => ({ type: "trade" as const, organizationId, platformId, event })));

  it("keeps each organization's trades its own, and a platform without the app sends nothing until it is assigned", async () => {
    const a = await organization("Ada", [
      { name: "A blotter", blotter: true },
      { name: "A other", blotter: false },
    ]);
    const b = await organization("Bea", [{ name: "B blotter", blotter: true }]);
    const [aBlotter, aOther] = a.ids as [string, string];
    const [bBlotter] = b.ids as [string];

    const aStream = await stream(a.headers);
    const bStream = await stream(b.headers);
    const platformsOf = (events: SseEvent[]) => events.filter((e) => e.event === "platforms").map((e) => (e.data as { id: string }[]).map((p) => p.id));
    await aStream.until(() => aStream.events.some((e) => e.event === "snapshot"), "A's first snapshot");
    await bStream.until(() => bStream.events.some((e) => e.event === "snapshot"), "B's first snapshot");
    expect(platformsOf(aStream.events)).toEqual([[aBlotter]]);
    expect(platformsOf(bStream.events)).toEqual([[bBlotter]]);

    // A's trades on both its platforms, then B's own: B sees only its own, A only its blotter platform's.
    await publish(a.organizationId, aBlotter, [dealEvent(deal("1001", "11")), dealEvent(deal("1002", "12"))]);
    await publish(a.organizationId, aOther, [dealEvent(deal("1003", "13"))]);
    await publish(b.organizationId, bBlotter, [dealEvent(deal("2001", "21"))]);
    await aStream.until(() => rowsOf(aStream.events).length >= 2, "A's two deals");
    await bStream.until(() => rowsOf(bStream.events).length >= 1, "B's deal");
    // Published after A's: once B's deal is in, anything of A's would have come before it.
    await aStream.drainFor(300);
    expect(rowsOf(bStream.events).map((r) => [r.platformId, r.login])).toEqual([[bBlotter, "2001"]]);
    expect(rowsOf(aStream.events).map((r) => [r.platformId, r.login, r.ticket, r.side])).toEqual([
      [aBlotter, "1001", "11", "buy"],
      [aBlotter, "1002", "12", "buy"],
    ]);

    // The app is assigned to the other platform: the stream says so, and its trades follow.
    await assign(a.headers, aOther);
    await aStream.until(() => platformsOf(aStream.events).at(-1)?.length === 2, "the platforms list with both");
    await publish(a.organizationId, aOther, [dealEvent(deal("1004", "14"))]);
    await aStream.until(() => rowsOf(aStream.events).some((r) => r.login === "1004"), "the newly assigned platform's deal");
    // Joining brings the platform's open positions and recent deals in a snapshot: the earlier deal comes only that way.
    const frames1003 = aStream.events.filter((e) => rowsOf([e]).some((r) => r.login === "1003")).map((e) => e.event);
    expect(frames1003).toEqual(["snapshot"]);
  });

  it("answers 403 and opens no stream without tradesBlotter:read; 400 for bad filters", async () => {
    const a = await organization("Ola", [{ name: "Only", blotter: true }]);
    const viewer = newPerson("Vic");
    await addMember(ctx, a.organizationId, viewer, { [moduleClaimType("tradePlatforms", a.organizationId)]: "read" });
    const before = app.blotterStreams.stats().connections;
    const res = await fetch(`${base}/api/tradesBlotter/stream`, { headers: apiHeaders(await tokens.mint(viewer), a.organizationId) });
    expect(res.status).toBe(403);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect((await res.json()).message).toMatch(/"read" permission on the "tradesBlotter" module/);
    expect(app.blotterStreams.stats().connections).toBe(before);

    const platforms = await fetch(`${base}/api/tradesBlotter/platforms`, { headers: apiHeaders(await tokens.mint(viewer), a.organizationId) });
    expect(platforms.status).toBe(403);

    for (const [query, message] of [
      ["?side=long", /Side must be buy, sell, balance or credit/],
      ["?minLots=2&maxLots=1", /Min lots must not be above max lots/],
      ["?platforms=nope", /Platforms must be platform ids/],
      ["?after=-1", /After must be an event id/],
    ] as const) {
      const bad = await fetch(`${base}/api/tradesBlotter/stream${query}`, { headers: a.headers });
      expect(bad.status, query).toBe(400);
      expect((await bad.json()).message).toMatch(message);
    }
    const badId = await fetch(`${base}/api/tradesBlotter/stream`, { headers: { ...a.headers, "last-event-id": "abc" } });
    expect(badId.status).toBe(400);
  });

  it("ends the stream when the token that opened it expires (the client reconnects with its renewed token)", async () => {
    const admin = newPerson("Exp");
    const organizationId = await signUp({ app, ctx, close: async () => {} }, tokens, admin);
    const token = await tokens.mint(admin, { claims: { exp: Math.floor(Date.now() / 1000) + 2 } });
    const sse = await stream(apiHeaders(token, organizationId));
    await sse.until(() => sse.events.some((e) => e.event === "snapshot"), "the first snapshot");
    await sse.until(() => sse.ended(), "the end of the stream", 6_000);
  });

  it("filters on the server and coalesces a position's changes within a frame into one row", async () => {
    const a = await organization("Fil", [{ name: "Filtered", blotter: true }]);
    const [p] = a.ids as [string];
    const sse = await stream(a.headers, "?symbol=XAU*&side=sell&minLots=0.5");
    await sse.until(() => sse.events.some((e) => e.event === "snapshot"), "the first snapshot");

    const pos = position("3001", "501");
    const events: TradeEvent[] = [
      dealEvent(deal("3001", "31")), // EURUSD buy: filtered out
      { type: "positionOpened", sequence: ++sequence, time: Date.now(), login: "3001", position: pos },
      ...[2302, 2303, 2304].map((sl): TradeEvent => ({
        type: "positionModified",
        sequence: ++sequence,
        time: Date.now(),
        login: "3001",
        change: "stops",
        position: { ...pos, sl },
      })),
      dealEvent(deal("3001", "32", { symbol: "XAUUSD", action: "sell", volume: 1_000 })), // 0.1 lot: below minLots
    ];
    await publish(a.organizationId, p, events);
    const row = await sse.until(() => rowsOf(sse.events, ["frame"]).find((r) => r.kind === "position"), "the position's row");
    const frame = sse.events.find((e) => e.event === "frame" && (e.data as { rows: BlotterRow[] }).rows.length > 0)!;
    expect((frame.data as { rows: BlotterRow[] }).rows).toHaveLength(1);
    expect(row).toMatchObject({ key: `p:${p}:501`, sl: 2304, symbol: "XAUUSD", side: "sell", volume: 5_000, ticket: "501", state: "open" });
    expect(Number(frame.id)).toBe(app.bus.health().lastSeq);
  });

  it("resumes after a dropped connection from the last id with nothing lost or repeated, and sends a snapshot after a gap", async () => {
    const a = await organization("Res", [{ name: "Resumed", blotter: true }]);
    const [p] = a.ids as [string];
    const first = await stream(a.headers);
    await first.until(() => first.events.some((e) => e.event === "snapshot"), "the first snapshot");
    await publish(
      a.organizationId,
      p,
      [1, 2, 3, 4, 5].map((n) => dealEvent(deal("4001", `40${n}`))),
    );
    await first.until(() => rowsOf(first.events, ["frame"]).length === 5, "five deals");
    const lastId = first.events.filter((e) => e.id !== undefined).at(-1)!.id!;
    await first.cancel();

    // Published while the client is away, some before and some after it comes back.
    await publish(
      a.organizationId,
      p,
      [6, 7, 8].map((n) => dealEvent(deal("4001", `40${n}`))),
    );
    const second = await stream(a.headers, "", { "last-event-id": lastId });
    await publish(
      a.organizationId,
      p,
      [9].map((n) => dealEvent(deal("4001", `40${n}`))),
    );
    await second.until(() => rowsOf(second.events).length >= 4, "the deals since the last id");
    await second.drainFor(300);
    expect(second.events.some((e) => e.event === "snapshot")).toBe(false);
    expect(rowsOf(second.events).map((r) => r.ticket)).toEqual(["406", "407", "408", "409"]);

    // ?after= does the same; an id the bus cannot resume from (ahead of it: a restarted bus) brings a snapshot first.
    const third = await stream(a.headers, `?after=${lastId}`);
    await third.until(() => rowsOf(third.events).length >= 4, "the same deals by ?after=");
    expect(rowsOf(third.events).map((r) => r.ticket)).toEqual(["406", "407", "408", "409"]);
    const lost = await stream(a.headers, "", { "last-event-id": String(app.bus.health().lastSeq + 1_000) });
    await lost.until(() => lost.events.find((e) => e.event === "snapshot"), "a snapshot after the gap");
    const snapshot = lost.events.find((e) => e.event === "snapshot")!;
    // The snapshot holds the recent deals this node saw.
    expect((snapshot.data as { rows: BlotterRow[] }).rows.map((r) => r.ticket)).toEqual(["401", "402", "403", "404", "405", "406", "407", "408", "409"]);
  });

  it("snapshots come from the trade history store: another node (or the app after a restart) that never saw the trades has them", async () => {
    const a = await organization("Sto", [{ name: "Stored", blotter: true }]);
    const [p] = a.ids as [string];
    const pos = position("5001", "601", { symbol: "XAUUSD" });
    const closing = position("5001", "602");
    await publish(a.organizationId, p, [
      ...[1, 2, 3].map((n) => dealEvent(deal("5001", `60${n}`, { time: Date.now() - 60_000 + n, profit: 1234, commission: -50, volume: 2_500 }))),
      { type: "positionOpened", sequence: ++sequence, time: Date.now(), login: "5001", position: pos },
      { type: "positionOpened", sequence: ++sequence, time: Date.now(), login: "5001", position: closing },
      {
        type: "positionClosed",
        sequence: ++sequence,
        time: Date.now(),
        login: "5001",
        position: { ...closing, closeTime: Date.now(), closePrice: 2302, closeReason: "client" },
      },
    ]);
    await tradeHistoryOf(ctx)!.settled();

    // A second app on the same database: its bus never carried these events.
    const other = await buildApp(ctx, { web: false, logger: false });
    try {
      const otherBase = await other.listen({ port: 0, host: "127.0.0.1" });
      const snapshotOf = async () => {
        const res = await fetch(`${otherBase}/api/tradesBlotter/stream`, { headers: a.headers });
        const sse = sseReader(res.body!);
        try {
          const event = await sse.until(() => sse.events.find((e) => e.event === "snapshot"), "the other node's snapshot");
          return (event.data as { rows: BlotterRow[] }).rows;
        } finally {
          await sse.cancel();
        }
      };
      const deals = (await snapshotOf()).filter((r) => r.kind === "deal");
      expect(deals.map((r) => r.ticket)).toEqual(["601", "602", "603"]);
      // The same row as the live frame would have carried: minor units, 1/10000 lots, native ids.
      expect(deals[0]).toMatchObject({ key: `d:${p}:601`, profit: 1234, commission: -50, volume: 2_500, position: "7", symbol: "EURUSD" });

      // Open positions from the store once the platform's history is read (before, its connector answers: here none).
      const platform = { id: p, organizationId: a.organizationId };
      await startBackfill(ctx.database.db, platform, { from: new Date(Date.now() - 86_400_000), to: new Date() });
      await finishBackfill(ctx.database.db, p, { error: null });
      const positions = (await snapshotOf()).filter((r) => r.kind === "position");
      expect(positions).toHaveLength(1);
      expect(positions[0]).toMatchObject({ key: `p:${p}:601`, symbol: "XAUUSD", side: "sell", volume: 5_000, profit: -500, state: "open", ticket: "601" });
    } finally {
      await other.close();
    }
  });

  it("sends a fresh stream its snapshot while deals keep arriving faster than the store settles them: the newest deals, no gap", async () => {
    const a = await organization("Bsy", [{ name: "Busy", blotter: true }]);
    const [p] = a.ids as [string];
    // About 10,000 deals a second on the bus, which the trade history store writes as they come: a
    // snapshot waits for the store to settle, and meanwhile more deals arrive than the node's rows
    // budget. It used to read again each time, for as long as the deals kept coming.
    let id = 700_000;
    let publishing = true;
    const publisher = (async () => {
      while (publishing && id < 800_000) {
        await publish(
          a.organizationId,
          p,
          Array.from({ length: 100 }, () => dealEvent(deal("5001", String(++id)))),
        );
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    try {
      await new Promise((r) => setTimeout(r, 300));
      const s = await stream(a.headers);
      const snapshot = await s.until(() => s.events.find((e) => e.event === "snapshot"), "the snapshot while deals keep arriving", 8_000);
      expect(publishing && id < 800_000, "the snapshot came while deals were still arriving").toBe(true);
      const tickets = (snapshot.data as { rows: BlotterRow[] }).rows.filter((r) => r.kind === "deal").map((r) => Number(r.ticket));
      expect(tickets.length).toBeGreaterThan(0);
      // Recent deals with no gap between them (the oldest left out, never some in the middle).
      expect(tickets).toEqual(Array.from({ length: tickets.length }, (_, i) => tickets[0]! + i));
    } finally {
      publishing = false;
      await publisher;
    }
    await tradeHistoryOf(ctx)!.settled();
  });

  it("keeps a client that does not read within its buffer bound, then resynchronizes it with a snapshot", async () => {
    const a = await organization("Slo", [{ name: "Slow", blotter: true }]);
    const [p] = a.ids as [string];
    // A raw HTTP client that stops reading at once.
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const url = new URL(`${base}/api/tradesBlotter/stream`);
      http.get(url, { headers: a.headers }, resolve).on("error", reject);
    });
    expect(res.statusCode).toBe(200);
    // It reads its first snapshot (the bound under test is a live stream's), then stops reading.
    const chunks: Buffer[] = [];
    const collect = (c: Buffer) => chunks.push(c);
    res.on("data", collect);
    await waitUntil(() => Buffer.concat(chunks).includes("event: snapshot"), "the first snapshot");
    res.off("data", collect);
    res.pause();

    // 100 deals of ~2.4 kB every 15 ms (several MB a second): about 300 rows per 50 ms frame, under the rows bound, so the bytes
    // bound is what trips, and at this rate it is the cap, not the floor.
    const comment = "x".repeat(2_000);
    const mine = () => app.blotterStreams.stats().each.find((e) => e.bufferedBytes > 0 || e.dropping || e.pendingRows > 0);
    let maxBuffered = 0;
    let maxPending = 0;
    let dropped = false;
    let id = 100_000;
    for (let round = 0; round < 200 && !dropped; round++) {
      await publish(
        a.organizationId,
        p,
        Array.from({ length: 100 }, () => dealEvent(deal("5001", String(++id), { comment }))),
      );
      await new Promise((r) => setTimeout(r, 15));
      const stats = mine();
      maxBuffered = Math.max(maxBuffered, stats?.bufferedBytes ?? 0);
      maxPending = Math.max(maxPending, stats?.pendingRows ?? 0);
      dropped = stats?.dropping ?? false;
    }
    expect(dropped).toBe(true);
    // While it does not read, publishing more grows nothing.
    const held = mine()!;
    for (let round = 0; round < 20; round++) {
      await publish(
        a.organizationId,
        p,
        Array.from({ length: 100 }, () => dealEvent(deal("5001", String(++id), { comment }))),
      );
      await new Promise((r) => setTimeout(r, 15));
      const stats = mine()!;
      expect(stats).toMatchObject({ dropping: true, pendingRows: 0, bufferedBytes: held.bufferedBytes });
    }
    // What waits for this client: at most the bound plus the one frame that crossed it. The bound grew with the rate:
    // the stream was let fall further behind than the floor and one frame (a fixed bound would have dropped it there).
    const frame = MAX_PENDING_ROWS * 2_600;
    expect(maxPending).toBeLessThanOrEqual(MAX_PENDING_ROWS);
    expect(maxBuffered).toBeLessThanOrEqual(MAX_BUFFERED_BYTES_CAP + frame);
    expect(held.bufferedBytes).toBeGreaterThan(MAX_BUFFERED_BYTES + frame);

    // The client reads again: what was buffered arrives, then a snapshot, then live frames.
    res.on("data", (c: Buffer) => chunks.push(c));
    res.resume();
    const text = () => Buffer.concat(chunks).toString("utf8");
    await waitUntil(
      () => mine() === undefined && app.blotterStreams.stats().each.some((e) => e.snapshots === held.snapshots + 1),
      "the snapshot after the socket drained",
    );
    await publish(a.organizationId, p, [dealEvent(deal("5001", "999999"))]);
    await waitUntil(() => text().includes('"ticket":"999999"'), "a live frame after the snapshot");
    expect(text().lastIndexOf("event: snapshot")).toBeLessThan(text().indexOf('"ticket":"999999"'));
    res.destroy();
  });
});
