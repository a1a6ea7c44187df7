/**
 * The Trades Blotter stream's memory across streams (docs/requirements.md#r-targets-blotter: 100
 * subscribers with bounded server memory; docs/decisions/0060) through the real server over HTTP: streams with the same filters
 * share one channel (identical frames, serialized once), a resumed stream joins it again with
 * nothing lost or repeated, and the node's budget (rows gathered, bytes unsent) holds.
 */
import http from "node:http";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { BlotterRow } from "../../core/schemas/blotterLive.ts";
import type { Deal } from "../../core/trading/deal.ts";
import type { TradeEvent } from "../../core/trading/events.ts";
import { loadConfig } from "../../server/config.ts";
import type { AppContext } from "../../server/context.ts";
import { tradePlatforms } from "../../server/db/schema.ts";
import { buildApp } from "../../server/http/app.ts";
import { describeDb, openTestDatabase, theOnly } from "../helpers/db.ts";
import { TEST_SECRETS_KEY } from "../helpers/testApp.ts";
import { apiHeaders, newPerson, tokenFactory, type TokenFactory } from "../helpers/tokens.ts";
import { signUp } from "./support/fixtures.ts";

/** The node's budget in this app: small, so that a test reaches it; each stream's own bound far above it. */
const MAX_TOTAL_BYTES = 1024 * 1024;
const MAX_TOTAL_ROWS = 300;

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
const dealEvent = (d: Deal): TradeEvent => ({ type: "dealAdded", sequence: ++sequence, time: d.time, login: d.login, deal: d });

interface Block {
  id: string | undefined;
  event: string;
  data: string;
}

/** A raw HTTP client of the stream: reads everything as it comes (or stops after its first snapshot). */
async function reader(url: string, headers: Record<string, string>, options: { stopAfterSnapshot?: boolean } = {}) {
  const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
    http.get(url, { headers, agent: false }, resolve).on("error", reject);
  });
  expect(res.statusCode).toBe(200);
  const chunks: Buffer[] = [];
  let stopAt = options.stopAfterSnapshot ?? false;
  const onData = (c: Buffer) => {
    chunks.push(c);
    if (stopAt && text().includes("event: snapshot")) {
      stopAt = false;
      res.pause();
    }
  };
  res.on("data", onData);
  res.on("error", () => {});
  const text = () => Buffer.concat(chunks).toString("utf8");
  const blocks = (): Block[] => {
    const all = text();
    return all
      .slice(0, all.lastIndexOf("\n\n") + 2)
      .split("\n\n")
      .filter((b) => b.includes("data: "))
      .map((b) => ({ id: /^id: (.*)$/m.exec(b)?.[1], event: /^event: (.*)$/m.exec(b)![1]!, data: /^data: (.*)$/m.exec(b)![1]! }));
  };
  const rows = (kinds = ["frame", "snapshot"]) =>
    blocks()
      .filter((b) => kinds.includes(b.event))
      .flatMap((b) => (JSON.parse(b.data) as { rows: BlotterRow[] }).rows);
  return {
    res,
    text,
    blocks,
    rows,
    resume: () => res.resume(),
    close: () => res.destroy(),
  };
}
type Reader = Awaited<ReturnType<typeof reader>>;

async function waitUntil(check: () => boolean, what: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describeDb("Trades Blotter stream channels and the node's budget", () => {
  let app: FastifyInstance;
  let ctx: AppContext;
  let drop: () => Promise<void>;
  let base: string;
  let tokens: TokenFactory;
  const readers: Reader[] = [];

  beforeAll(async () => {
    const database = await openTestDatabase();
    drop = () => database.drop();
    ctx = {
      config: loadConfig({
        NODE_ENV: "test",
        LOG_LEVEL: "silent",
        PUBLIC_URL: "http://localhost:3000",
        SECRETS_KEY: TEST_SECRETS_KEY,
        // Through the environment, as an operator sets them.
        BLOTTER_STREAM_MAX_TOTAL_BYTES: String(MAX_TOTAL_BYTES),
        BLOTTER_STREAM_MAX_TOTAL_ROWS: String(MAX_TOTAL_ROWS),
        BLOTTER_STREAM_MAX_BUFFERED_BYTES: String(64 * 1024 * 1024),
      }),
      database,
    };
    app = await buildApp(ctx, { web: false, logger: false, blotterStream: { maxPendingRows: 10_000 } });
    base = await app.listen({ port: 0, host: "127.0.0.1" });
    tokens = await tokenFactory(ctx);
  });
  afterAll(async () => {
    for (const r of readers) r.close();
    await app?.close();
    await drop?.();
  });

  async function organization(name: string) {
    const admin = newPerson(name);
    const organizationId = await signUp({ app, ctx, close: async () => {} }, tokens, admin);
    const headers = apiHeaders(await tokens.mint(admin), organizationId);
    const platform = theOnly(
      await ctx.database.db
        .insert(tradePlatforms)
        .values({ organizationId, name: `${name} MT5`, type: "MT5", enable: false })
        .returning(),
    );
    const res = await app.inject({
      method: "PUT",
      url: `/api/tradePlatforms/${platform.id}/apps`,
      headers,
      payload: [{ app: "tradesBlotter", enabled: true }],
    });
    expect(res.statusCode).toBe(200);
    return { organizationId, headers, platformId: platform.id };
  }
  async function open(headers: Record<string, string>, query = "", options: { stopAfterSnapshot?: boolean } = {}) {
    const r = await reader(`${base}/api/tradesBlotter/stream${query}`, headers, options);
    readers.push(r);
    return r;
  }
  const publish = (organizationId: string, platformId: string, events: TradeEvent[]) =>
    app.bus.publish(events.map((event) => ({ type: "trade" as const, organizationId, platformId, event })));
  const channelOf = (members: number) => app.blotterStreams.stats().channels.find((c) => c.members === members);

  it("streams with the same filters get identical frames, serialized once per frame; a resumed stream joins again, losing and repeating nothing", async () => {
    const a = await organization("Shared");
    // The same filters, written in another order: one channel.
    const queries = ["?symbol=EUR*&side=buy", "?side=buy&symbol=EUR*", "?symbol=EUR*&side=buy", "?side=buy&symbol=EUR*"];
    const streams: Reader[] = [];
    for (const q of queries) streams.push(await open(a.headers, q));
    await waitUntil(() => streams.every((s) => s.text().includes("event: snapshot")), "every stream's first snapshot");
    await waitUntil(() => channelOf(4) !== undefined, "one channel with the four streams");
    expect(app.blotterStreams.stats().channels.filter((c) => c.members > 0)).toHaveLength(1);

    const before = {
      seq: app.bus.health().lastSeq,
      serialized: app.blotterStreams.stats().serialized,
      bytesWritten: app.blotterStreams.stats().bytesWritten,
      frames: channelOf(4)!.frames,
    };
    let id = 1000;
    for (let round = 0; round < 5; round++) {
      await publish(
        a.organizationId,
        a.platformId,
        [1, 2, 3].map(() => dealEvent(deal("7001", String(++id)))),
      );
      // Filtered out on the server: never in a frame.
      await publish(a.organizationId, a.platformId, [dealEvent(deal("7001", String(++id), { symbol: "XAUUSD" }))]);
      const last = String(id - 1);
      await waitUntil(() => streams.every((s) => s.rows(["frame"]).some((r) => r.ticket === last)), `round ${round}'s deals`);
    }
    const framesAfter = (s: Reader) => s.blocks().filter((b) => b.event === "frame" && Number(b.id) > before.seq);
    const reference = framesAfter(streams[0]!);
    expect(reference.length).toBeGreaterThanOrEqual(1);
    for (const s of streams.slice(1)) expect(framesAfter(s)).toEqual(reference);
    const stats = app.blotterStreams.stats();
    // Each frame was serialized once, for the four streams; nothing else was.
    expect(channelOf(4)!.frames - before.frames).toBe(reference.length);
    expect(stats.serialized - before.serialized).toBe(reference.length);
    // Written four times, though: the node counts every byte its streams were given (the benchmark's figure).
    const frameBytes = reference.reduce((total, b) => total + Buffer.byteLength(b.data), 0);
    expect(stats.bytesWritten - before.bytesWritten).toBeGreaterThanOrEqual(4 * frameBytes);
    expect(reference.flatMap((b) => (JSON.parse(b.data) as { rows: BlotterRow[] }).rows.map((r) => r.symbol))).not.toContain("XAUUSD");

    // One stream drops; deals come meanwhile; it comes back with its last id while the others stream on.
    const dropped = streams[0]!;
    const lastId = dropped
      .blocks()
      .filter((b) => b.id !== undefined)
      .at(-1)!.id!;
    dropped.close();
    await waitUntil(() => channelOf(3) !== undefined, "the channel without the dropped stream");
    await publish(
      a.organizationId,
      a.platformId,
      [1, 2].map(() => dealEvent(deal("7001", String(++id)))),
    );
    const back = await open({ ...a.headers, "last-event-id": lastId }, queries[1]);
    await publish(a.organizationId, a.platformId, [dealEvent(deal("7001", String(++id)))]);
    await waitUntil(() => back.rows().length >= 3, "the deals since its last id");
    // It joins its channel again (at the next frame) and then gets the channel's frames.
    await waitUntil(() => channelOf(4) !== undefined && app.blotterStreams.stats().each.every((e) => e.shared), "the resumed stream back in the channel");
    await publish(a.organizationId, a.platformId, [dealEvent(deal("7001", String(++id)))]);
    await waitUntil(() => back.rows().some((r) => r.ticket === String(id)), "a deal after it joined");
    await new Promise((r) => setTimeout(r, 300));
    expect(back.blocks().some((b) => b.event === "snapshot")).toBe(false);
    expect(back.rows().map((r) => r.ticket)).toEqual([id - 3, id - 2, id - 1, id].map(String));
  });

  it("past the node's bytes budget the slowest stream resynchronizes while the others stream on; gathered rows never exceed the rows budget", async () => {
    const a = await organization("Budget");
    const fast = [await open(a.headers), await open(a.headers)];
    const stalled = await open(a.headers, "", { stopAfterSnapshot: true });
    await waitUntil(() => [...fast, stalled].every((s) => s.text().includes("event: snapshot")), "the first snapshots");
    const resyncsBefore = app.blotterStreams.stats().budgetResyncs;

    // Read as each event is handled (after the streams' channel: it subscribed first).
    let maxGathered = 0;
    const watch = app.bus.subscribe({ types: ["trade"], organizationId: a.organizationId }, () => {
      maxGathered = Math.max(maxGathered, app.blotterStreams.stats().gatheredRows);
    });
    try {
      // Bursts larger than the rows budget in one go (frames are written early), until the stalled stream is past the bytes budget.
      let id = 100_000;
      for (let round = 0; round < 400 && app.blotterStreams.stats().budgetResyncs === resyncsBefore; round++) {
        await publish(
          a.organizationId,
          a.platformId,
          Array.from({ length: 400 }, () => dealEvent(deal("8001", String(++id), { comment: "y".repeat(200) }))),
        );
        await new Promise((r) => setTimeout(r, 15));
      }
      const stats = app.blotterStreams.stats();
      expect(stats.budgetResyncs).toBe(resyncsBefore + 1);
      expect(stats.each.filter((e) => e.dropping)).toHaveLength(1);
      expect(maxGathered).toBeGreaterThan(0);
      expect(maxGathered).toBeLessThanOrEqual(MAX_TOTAL_ROWS);

      // The others stream on, never resynchronized.
      await publish(a.organizationId, a.platformId, [dealEvent(deal("8001", "777777"))]);
      await waitUntil(() => fast.every((s) => s.text().includes('"ticket":"777777"')), "the others' next deal");
      for (const s of fast) expect(s.blocks().filter((b) => b.event === "snapshot")).toHaveLength(1);
      expect(stalled.text()).not.toContain('"ticket":"777777"');

      // The stalled one reads again: a snapshot once its socket drains, then live frames.
      stalled.resume();
      await waitUntil(() => stalled.blocks().filter((b) => b.event === "snapshot").length === 2, "the resynchronizing snapshot");
      await publish(a.organizationId, a.platformId, [dealEvent(deal("8001", "888888"))]);
      await waitUntil(() => stalled.text().includes('"ticket":"888888"'), "a live frame after the snapshot");
      expect(stalled.text().lastIndexOf("event: snapshot")).toBeLessThan(stalled.text().indexOf('"ticket":"888888"'));
    } finally {
      watch.close();
    }
  });

  it("several streams lagging on one channel hold its frames once: the bytes budget counts them once, and stops them when what they hold is past it", async () => {
    const a = await organization("Lagging");
    const fast = await open(a.headers);
    const lagging: Reader[] = [];
    for (let i = 0; i < 3; i++) lagging.push(await open(a.headers, "", { stopAfterSnapshot: true }));
    await waitUntil(() => [fast, ...lagging].every((s) => s.text().includes("event: snapshot")), "the first snapshots");
    const resyncsBefore = app.blotterStreams.stats().budgetResyncs;
    const stats = () => app.blotterStreams.stats();
    const unsent = () => stats().each.map((e) => e.bufferedBytes);
    let id = 200_000;
    const round = async (deals: number) => {
      await publish(
        a.organizationId,
        a.platformId,
        Array.from({ length: deals }, () => dealEvent(deal("8002", String(++id), { comment: "z".repeat(200) }))),
      );
      await new Promise((r) => setTimeout(r, 15));
    };

    try {
      // Until the lagging streams' sockets hold, added up, more than the budget, each of them less.
      for (let i = 0; i < 2_000 && unsent().reduce((t, b) => t + b, 0) <= 1.5 * MAX_TOTAL_BYTES; i++) await round(50);
      expect(unsent().reduce((t, b) => t + b, 0)).toBeGreaterThan(1.5 * MAX_TOTAL_BYTES);
      expect(Math.max(...unsent())).toBeLessThan(MAX_TOTAL_BYTES);
      // A few frame periods: the budget sees the same frames held three times, and counts them once.
      await new Promise((r) => setTimeout(r, 200));
      expect(stats().budgetResyncs).toBe(resyncsBefore);
      // (A buffer partly taken counts whole: up to about a frame more than the largest.)
      expect(stats().heldBytes).toBeLessThanOrEqual(Math.max(...unsent()) + 256 * 1024);
      expect(stats().heldBytes).toBeLessThan(stats().unsentBytes / 2);

      // Past the budget for real: every lagging stream stops growing (they hold the same frames), the reading one streams on.
      for (let i = 0; i < 2_000 && stats().budgetResyncs - resyncsBefore < 3; i++) await round(50);
      expect(stats().budgetResyncs - resyncsBefore).toBe(3);
      expect(stats().each.filter((e) => e.dropping)).toHaveLength(3);
      await publish(a.organizationId, a.platformId, [dealEvent(deal("8002", "999999"))]);
      await waitUntil(() => fast.text().includes('"ticket":"999999"'), "the reading stream's next deal");
      expect(fast.blocks().filter((b) => b.event === "snapshot")).toHaveLength(1);
      for (const s of lagging) expect(s.text()).not.toContain('"ticket":"999999"');
    } finally {
      for (const s of lagging) s.close();
    }
  });
});
