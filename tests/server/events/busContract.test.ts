/**
 * One contract for every event bus (server/events/bus.ts), run against the in-process bus and
 * against NATS JetStream on the real server (a stream and subject prefix of this run's own,
 * deleted afterwards): order, filters (type, organization, platform), resuming after a sequence
 * with nothing lost or repeated, gaps, a throwing handler, closing.
 */
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import type { EventBus } from "../../../server/events/bus.ts";
import { createInProcessBus } from "../../../server/events/inProcess.ts";
import type { BusMessage, DomainEvent, PlatformStateBusEvent } from "../../../server/events/types.ts";
import { natsTestStream } from "../../helpers/natsBus.ts";

interface Harness {
  /** A bus that keeps at most `retain` events for resuming subscribers (NATS: the stream's message limit). */
  open(options?: { retain?: number; onHandlerError?: (error: unknown, message: BusMessage) => void }): Promise<EventBus>;
  close(): Promise<void>;
}

const implementations: [string, () => Harness][] = [
  [
    "in-process",
    () => {
      const buses: EventBus[] = [];
      return {
        open: async (o = {}) => {
          const bus = createInProcessBus({ retainEvents: o.retain, onHandlerError: o.onHandlerError ?? (() => {}) });
          buses.push(bus);
          return bus;
        },
        close: async () => void (await Promise.all(buses.map((b) => b.close()))),
      };
    },
  ],
  [
    "NATS JetStream",
    () => {
      const streams: Awaited<ReturnType<typeof natsTestStream>>[] = [];
      return {
        open: async (o = {}) => {
          const stream = await natsTestStream();
          streams.push(stream);
          return stream.bus({ maxMessages: o.retain, onHandlerError: o.onHandlerError ?? (() => {}) });
        },
        close: async () => void (await Promise.all(streams.map((s) => s.drop()))),
      };
    },
  ],
];

const orgA = randomUUID();
const orgB = randomUUID();
const p1 = randomUUID();
const p2 = randomUUID();
const p3 = randomUUID();

function state(organizationId: string, platformId: string, n: number): PlatformStateBusEvent {
  return { type: "platformState", organizationId, platformId, state: "connected", lastError: `#${n}` };
}
const gapOf = (organizationId: string, platformId: string): DomainEvent => ({ type: "tradeGap", organizationId, platformId, resumedAt: 1_700_000_000_000 });
const label = (m: BusMessage) => (m.event.type === "platformState" ? m.event.lastError : `${m.event.type}@${m.event.platformId.slice(0, 4)}`);

async function until(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Lets a bus deliver whatever it would (NATS: a round trip) before a test says nothing more came. */
async function settle(bus: EventBus): Promise<void> {
  const probe: BusMessage[] = [];
  const marker = randomUUID();
  const sub = bus.subscribe({ types: ["tradeGap"], organizationId: marker }, (m) => probe.push(m));
  await bus.publish(gapOf(marker, marker));
  await until(() => probe.length === 1, "the probe");
  sub.close();
}

describe.each(implementations)("event bus contract: %s", (_name, harnessOf) => {
  let harness: Harness;
  afterEach(async () => {
    await harness?.close();
  });
  const open = (o?: Parameters<Harness["open"]>[0]) => {
    harness ??= harnessOf();
    return harness.open(o);
  };

  it("delivers in publish order, batches and single events alike, with a growing sequence", async () => {
    harness = harnessOf();
    const bus = await open();
    const seen: BusMessage[] = [];
    bus.subscribe({ types: ["platformState"] }, (m) => seen.push(m));
    await bus.publish([state(orgA, p1, 1), state(orgA, p2, 2), state(orgB, p3, 3)]);
    await bus.publish(state(orgA, p1, 4));
    await Promise.all([bus.publish([state(orgA, p1, 5), state(orgA, p1, 6)]), bus.publish(state(orgA, p1, 7))]);
    await until(() => seen.length === 7, "seven events");
    expect(seen.map(label)).toEqual(["#1", "#2", "#3", "#4", "#5", "#6", "#7"]);
    expect(seen.every((m, i) => i === 0 || m.seq > seen[i - 1]!.seq)).toBe(true);
    expect(seen.every((m) => Math.abs(m.publishedAt - Date.now()) < 60_000)).toBe(true);
    expect(bus.health()).toMatchObject({ kind: bus.kind, state: "up" });
    expect(bus.health().lastSeq).toBeGreaterThanOrEqual(seen.at(-1)!.seq);
  });

  it("filters by type, organization and platform: organization B never receives A's events", async () => {
    harness = harnessOf();
    const bus = await open();
    const ofB: BusMessage[] = [];
    const ofA: BusMessage[] = [];
    const aPlatform1: BusMessage[] = [];
    const gapsOfA: BusMessage[] = [];
    const aTwoPlatforms: BusMessage[] = [];
    bus.subscribe({ types: ["platformState", "tradeGap", "platformRemoved"], organizationId: orgB }, (m) => ofB.push(m));
    bus.subscribe({ types: ["platformState", "tradeGap"], organizationId: orgA }, (m) => ofA.push(m));
    bus.subscribe({ types: ["platformState"], organizationId: orgA, platformIds: [p1] }, (m) => aPlatform1.push(m));
    bus.subscribe({ types: ["tradeGap"], organizationId: orgA }, (m) => gapsOfA.push(m));
    bus.subscribe({ types: ["platformState"], organizationId: orgA, platformIds: [p1, p2] }, (m) => aTwoPlatforms.push(m));
    await bus.publish([state(orgA, p1, 1), gapOf(orgA, p1), state(orgA, p2, 2), { type: "platformRemoved", organizationId: orgA, platformId: p2 }]);
    // B's own platform id on A's organization, and A's platform id on B's: still the organization decides.
    await bus.publish([state(orgB, p3, 3), state(orgA, p3, 4), state(orgB, p1, 5)]);
    await until(() => ofA.length === 4 && ofB.length === 2, "the organizations' events");
    await settle(bus);
    expect(ofA.map(label)).toEqual(["#1", `tradeGap@${p1.slice(0, 4)}`, "#2", "#4"]);
    expect(ofB.map(label)).toEqual(["#3", "#5"]);
    expect(ofB.every((m) => m.event.organizationId === orgB)).toBe(true);
    expect(aPlatform1.map(label)).toEqual(["#1"]);
    expect(gapsOfA.map(label)).toEqual([`tradeGap@${p1.slice(0, 4)}`]);
    expect(aTwoPlatforms.map(label)).toEqual(["#1", "#2"]);
  });

  it("resumes after a sequence with nothing lost or repeated, and live events follow", async () => {
    harness = harnessOf();
    const bus = await open();
    const first: BusMessage[] = [];
    const sub = bus.subscribe({ types: ["platformState"], organizationId: orgA }, (m) => first.push(m));
    await bus.publish([1, 2, 3].map((n) => state(orgA, p1, n)));
    await until(() => first.length === 3, "the first three");
    const resumeAfter = sub.lastSeq;
    expect(resumeAfter).toBe(first.at(-1)!.seq);
    sub.close();
    await bus.publish([4, 5].map((n) => state(orgA, p1, n)));
    await bus.publish(state(orgB, p3, 99));
    await bus.publish(state(orgA, p2, 6));

    const gaps: unknown[] = [];
    const resumed: BusMessage[] = [];
    const again = bus.subscribe({ types: ["platformState"], organizationId: orgA }, (m) => resumed.push(m), { after: resumeAfter, onGap: (g) => gaps.push(g) });
    await until(() => resumed.length === 3, "the missed three");
    await bus.publish(state(orgA, p1, 7));
    await until(() => resumed.length === 4, "the live one");
    await settle(bus);
    expect(resumed.map(label)).toEqual(["#4", "#5", "#6", "#7"]);
    expect(gaps).toEqual([]);
    expect(again.lastSeq).toBe(resumed.at(-1)!.seq);
    // Without `after`, only what comes next.
    const fresh: BusMessage[] = [];
    bus.subscribe({ types: ["platformState"], organizationId: orgA }, (m) => fresh.push(m));
    await bus.publish(state(orgA, p1, 8));
    await until(() => fresh.length === 1, "the next one");
    await settle(bus);
    expect(fresh.map(label)).toEqual(["#8"]);
  });

  it("resumes after the last sequence when nothing of its own followed: only what comes next, no gap", async () => {
    harness = harnessOf();
    const bus = await open();
    const first: BusMessage[] = [];
    const sub = bus.subscribe({ types: ["platformState"], organizationId: orgA }, (m) => first.push(m));
    await bus.publish(state(orgA, p1, 1));
    await until(() => first.length === 1, "the first");
    sub.close();
    // Another organization's event follows; none of A's.
    await bus.publish(state(orgB, p3, 2));
    const gaps: unknown[] = [];
    const resumed: BusMessage[] = [];
    bus.subscribe({ types: ["platformState"], organizationId: orgA }, (m) => resumed.push(m), { after: first[0]!.seq, onGap: (g) => gaps.push(g) });
    await settle(bus);
    expect(resumed).toEqual([]);
    await bus.publish(state(orgA, p1, 3));
    await until(() => resumed.length === 1, "the next one");
    expect(resumed.map(label)).toEqual(["#3"]);
    expect(gaps).toEqual([]);
  });

  it("reports a gap when the events after the sequence are no longer kept, then delivers what is", async () => {
    harness = harnessOf();
    const bus = await open({ retain: 5 });
    await bus.publish(Array.from({ length: 10 }, (_, i) => state(orgA, p1, i + 1)));
    // Nobody else publishes on this bus: the ten have consecutive sequences ending at the last one.
    const last = bus.health().lastSeq;
    const second = last - 8;
    const sixth = last - 4;

    const calls: string[] = [];
    const resumed: BusMessage[] = [];
    bus.subscribe(
      { types: ["platformState"] },
      (m) => {
        calls.push("event");
        resumed.push(m);
      },
      {
        after: second,
        onGap: (gap) => {
          calls.push("gap");
          expect(gap).toEqual({ after: second, firstAvailable: sixth });
        },
      },
    );
    await until(() => resumed.length === 5, "what is kept");
    expect(calls[0]).toBe("gap");
    expect(calls.filter((c) => c === "gap")).toHaveLength(1);
    expect(resumed.map(label)).toEqual(["#6", "#7", "#8", "#9", "#10"]);
  });

  it("keeps delivering after a handler throws, and reports the error", async () => {
    harness = harnessOf();
    const errors: unknown[] = [];
    const bus = await open({ onHandlerError: (error) => errors.push(error) });
    const seen: string[] = [];
    bus.subscribe({ types: ["platformState"] }, (m) => {
      seen.push(label(m)!);
      if (m.event.type === "platformState" && m.event.lastError === "#2") throw new Error("a subscriber's bug");
    });
    await bus.publish([1, 2, 3].map((n) => state(orgA, p1, n)));
    await until(() => seen.length === 3, "every event");
    expect(seen).toEqual(["#1", "#2", "#3"]);
    expect(errors).toEqual([new Error("a subscriber's bug")]);
  });

  it("stops delivering to a closed subscription, and refuses to publish once the bus is closed", async () => {
    harness = harnessOf();
    const bus = await open();
    const seen: BusMessage[] = [];
    const sub = bus.subscribe({ types: ["platformState"] }, (m) => seen.push(m));
    await bus.publish(state(orgA, p1, 1));
    await until(() => seen.length === 1, "the first");
    sub.close();
    await bus.publish(state(orgA, p1, 2));
    await settle(bus);
    expect(seen.map(label)).toEqual(["#1"]);
    await bus.close();
    await expect(bus.publish(state(orgA, p1, 3))).rejects.toThrow(/closed/);
    expect(bus.health().state).toBe("down");
  });
});
