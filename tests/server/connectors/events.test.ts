/** The connector's event journal, streams and ingest, on their own: numbering, replay, gaps, duplicates, order. */
import { describe, expect, it } from "vitest";
import type { UnsequencedTradeEvent } from "../../../core/trading/index.ts";
import { EventJournal } from "../../../server/connectors/events/eventJournal.ts";
import { JournalStream } from "../../../server/connectors/events/eventStream.ts";
import { EventIngest, type EventSource } from "../../../server/connectors/wire/eventIngest.ts";
import type { NativePacket } from "../../../server/connectors/wire/wire.ts";

const event = (n: number): UnsequencedTradeEvent => ({
  type: "accountChanged",
  time: n,
  login: String(n),
  account: {} as never,
});

async function drain(stream: JournalStream, count: number) {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const next = await stream.next();
    if (next.done) break;
    out.push(next.value.sequence);
  }
  return out;
}

describe("event journal", () => {
  it("numbers events from 1 and replays from any sequence it still holds", async () => {
    const journal = new EventJournal(100);
    for (let i = 0; i < 5; i++) journal.append(event(i));
    expect(await drain(new JournalStream(journal, 2), 3)).toEqual([3, 4, 5]);
    expect(await drain(new JournalStream(journal, 0), 5)).toEqual([1, 2, 3, 4, 5]);
  });

  it("asks for a resync once the events a reader needs were dropped", async () => {
    const journal = new EventJournal(10);
    for (let i = 0; i < 25; i++) journal.append(event(i));
    expect(() => journal.assertResumable(0)).toThrowError(expect.objectContaining({ code: "resyncRequired" }));
    journal.assertResumable(20);
    expect(await drain(new JournalStream(journal, 20), 5)).toEqual([21, 22, 23, 24, 25]);
  });

  it("stops a reader at a gap, but not one that started after it", async () => {
    const journal = new EventJournal(100);
    journal.append(event(1));
    const before = new JournalStream(journal, 0);
    journal.markGap();
    const after = new JournalStream(journal, null);
    journal.append(event(2));
    expect((await before.next()).value?.sequence).toBe(1);
    await expect(before.next()).rejects.toMatchObject({ code: "resyncRequired" });
    expect(await drain(after, 1)).toEqual([2]);
    await expect(new JournalStream(journal, 1).next()).rejects.toMatchObject({ code: "resyncRequired" });
  });

  it("ends streams when told, and wakes readers that wait", async () => {
    const journal = new EventJournal(100);
    const stream = new JournalStream(journal, null);
    const waiting = stream.next();
    journal.endStreams();
    expect(await waiting).toEqual({ done: true, value: undefined });
    const closed = new JournalStream(journal, null);
    const pending = closed.next();
    closed.close();
    expect((await pending).done).toBe(true);
  });
});

describe("event ingest", () => {
  /** A server that holds packets 1..n and answers catch-up requests. */
  function source(count: number): EventSource<number> & { packets: NativePacket<number>[] } {
    const packets = Array.from({ length: count }, (_, i) => ({ sequence: i + 1, event: i + 1 }));
    return {
      packets,
      openedAtSequence: 0,
      async eventsSince(sequence, limit) {
        const batch = packets.filter((p) => p.sequence > sequence).slice(0, limit);
        return { packets: batch, complete: true, latestSequence: count };
      },
    };
  }

  it("applies each server event once and in order, whatever order and how often they arrive", async () => {
    const journal = new EventJournal(100);
    const ingest = new EventIngest(
      (n: number) => [event(n)],
      journal,
      () => undefined,
      2,
    );
    const server = source(0);
    await ingest.attach(server);
    server.packets.push(...[1, 2, 3, 4, 5, 6].map((n) => ({ sequence: n, event: n })));
    for (const n of [1, 1, 4, 2, 3, 3, 6, 5, 6]) ingest.push(server, { sequence: n, event: n });
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(await drain(new JournalStream(journal, 0), 6).then((s) => s)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(journal.lastSequence).toBe(6);
  });

  it("ignores a detached session and marks a gap for an event it cannot read", async () => {
    const journal = new EventJournal(100);
    const problems: unknown[] = [];
    const ingest = new EventIngest(
      (n: number) => {
        if (n === 2) throw new Error("unreadable");
        return [event(n)];
      },
      journal,
      (e) => problems.push(e),
    );
    const server = source(3);
    await ingest.attach({ ...server, openedAtSequence: 0 });
    expect(journal.lastSequence).toBe(2);
    expect(problems).toHaveLength(1);
    await expect(new JournalStream(journal, 0).next().then(() => new JournalStream(journal, 1).next())).rejects.toMatchObject({
      code: "resyncRequired",
    });
    ingest.detach();
    ingest.push(server, { sequence: 4, event: 4 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(journal.lastSequence).toBe(2);
  });
});
