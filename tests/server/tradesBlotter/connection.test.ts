/**
 * A blotter stream's connection (server/modules/tradesBlotter/connection.ts) on a node with the
 * real in-process bus, writing to a socket that reads only when the test says, on the test's
 * clock: a fresh open (platforms, a snapshot, then the channel's frames); a resume that joins at
 * once, or catches up alone and then joins with nothing lost or repeated, or gets a snapshot when
 * the bus no longer holds what it missed; a client that stops reading (out of its channel past its
 * bound, a snapshot once its socket drains); closing.
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { BlotterFilters } from "../../../core/schemas/blotterLive.ts";
import { createInProcessBus } from "../../../server/events/inProcess.ts";
import type { BlotterStreamOptions } from "../../../server/modules/tradesBlotter/options.ts";
import { dealAdded, deal, eventStream, FakeSocket, ORG, P1, position, positionOpened, rowsOf, testNode, type SseEvent, type TestNode } from "./streamNode.ts";

const FRAME_MS = 50;

let t: TestNode;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date", "setInterval", "clearInterval", "setTimeout", "clearTimeout"] });
});
afterEach(() => {
  t.close();
  vi.useRealTimers();
});

function setUp(options: BlotterStreamOptions = {}, retainEvents?: number) {
  const bus = createInProcessBus({
    retainEvents,
    onHandlerError: (error) => {
      throw error;
    },
  });
  t = testNode({ frameMs: FRAME_MS, ...options }, bus);
  return t;
}

/** A client's stream, opened on the node. */
async function open(after?: number, filters: BlotterFilters = {}, socket = new FakeSocket()) {
  const stream = eventStream(socket);
  const connection = t.node.connection(ORG, filters);
  await connection.start(() => stream, [P1], after);
  return { socket, stream, connection };
}

/** The frame period passes, and the snapshot reads it started settle. */
const frames = async (n = 1) => vi.advanceTimersByTimeAsync(n * FRAME_MS);
const lastId = (events: SseEvent[]) => events.filter((e) => e.id !== undefined).at(-1)?.id;
const keys = (events: SseEvent[]) => events.flatMap((e) => rowsOf(e).map((r) => r.key));

describe("a blotter stream's connection", () => {
  it("opens with the platforms and a snapshot, then writes its channel's frames, the same bytes as the other members'", async () => {
    setUp();
    const stored = deal("1001");
    t.source.deals = [stored];
    const a = await open();
    await frames();
    expect(a.socket.events().map((e) => e.event)).toEqual(["platforms", "snapshot"]);
    expect(a.socket.events()[0]!.data).toEqual([P1]);
    expect(keys(a.socket.events())).toEqual([`d:${P1.id}:${stored.id}`]);

    const b = await open();
    await frames();
    const d = deal("1001");
    await t.trade(dealAdded(d));
    await frames();
    const frameOf = (s: FakeSocket) => s.events().filter((e) => e.event === "frame");
    expect(frameOf(a.socket)).toEqual(frameOf(b.socket));
    expect(frameOf(a.socket).at(-1)).toMatchObject({ id: t.bus.health().lastSeq, data: { rows: [expect.objectContaining({ key: `d:${P1.id}:${d.id}` })] } });
    expect(t.node.stats()).toMatchObject({ connections: 2, channels: [{ members: 2, joining: 0 }], each: [{ shared: true }, { shared: true }] });
  });

  it("resumed at its channel's last framed id, joins it at once, without a snapshot", async () => {
    setUp();
    const a = await open();
    await t.trade(dealAdded(deal("1001")));
    await frames();
    const id = lastId(a.socket.events())!;
    const b = await open(id);
    await t.trade(dealAdded(deal("1001")));
    await frames();
    expect(b.socket.events().map((e) => e.event)).toEqual(["platforms", "frame"]);
    expect(b.socket.events()[1]!.id).toBe(lastId(a.socket.events()));
  });

  it("resumed from an earlier id, catches up on its own from the bus, then joins its channel: nothing lost or repeated", async () => {
    setUp();
    const a = await open();
    const first = deal("1001");
    await t.trade(dealAdded(first));
    await frames();
    const resumeAfter = lastId(a.socket.events())!;
    const missed = [deal("1001"), deal("1001")];
    for (const d of missed) await t.trade(dealAdded(d));
    await frames();

    const b = await open(resumeAfter);
    // The bus gave it what followed its id at once, which reached the channel's last frame: it joined.
    expect(t.node.stats().each[1]).toMatchObject({ shared: true, pendingRows: 0 });
    const next = deal("1001");
    await t.trade(dealAdded(next));
    await frames();
    const events = b.socket.events();
    expect(events.map((e) => e.event)).toEqual(["platforms", "frame", "frame"]);
    expect(keys(events)).toEqual([...missed, next].map((d) => `d:${P1.id}:${d.id}`));
    expect(lastId(events)).toBe(lastId(a.socket.events()));
  });

  it("resumed from before its channel framed anything it follows, frames for itself what it catches up on, then joins when the channel frames the sequence it reached", async () => {
    setUp();
    const missed = deal("1001");
    await t.trade(dealAdded(missed));
    const resumeAfter = t.bus.health().lastSeq - 1;
    // Another organization's event: the channel, opened now, starts from its sequence, which the
    // resumed stream (following this organization's events only) never reaches.
    await t.trade(dealAdded(deal("1001")), "p9", "org-9");
    const a = await open();
    const b = await open(resumeAfter);
    expect(t.node.stats()).toMatchObject({ channels: [{ members: 1, joining: 1 }] });
    expect(t.node.stats().each[1]).toMatchObject({ shared: false, pendingRows: 1 });
    await frames();
    expect(b.socket.events().map((e) => [e.event, e.id])).toEqual([
      ["platforms", undefined],
      ["frame", resumeAfter + 1],
    ]);
    expect(t.node.stats()).toMatchObject({ channels: [{ members: 1, joining: 1 }] });

    const next = deal("1001");
    await t.trade(dealAdded(next));
    await frames();
    expect(t.node.stats()).toMatchObject({ channels: [{ members: 2, joining: 0 }] });
    const later = deal("1001");
    await t.trade(dealAdded(later));
    await frames();
    expect(keys(b.socket.events())).toEqual([missed, next, later].map((d) => `d:${P1.id}:${d.id}`));
    expect(lastId(b.socket.events())).toBe(lastId(a.socket.events()));
  });

  it("resumed from an id the bus no longer holds, gets a snapshot", async () => {
    setUp({}, 2);
    const a = await open();
    await t.trade(dealAdded(deal("1001")));
    await frames();
    const resumeAfter = lastId(a.socket.events())!;
    for (let i = 0; i < 3; i++) await t.trade(dealAdded(deal("1001")));
    await frames();
    const b = await open(resumeAfter);
    await frames();
    expect(b.socket.events().map((e) => e.event)).toEqual(["platforms", "snapshot"]);
    expect(b.socket.events()[1]!.id).toBe(lastId(a.socket.events()));
  });

  it("a client that stops reading: past its bound it leaves its channel and is written nothing; once its socket drains a snapshot resynchronizes it", async () => {
    setUp({ maxBufferedBytes: 2_000, maxBufferedBytesCap: 2_000 });
    const a = await open(undefined, {}, new FakeSocket(1_000));
    const other = await open();
    await frames();
    a.socket.pause();
    const big = (n: number) => Array.from({ length: n }, () => deal("1001", { comment: "x".repeat(200) }));
    for (const d of big(20)) await t.trade(dealAdded(d));
    await frames();
    const held = t.node.stats().each[0]!;
    expect(held.bufferedBytes).toBeGreaterThan(2_000);
    expect(held.dropping).toBe(false);
    // The next frame finds it over its bound.
    await t.trade(dealAdded(deal("1001")));
    await frames();
    expect(t.node.stats().each[0]).toMatchObject({ dropping: true, shared: false, bufferedBytes: held.bufferedBytes });
    expect(t.node.stats().channels).toMatchObject([{ members: 1 }]);
    for (const d of big(5)) await t.trade(dealAdded(d));
    await frames();
    expect(t.node.stats().each[0]!.bufferedBytes).toBe(held.bufferedBytes);

    a.socket.read();
    await nextTurn();
    await frames();
    const events = a.socket.events();
    expect(events.at(-1)).toMatchObject({ event: "snapshot", id: lastId(other.socket.events()) });
    expect(t.node.stats().each[0]).toMatchObject({ dropping: false, shared: true, snapshots: 2 });
    expect(t.node.stats().channels).toMatchObject([{ members: 2 }]);
  });

  it("closing leaves its channel, and the last one stops the node's frame clock", async () => {
    setUp();
    const subscriptions = t.bus.health().subscriptions!;
    const a = await open();
    const b = await open();
    await frames();
    expect(t.bus.health().subscriptions).toBe(subscriptions + 1);
    a.stream.close();
    expect(t.node.stats()).toMatchObject({ connections: 1, channels: [{ members: 1 }] });
    b.connection.close();
    expect(b.stream.closed).toBe(true);
    expect(t.node.stats()).toMatchObject({ connections: 0, channels: [] });
    expect(t.bus.health().subscriptions).toBe(subscriptions);
    expect(vi.getTimerCount()).toBe(0);
    await t.trade(positionOpened(position("1001")));
    await frames();
    expect(b.socket.events().map((e) => e.event)).toEqual(["platforms", "snapshot"]);
  });
});
