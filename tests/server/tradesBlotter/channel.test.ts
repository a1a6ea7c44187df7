/**
 * A blotter channel (server/modules/tradesBlotter/channel.ts) on the real in-process bus, its
 * members fakes that record what the channel gives them, the clock the test's: one subscription
 * and one serialization per frame for every member, filtered and coalesced per row; empty frames
 * that move the id on at most once a second; snapshots (one read for the members waiting at once,
 * completed with what happened while it was read, after a gap or a platform joining); platforms
 * read again and told; closing with its last member.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { BlotterPlatform } from "../../../core/schemas/blotterLive.ts";
import { SENT_AHEAD_MS, type ChannelMember } from "../../../server/modules/tradesBlotter/channel.ts";
import {
  dealAdded,
  deal,
  ORG,
  OTHER_ORG,
  P1,
  P2,
  parseEvents,
  position,
  positionModified,
  positionOpened,
  rowsOf,
  testNode,
  type TestNode,
} from "./streamNode.ts";

/** A stream as the channel sees it: what it was given, kept. */
class Member implements ChannelMember {
  awaitingSnapshot = false;
  frames: Buffer[] = [];
  snapshots: Buffer[] = [];
  written: { event: string; data: unknown }[] = [];
  seq: number | undefined = undefined;
  joins = 0;
  toSnapshots = 0;
  send(frame: Buffer) {
    this.frames.push(frame);
  }
  snapshotDone(bytes: Buffer) {
    this.awaitingSnapshot = false;
    this.snapshots.push(bytes);
  }
  write(event: string, data: unknown) {
    this.written.push({ event, data });
  }
  soloSeq() {
    return this.seq;
  }
  join() {
    this.joins++;
  }
  toSnapshot() {
    this.toSnapshots++;
  }
}

const frame = (bytes: Buffer | undefined) => parseEvents(bytes ? [bytes] : [])[0];
/** Lets the snapshot reads' promises settle. */
const settle = () => vi.advanceTimersByTimeAsync(0);

let t: TestNode;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date", "setInterval", "clearInterval", "setTimeout", "clearTimeout"] });
  t = testNode({ maxBufferedBytes: 1_000, maxBufferedBytesCap: 10_000, maxBufferedSeconds: 1 });
});
afterEach(() => {
  t.close();
  vi.useRealTimers();
});

describe("a blotter channel", () => {
  it("frames its organization's rows once for every member: filtered, coalesced per row, the same bytes and id", async () => {
    const channel = t.node.channelFor(ORG, { symbol: "XAU*" }, [P1]);
    // The same filters in another order: the same channel.
    expect(t.node.channelFor(ORG, { symbol: "XAU*", platforms: [] }, [P1])).toBe(channel);
    const a = new Member();
    const b = new Member();
    channel.addMember(a, false);
    channel.addMember(b, false);

    const pos = position("1001");
    await t.trade(positionOpened(pos));
    await t.trade(positionModified({ ...pos, sl: 2400 }));
    await t.trade(positionModified({ ...pos, sl: 2410 }));
    // Filtered out: another symbol, a platform the channel does not cover, another organization.
    await t.trade(dealAdded(deal("1001", { symbol: "EURUSD" })));
    await t.trade(positionOpened(position("1001")), P2.id);
    await t.trade(positionOpened(position("1001")), P2.id, OTHER_ORG);
    const serialized = t.node.traffic.serialized;
    channel.flush();

    expect(t.node.traffic.serialized).toBe(serialized + 1);
    expect(a.frames).toHaveLength(1);
    expect(b.frames[0]).toBe(a.frames[0]);
    const written = frame(a.frames[0]);
    expect(written?.event).toBe("frame");
    expect(written?.id).toBe(channel.lastSeq);
    expect(rowsOf(written)).toEqual([expect.objectContaining({ key: `p:${P1.id}:${pos.id}`, sl: 2410, group: "", symbol: "XAUUSD" })]);
    expect(channel.stats()).toMatchObject({ members: 2, frames: 1, pendingRows: 0 });
    // Nothing gathered: nothing written, and the framed sequence moves on.
    channel.flush();
    expect(a.frames).toHaveLength(1);
    expect(channel.flushedSeq).toBe(channel.lastSeq);
  });

  it("moves the members' id on with an empty frame at most once a second when nothing it handles passes the filters", async () => {
    const channel = t.node.channelFor(ORG, { login: "2002" }, [P1]);
    const a = new Member();
    channel.addMember(a, false);
    await t.trade(dealAdded(deal("1001")));
    channel.flush();
    expect(a.frames).toHaveLength(0);
    vi.advanceTimersByTime(999);
    channel.flush();
    expect(a.frames).toHaveLength(0);
    vi.advanceTimersByTime(1);
    channel.flush();
    expect(frame(a.frames[0])).toMatchObject({ event: "frame", id: channel.lastSeq, data: { rows: [] } });
    // Told: no second one until a further event.
    vi.advanceTimersByTime(5_000);
    channel.flush();
    expect(a.frames).toHaveLength(1);
  });

  it("reads one snapshot for the members waiting at once, completed with the rows of the events handled while it was read", async () => {
    const stored = position("1001", { sl: 1 });
    t.source.positions = [stored];
    t.source.deals = [deal("1001")];
    const channel = t.node.channelFor(ORG, {}, [P1]);
    t.source.hold();
    const first = new Member();
    channel.addMember(first, true);
    expect(first.awaitingSnapshot).toBe(true);
    // While it is read: the stored position changes, a deal comes. Both are framed too (the
    // members' connections drop frames while they await their snapshot) …
    await t.trade(positionModified({ ...stored, sl: 2 }));
    const late = deal("1001");
    await t.trade(dealAdded(late));
    channel.flush();
    // … and two more streams come: they wait for the next read, together.
    const a = new Member();
    const b = new Member();
    channel.addMember(a, true);
    channel.addMember(b, true);
    expect(t.source.reads).toBe(1);
    t.source.let();
    await settle();

    const snapshot = frame(first.snapshots[0]);
    expect(snapshot?.event).toBe("snapshot");
    expect(snapshot?.id).toBe(channel.flushedSeq);
    const rows = rowsOf(snapshot);
    expect(rows.map((r) => r.key).sort()).toEqual([`d:${P1.id}:${t.source.deals[0]!.id}`, `d:${P1.id}:${late.id}`, `p:${P1.id}:${stored.id}`].sort());
    expect(rows.find((r) => r.kind === "position")?.sl).toBe(2);

    expect(t.source.reads).toBe(2);
    expect(a.snapshots).toHaveLength(1);
    expect(b.snapshots[0]).toBe(a.snapshots[0]);
    expect(a.snapshots[0]).not.toBe(first.snapshots[0]);
    expect(channel.stats().snapshots).toBe(2);
  });

  it("does not frame again, after a snapshot, a deal the snapshot already holds (one handled while it was read and not framed yet)", async () => {
    const channel = t.node.channelFor(ORG, {}, [P1]);
    t.source.hold();
    const m = new Member();
    channel.addMember(m, true);
    const late = deal("1001");
    await t.trade(dealAdded(late));
    t.source.let();
    await settle();
    const snapshot = frame(m.snapshots[0]);
    expect(rowsOf(snapshot).map((r) => r.key)).toContain(`d:${P1.id}:${late.id}`);
    const framedBefore = m.frames.length;
    channel.flush();
    await t.trade(dealAdded(deal("1002")));
    channel.flush();
    const after = m.frames.slice(framedBefore).flatMap((bytes) => rowsOf(frame(bytes)).map((r) => r.key));
    expect(after).not.toContain(`d:${P1.id}:${late.id}`);
    expect(after).toHaveLength(1);
    expect(snapshot?.id).toBe(channel.flushedSeq - 1);
  });

  it("tells a snapshot's members once of a deal the snapshot read from the store before the bus carried it; the other members get it in their frame", async () => {
    const channel = t.node.channelFor(ORG, {}, [P1]);
    const before = new Member();
    channel.addMember(before, true);
    await settle();
    expect(rowsOf(frame(before.snapshots[0]))).toEqual([]);

    // A pass of the trade history store reads the platform (after a restart, a gap): it stores a
    // deal the platform's trade feed has not published yet (the MT5 Web API is polled once a
    // second). The snapshots read now hold it.
    const ahead = deal("1001");
    t.source.deals = [ahead];
    const after = new Member();
    t.source.hold();
    channel.addMember(after, true);
    // Two more wait while it is read: they share the next read.
    const also = new Member();
    const again = new Member();
    channel.addMember(also, true);
    channel.addMember(again, true);
    t.source.let();
    await settle();
    const key = `d:${P1.id}:${ahead.id}`;
    for (const m of [after, also, again]) expect(rowsOf(frame(m.snapshots[0])).map((r) => r.key)).toEqual([key]);
    expect(again.snapshots[0]).toBe(also.snapshots[0]);

    // The feed publishes it, then the next deal.
    const keysSince = (m: Member, from: number) => m.frames.slice(from).flatMap((bytes) => rowsOf(frame(bytes)).map((r) => r.key));
    const [fromBefore, fromAfter] = [before.frames.length, after.frames.length];
    const next = deal("1001");
    await t.trade(dealAdded(ahead));
    await t.trade(dealAdded(next));
    channel.flush();
    expect(keysSince(before, fromBefore)).toEqual([key, `d:${P1.id}:${next.id}`]);
    expect(keysSince(after, fromAfter)).toEqual([`d:${P1.id}:${next.id}`]);
    expect(keysSince(also, fromAfter)).toEqual([`d:${P1.id}:${next.id}`]);
    // One frame for the members of one read (the same bytes), with the channel's id like the others'.
    expect(again.frames.at(-1)).toBe(also.frames.at(-1));
    for (const m of [before, after, also]) expect(frame(m.frames.at(-1))?.id).toBe(channel.flushedSeq);

    // Once it came, every member has it from the bus: the next frames are the same bytes for all.
    await t.trade(dealAdded(deal("1001")));
    channel.flush();
    for (const m of [after, also, again]) expect(m.frames.at(-1)).toBe(before.frames.at(-1));
  });

  it("leaves such a deal out of those members' frames for SENT_AHEAD_MS at most", async () => {
    const channel = t.node.channelFor(ORG, {}, [P1]);
    const ahead = deal("1001");
    t.source.deals = [ahead];
    const m = new Member();
    channel.addMember(m, true);
    await settle();
    vi.advanceTimersByTime(SENT_AHEAD_MS + 1);
    channel.tick();
    const from = m.frames.length;
    await t.trade(dealAdded(ahead));
    channel.flush();
    expect(m.frames.slice(from).flatMap((bytes) => rowsOf(frame(bytes)).map((r) => r.key))).toEqual([`d:${P1.id}:${ahead.id}`]);
  });

  it("after a gap sends every member a snapshot and tells the store's source of it", async () => {
    const channel = t.node.channelFor(ORG, {}, [P1]);
    const a = new Member();
    channel.addMember(a, false);
    await t.bus.publish({ type: "tradeGap", organizationId: ORG, platformId: P1.id, resumedAt: 1234 });
    expect(t.source.gaps).toEqual([{ platformId: P1.id, resumedAt: 1234 }]);
    expect(channel.gapSeq).toBe(channel.lastSeq);
    await settle();
    expect(a.snapshots).toHaveLength(1);
    expect(a.awaitingSnapshot).toBe(false);
  });

  it("reads its platforms again every appsRecheckMs: told to every stream; one that joins brings snapshots and sends the catching-up streams to one", async () => {
    const channel = t.node.channelFor(ORG, {}, [P1]);
    const member = new Member();
    const joining = new Member();
    channel.addMember(member, false);
    channel.joining.add(joining);

    const both: BlotterPlatform[] = [P1, P2];
    t.platforms.set(ORG, both);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(member.written).toEqual([{ event: "platforms", data: both }]);
    expect(joining.written).toEqual([{ event: "platforms", data: both }]);
    expect(joining.toSnapshots).toBe(1);
    expect(member.snapshots).toHaveLength(1);
    expect(channel.gapSeq).toBe(channel.lastSeq);

    // A platform that goes is told at once, and its events are no longer framed.
    await t.bus.publish({ type: "platformRemoved", organizationId: ORG, platformId: P2.id });
    expect(member.written.at(-1)).toEqual({ event: "platforms", data: [P1] });
    await t.trade(dealAdded(deal("1001")), P2.id);
    channel.flush();
    expect(member.frames.flatMap((f) => rowsOf(frame(f)))).toEqual([]);
  });

  it("lets a catching-up stream join when its channel frames the sequence it reached", async () => {
    const channel = t.node.channelFor(ORG, {}, [P1]);
    const joining = new Member();
    channel.joining.add(joining);
    await t.trade(dealAdded(deal("1001")));
    joining.seq = channel.lastSeq - 1;
    channel.flush();
    expect(joining.joins).toBe(0);
    joining.seq = channel.lastSeq;
    channel.flush();
    expect(joining.joins).toBe(1);
  });

  it("bounds its streams by a second of its bytes, within the floor and the cap", async () => {
    const channel = t.node.channelFor(ORG, {}, [P1]);
    channel.addMember(new Member(), false);
    expect(channel.bufferBound()).toBe(1_000);
    for (let i = 0; i < 20; i++) await t.trade(dealAdded(deal("1001")));
    channel.flush();
    const bytes = channel.stats().bytesPerSecond;
    expect(bytes).toBeGreaterThan(1_000);
    expect(channel.bufferBound()).toBe(Math.min(10_000, bytes));
    for (let i = 0; i < 200; i++) await t.trade(dealAdded(deal("1001")));
    channel.flush();
    expect(channel.bufferBound()).toBe(10_000);
    // Two quiet seconds later the rate, and so the bound, is back to the floor.
    vi.advanceTimersByTime(2_000);
    expect(channel.bufferBound()).toBe(1_000);
  });

  it("closes with its last member: its subscription ends and the node forgets it", async () => {
    const subscriptions = t.bus.health().subscriptions;
    const channel = t.node.channelFor(ORG, {}, [P1]);
    expect(t.bus.health().subscriptions).toBe(subscriptions! + 1);
    const a = new Member();
    const b = new Member();
    channel.addMember(a, false);
    channel.joining.add(b);
    channel.leave(a);
    expect(t.node.channels.has(channel)).toBe(true);
    channel.leave(b);
    expect(t.node.channels.has(channel)).toBe(false);
    expect(t.bus.health().subscriptions).toBe(subscriptions);
    expect(t.node.channelFor(ORG, {}, [P1])).not.toBe(channel);
    // Its recheck stopped too.
    t.platforms.set(ORG, [P1, P2]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(a.written).toEqual([]);
  });
});
