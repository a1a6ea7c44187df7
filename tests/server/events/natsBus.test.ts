/**
 * What only the NATS bus does, against the real server: two nodes on one stream see each
 * other's events (organization scoping holds), a durable subscription resumes where it stopped
 * after its node is gone, and a lost connection shows as `connecting`, comes back by itself and
 * loses nothing; a publish repeated with the same message ids is stored once.
 */
import { randomUUID } from "node:crypto";
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { BusMessage, PlatformStateBusEvent } from "../../../server/events/types.ts";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { natsTestStream, NATS_TEST_URL, type TestStream } from "../../helpers/natsBus.ts";

const orgA = randomUUID();
const orgB = randomUUID();
const platform = randomUUID();
const state = (organizationId: string, n: number): PlatformStateBusEvent => ({
  type: "platformState",
  organizationId,
  platformId: platform,
  state: "connected",
  lastError: `#${n}`,
});
const label = (m: BusMessage) => (m.event.type === "platformState" ? m.event.lastError : m.event.type);

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function jetstreamInfo(name: string) {
  const nc = await connect({ servers: NATS_TEST_URL });
  try {
    return await (await jetstreamManager(nc)).streams.info(name);
  } finally {
    await nc.close();
  }
}

/** A TCP hop between the bus and NATS that a test can cut (every connection dropped, new ones refused) and mend. */
async function cuttableProxy(target: URL) {
  const sockets = new Set<net.Socket>();
  let cut = false;
  const server = net.createServer((client) => {
    if (cut) return void client.destroy();
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => s.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `nats://127.0.0.1:${port}`,
    cut() {
      cut = true;
      for (const s of sockets) s.destroy();
    },
    mend() {
      cut = false;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

describe("NATS event bus", () => {
  let stream: TestStream;
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    await stream?.drop();
  });

  it("two nodes on one stream see each other's events, each organization only its own", async () => {
    stream = await natsTestStream();
    const node1 = await stream.bus();
    const node2 = await stream.bus();
    const onNode2A: BusMessage[] = [];
    const onNode2B: BusMessage[] = [];
    const onNode1A: BusMessage[] = [];
    node2.subscribe({ types: ["platformState"], organizationId: orgA }, (m) => onNode2A.push(m));
    node2.subscribe({ types: ["platformState"], organizationId: orgB }, (m) => onNode2B.push(m));
    node1.subscribe({ types: ["platformState"], organizationId: orgA }, (m) => onNode1A.push(m));
    await node1.publish([state(orgA, 1), state(orgA, 2)]);
    await node2.publish(state(orgA, 3));
    await node1.publish(state(orgB, 4));
    await until(() => onNode2A.length === 3 && onNode1A.length === 3 && onNode2B.length === 1, "both nodes' events");
    expect(onNode2A.map(label)).toEqual(["#1", "#2", "#3"]);
    expect(onNode1A.map(label)).toEqual(["#1", "#2", "#3"]);
    expect(onNode2B.map(label)).toEqual(["#4"]);
    // One sequence for the whole bus, whichever node published.
    expect(onNode2A.map((m) => m.seq)).toEqual(onNode1A.map((m) => m.seq));
  });

  it("a durable subscription resumes where it stopped after its node is gone", async () => {
    stream = await natsTestStream();
    const first = await stream.bus();
    const seen: BusMessage[] = [];
    first.subscribe({ types: ["platformState"], organizationId: orgA }, (m) => seen.push(m), { durable: "history-store" });
    await first.publish([1, 2, 3].map((n) => state(orgA, n)));
    await until(() => seen.length === 3, "the first three");
    await first.close();

    const other = await stream.bus();
    await other.publish([state(orgA, 4), state(orgB, 5), state(orgA, 6)]);
    const restarted = await stream.bus();
    const resumed: BusMessage[] = [];
    const gaps: unknown[] = [];
    restarted.subscribe({ types: ["platformState"], organizationId: orgA }, (m) => resumed.push(m), { durable: "history-store", onGap: (g) => gaps.push(g) });
    await until(() => resumed.length === 2, "what it missed");
    await other.publish(state(orgA, 7));
    await until(() => resumed.length === 3, "the live one");
    expect(resumed.map(label)).toEqual(["#4", "#6", "#7"]);
    expect(gaps).toEqual([]);
  });

  it("stores a publish repeated with the same message ids once, within the stream's duplicate window", async () => {
    stream = await natsTestStream();
    const node1 = await stream.bus({ duplicateWindowMs: 30_000 });
    const node2 = await stream.bus({ duplicateWindowMs: 30_000 });
    const info = await node1.ready.then(() => jetstreamInfo(stream.stream));
    expect(info.config.duplicate_window).toBe(30_000 * 1_000_000);

    const seen: BusMessage[] = [];
    node2.subscribe({ types: ["platformState"], organizationId: orgA }, (m) => seen.push(m));
    await node1.publish([state(orgA, 1), state(orgA, 2), state(orgA, 3)], { ids: ["p:1:1:1", "p:1:1:2", "p:1:1:3"] });
    // The same batch again (its ack was lost, say), then one that overlaps it, from the other node too.
    await node1.publish([state(orgA, 1), state(orgA, 2), state(orgA, 3)], { ids: ["p:1:1:1", "p:1:1:2", "p:1:1:3"] });
    await node2.publish([state(orgA, 2), state(orgA, 3), state(orgA, 4)], { ids: ["p:1:1:2", "p:1:1:3", "p:1:1:4"] });
    // Without ids nothing is dropped.
    await node1.publish([state(orgA, 5), state(orgA, 5)]);
    await until(() => seen.length >= 6, "the events");
    await node1.publish(state(orgA, 6), { ids: ["p:1:1:6"] });
    await until(() => seen.some((m) => label(m) === "#6"), "the last");
    expect(seen.map(label)).toEqual(["#1", "#2", "#3", "#4", "#5", "#5", "#6"]);
    expect((await jetstreamInfo(stream.stream)).state.messages).toBe(7);
    await expect(node1.publish([state(orgA, 7)], { ids: ["a", "b"] })).rejects.toThrow(/2 message ids for 1 events/);
  });

  it("says connecting while NATS is away, reconnects by itself, and loses nothing published around it", async () => {
    stream = await natsTestStream();
    const proxy = await cuttableProxy(new URL(NATS_TEST_URL));
    cleanups.push(() => proxy.close());
    const reader = await stream.bus();
    const writer = await stream.bus({ url: proxy.url, publishTimeoutMs: 20_000 });
    const seen: BusMessage[] = [];
    reader.subscribe({ types: ["platformState"], organizationId: orgA }, (m) => seen.push(m));
    await writer.publish(state(orgA, 1));
    await until(() => seen.length === 1, "the first");

    proxy.cut();
    await until(() => writer.health().state === "connecting", "connecting");
    expect(writer.health().error).toMatch(/127\.0\.0\.1:\d+/);
    // Published while away: waits for the connection instead of failing at once.
    const during = writer.publish([state(orgA, 2), state(orgA, 3)]);
    proxy.mend();
    await during;
    await until(() => writer.health().state === "up", "up again", 15_000);
    await writer.publish(state(orgA, 4));
    await until(() => seen.length === 4, "everything");
    expect(seen.map(label)).toEqual(["#1", "#2", "#3", "#4"]);
  });
});
