/**
 * The platform follower (server/connectors/follow/platformFollower.ts) against a fake connector
 * whose streams the test feeds, ends and breaks, on Vitest's fake timers: subscribe → follow →
 * resync → back-off, as the trade feed and the accounts mirror use it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { TradeEvent } from "../../../core/trading/index.ts";
import type { TradeEventStream } from "../../../server/connectors/connector.ts";
import { ConnectorError, connectorErrors } from "../../../server/connectors/errors.ts";
import { PlatformFollower, type FollowHandler, type FollowerOptions } from "../../../server/connectors/follow/platformFollower.ts";
import { RetryWaits } from "../../../server/connectors/follow/retryWaits.ts";

type Item = { event: TradeEvent } | { error: unknown } | "end";

/** A stream the test drives: `deliver` events, then `end` it or `fail` it. */
class FakeStream implements TradeEventStream {
  closed = false;
  private readonly items: Item[] = [];
  private waiting: (() => void) | null = null;

  constructor(public lastSequence: number) {}

  deliver(...sequences: number[]): void {
    for (const sequence of sequences) this.push({ event: tradeEvent(sequence) });
  }
  end(): void {
    this.push("end");
  }
  fail(error: unknown): void {
    this.push({ error });
  }
  close(): void {
    this.closed = true;
    this.waiting?.();
  }

  private push(item: Item): void {
    this.items.push(item);
    this.waiting?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<TradeEvent> {
    for (;;) {
      if (this.closed) return;
      const item = this.items.shift();
      if (item === undefined) {
        await new Promise<void>((resolve) => (this.waiting = resolve));
        this.waiting = null;
        continue;
      }
      if (item === "end") return;
      if ("error" in item) throw item.error;
      this.lastSequence = item.event.sequence;
      yield item.event;
    }
  }
}

/** A connector that is only its `subscribe`: each call is recorded with the stream it returned. */
class FakeConnector {
  /** The platform's latest sequence: where a subscription from now starts. */
  head = 100;
  readonly subscriptions: { from: number | undefined; stream: FakeStream }[] = [];

  subscribe(from?: number): FakeStream {
    const stream = new FakeStream(from ?? this.head);
    this.subscriptions.push({ from, stream });
    return stream;
  }

  get stream(): FakeStream {
    return this.subscriptions.at(-1)!.stream;
  }
}

function tradeEvent(sequence: number): TradeEvent {
  return { type: "dealAdded", sequence, time: 0, login: "1001" } as unknown as TradeEvent;
}

/** What an owner does: keeps the position, records what it was told. */
function recordingOwner(overrides: Partial<FollowHandler> = {}) {
  const owner = {
    position: 0,
    seen: [] as number[],
    freshFrom: [] as number[],
    resyncs: 0,
    retries: [] as { error: string; retryInMs: number }[],
    lives: 0,
    drains: 0,
  };
  const handler: FollowHandler = {
    position: () => owner.position,
    startFresh: (from) => {
      owner.position = from;
      owner.freshFrom.push(from);
    },
    event: (event) => {
      owner.position = event.sequence;
      owner.seen.push(event.sequence);
    },
    drained: async () => {
      owner.drains++;
    },
    live: () => owner.lives++,
    resyncing: () => owner.resyncs++,
    retrying: (error, retryInMs) => owner.retries.push({ error, retryInMs }),
    ...overrides,
  };
  return { owner, handler };
}

/** Lets the follower's promise chains run (no time passes). */
const settle = () => vi.advanceTimersByTimeAsync(0);

/** The current stream breaks (the link is lost), and the follower has taken it in. */
async function loseLink(): Promise<void> {
  connector.stream.fail(connectorErrors.unreachable());
  await settle();
}

let connector: FakeConnector;
let follower: PlatformFollower | null;

function follow(handler: FollowHandler, options: Partial<FollowerOptions> = {}): PlatformFollower {
  // random() = 0: no jitter, so each delay is the back-off's base.
  follower = new PlatformFollower(connector, handler, { retryDelayMs: 100, recoveredWhen: "eventRead", random: () => 0, ...options });
  expect(follower.phase).toBe("idle");
  follower.resume();
  return follower;
}

beforeEach(() => {
  vi.useFakeTimers();
  connector = new FakeConnector();
  follower = null;
});
afterEach(async () => {
  await follower?.stop();
  vi.useRealTimers();
});

describe("PlatformFollower", () => {
  it("subscribes from now, hands on every event in order, and resumes from the position after the stream ends", async () => {
    const { owner, handler } = recordingOwner();
    const f = follow(handler);
    // A catch-up that does not wait (the feed's gap) is live at once.
    expect(f.phase).toBe("live");
    await settle();
    expect(connector.subscriptions.map((s) => s.from)).toEqual([undefined]);
    expect(owner.freshFrom).toEqual([100]);
    expect(f.phase).toBe("live");
    expect(owner.lives).toBe(1);

    connector.stream.deliver(101, 102, 103);
    await settle();
    expect(owner.seen).toEqual([101, 102, 103]);

    // Disconnected on purpose: the stream ends, the owner drains, the follower waits for resume().
    connector.stream.end();
    await settle();
    expect(owner.drains).toBe(1);
    expect(f.phase).toBe("waiting");
    await vi.advanceTimersByTimeAsync(60_000);
    expect(connector.subscriptions).toHaveLength(1);

    f.resume();
    await settle();
    expect(connector.subscriptions.map((s) => s.from)).toEqual([undefined, 103]);
    expect(owner.freshFrom).toEqual([100]);
    connector.stream.deliver(104);
    await settle();
    expect(owner.seen).toEqual([101, 102, 103, 104]);
    expect(f.lastError).toBeNull();
  });

  it("a dropped subscription (resyncRequired) starts fresh at once: the owner catches up again, no back-off", async () => {
    const { owner, handler } = recordingOwner();
    const f = follow(handler);
    await settle();
    connector.stream.deliver(101);
    await settle();

    connector.head = 500;
    connector.stream.fail(new ConnectorError("resyncRequired", "The events after 101 are no longer held."));
    await settle();
    expect(owner.resyncs).toBe(1);
    expect(connector.subscriptions.map((s) => s.from)).toEqual([undefined, undefined]);
    expect(connector.subscriptions[0]!.stream.closed).toBe(true);
    expect(owner.freshFrom).toEqual([100, 500]);
    expect(owner.position).toBe(500);
    expect(owner.retries).toEqual([]);
    expect(f.phase).toBe("live");
    expect(f.lastError).toBeNull();

    connector.stream.deliver(501);
    await settle();
    expect(owner.seen).toEqual([101, 501]);
  });

  it("catching up that fails (a sync) is retried after the back-off, fresh again", async () => {
    let attempts = 0;
    let failSync!: () => void;
    const { owner, handler } = recordingOwner({
      startFresh: async (from) => {
        attempts++;
        if (attempts === 1) await new Promise<void>((_, reject) => (failSync = () => reject(new Error("The sync failed."))));
        owner.position = from;
      },
    });
    const f = follow(handler, { recoveredWhen: "live" });
    await settle();
    expect(f.phase).toBe("catchingUp");
    failSync();
    await settle();
    expect(owner.retries).toEqual([{ error: "The sync failed.", retryInMs: 100 }]);
    expect(f.phase).toBe("retrying");
    expect(owner.lives).toBe(0);
    expect(connector.subscriptions[0]!.stream.closed).toBe(true);
    await vi.advanceTimersByTimeAsync(100);
    expect(connector.subscriptions.map((s) => s.from)).toEqual([undefined, undefined]);
    expect(f.phase).toBe("live");
    expect(owner.lives).toBe(1);
  });

  it("backs off doubling up to 30 s, and starts over once an event is read", async () => {
    const { owner, handler } = recordingOwner();
    const f = follow(handler);
    await settle();
    const failures = async (n: number) => {
      for (let i = 0; i < n; i++) {
        await loseLink();
        const delay = owner.retries.at(-1)!.retryInMs;
        const subscribed = connector.subscriptions.length;
        await vi.advanceTimersByTimeAsync(delay - 1);
        expect(connector.subscriptions).toHaveLength(subscribed); // not before the delay is out
        await vi.advanceTimersByTimeAsync(1);
        expect(connector.subscriptions).toHaveLength(subscribed + 1);
      }
    };
    await failures(10);
    expect(owner.retries.map((r) => r.retryInMs)).toEqual([100, 200, 400, 800, 1600, 3200, 6400, 12_800, 25_600, 30_000]);
    // Every retry continues from the position: nothing fresh, nothing repeated.
    expect(connector.subscriptions.slice(1).every((s) => s.from === 100)).toBe(true);

    // A subscription that fails before delivering anything is no recovery: the back-off keeps growing.
    await failures(1);
    expect(owner.retries.at(-1)!.retryInMs).toBe(30_000);

    connector.stream.deliver(101);
    await settle();
    expect(f.lastError).toBeNull();
    await failures(2);
    expect(owner.retries.slice(-2).map((r) => r.retryInMs)).toEqual([100, 200]);
  });

  it("with recoveredWhen live, the back-off starts over once subscribed", async () => {
    const { owner, handler } = recordingOwner();
    const f = follow(handler, { recoveredWhen: "live" });
    await settle();
    for (let i = 0; i < 3; i++) {
      await loseLink();
      expect(f.lastError).toMatch(/could not be reached/);
      await vi.advanceTimersByTimeAsync(owner.retries.at(-1)!.retryInMs);
      expect(f.lastError).toBeNull();
    }
    expect(owner.retries.map((r) => r.retryInMs)).toEqual([100, 100, 100]);
  });

  it("jitters each delay down by up to half", async () => {
    const { owner, handler } = recordingOwner();
    follow(handler, { random: () => 1 });
    await settle();
    await loseLink();
    await vi.advanceTimersByTimeAsync(50);
    await loseLink();
    expect(owner.retries.map((r) => r.retryInMs)).toEqual([50, 100]);
  });

  it("resume cuts a back-off short; stop during one ends the follow at once and leaves no timer", async () => {
    const { owner, handler } = recordingOwner();
    const f = follow(handler);
    await settle();
    await loseLink();
    expect(f.phase).toBe("retrying");
    f.resume();
    await settle();
    expect(connector.subscriptions).toHaveLength(2);
    expect(f.phase).toBe("live");

    await loseLink();
    expect(owner.retries).toHaveLength(2);
    expect(vi.getTimerCount()).toBe(1);
    await f.stop(); // settles with no time passing
    expect(f.phase).toBe("stopped");
    expect(f.stopped).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(60_000);
    f.resume();
    await settle();
    expect(connector.subscriptions).toHaveLength(2);
    expect(owner.retries).toHaveLength(2);
  });

  it("stop while live closes the stream; the follow ends without a retry", async () => {
    const { owner, handler } = recordingOwner();
    const f = follow(handler);
    await settle();
    const { stream } = connector;
    await f.stop();
    expect(stream.closed).toBe(true);
    expect(f.phase).toBe("stopped");
    expect(owner.retries).toEqual([]);
  });

  it("reports each failure with its message and delay, and keeps it as the last error until the follow recovers", async () => {
    const { owner, handler } = recordingOwner();
    const f = follow(handler);
    await settle();
    await loseLink();
    expect(owner.retries).toEqual([{ error: connectorErrors.unreachable().message, retryInMs: 100 }]);
    expect(f.lastError).toBe(connectorErrors.unreachable().message);
    expect(f.phase).toBe("retrying");

    await vi.advanceTimersByTimeAsync(100);
    expect(f.phase).toBe("live");
    expect(f.lastError).toBe(connectorErrors.unreachable().message); // no event read yet

    // Not an Error at all: its text.
    connector.stream.fail("socket hung up");
    await settle();
    expect(owner.retries.at(-1)).toEqual({ error: "socket hung up", retryInMs: 200 });

    await vi.advanceTimersByTimeAsync(200);
    f.noteError("The event bus did not take the trade events: timeout");
    expect(f.lastError).toBe("The event bus did not take the trade events: timeout");
    connector.stream.deliver(101);
    await settle();
    expect(f.lastError).toBeNull();
  });

  it("an owner that fails to keep up closes the stream; its drained failure retries from its position", async () => {
    let failure: Error | null = null;
    const { owner, handler } = recordingOwner({
      drained: async () => {
        if (failure) throw failure;
      },
    });
    const f = follow(handler, { recoveredWhen: "live" });
    await settle();
    connector.stream.deliver(101, 102);
    await settle();
    failure = new Error("The database is unreachable.");
    f.closeStream();
    await settle();
    expect(owner.retries).toEqual([{ error: "The database is unreachable.", retryInMs: 100 }]);
    failure = null;
    await vi.advanceTimersByTimeAsync(100);
    expect(connector.subscriptions.map((s) => s.from)).toEqual([undefined, 102]);
    expect(f.phase).toBe("live");
  });

  it("holds the next read while the owner's event promise is pending", async () => {
    let release!: () => void;
    const { owner, handler } = recordingOwner();
    const held = new Promise<void>((resolve) => (release = resolve));
    follow({
      ...handler,
      event: (event) => {
        owner.seen.push(event.sequence);
        if (event.sequence === 101) return held;
      },
    });
    await settle();
    connector.stream.deliver(101, 102);
    await settle();
    expect(owner.seen).toEqual([101]);
    release();
    await settle();
    expect(owner.seen).toEqual([101, 102]);
  });

  it("resume and stop also cut short the owner's own waits when it shares them", async () => {
    const waits = new RetryWaits();
    const { handler } = recordingOwner();
    const f = follow(handler, { waits });
    await settle();
    let woke = false;
    void waits.wait(10_000).then(() => (woke = true));
    f.resume();
    await settle();
    expect(woke).toBe(true);

    woke = false;
    void waits.wait(10_000).then(() => (woke = true));
    await f.stop();
    await settle();
    expect(woke).toBe(true);
  });
});
