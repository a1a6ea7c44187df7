// @vitest-environment node
import { afterEach, describe, expect, it, vi } from "vitest";
import { retry } from "~/api/retry";
import { readRemovedPlatform, readStateUpdates, useLiveStateStore } from "~/features/trade-platforms/live/liveStateStore";
import { openLiveStream, type LiveMessage, type StreamStatus } from "~/features/trade-platforms/live/liveStream";

describe("live state messages", () => {
  it("reads one update or a list, and drops what is malformed", () => {
    expect(readStateUpdates('{"platformId":"p1","state":"failed","lastError":"Refused"}')).toEqual([
      { platformId: "p1", state: "failed", lastError: "Refused" },
    ]);
    expect(readStateUpdates('[{"platformId":"a","state":"connected"},{"state":"connected"},{"platformId":"b","state":"weird"}]')).toEqual([
      { platformId: "a", state: "connected" },
      { platformId: "b" },
    ]);
    expect(readStateUpdates("not json")).toEqual([]);
    expect(readRemovedPlatform('{"platformId":"p2"}')).toBe("p2");
    expect(readRemovedPlatform("{}")).toBeNull();
  });

  it("keeps what an update leaves out (a tick carrying only the time keeps the state)", () => {
    const store = useLiveStateStore.getState();
    store.clear();
    store.apply({ platformId: "p1", state: "failed", lastError: "Timeout" }, 1);
    store.apply({ platformId: "p1", serverTime: "2025-01-01T00:00:00Z" }, 2);
    expect(useLiveStateStore.getState().platforms.p1).toEqual({ state: "failed", lastError: "Timeout", serverTime: "2025-01-01T00:00:00Z", receivedAt: 2 });
  });
});

describe("the app's one backoff (p-retry)", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it("waits 1 s, 2 s, 4 s … up to 30 s, randomized ×1–2, and asks retryIf about every failure, TypeErrors included", async () => {
    vi.useFakeTimers();
    const random = vi.spyOn(Math, "random").mockReturnValue(0);
    const tries: number[] = [];
    const done = retry(async (n) => {
      tries.push(Date.now());
      if (n < 8) throw n % 2 ? new TypeError("x is not a function") : new Error("down");
      return "up";
    });
    await vi.advanceTimersByTimeAsync(200_000);
    await expect(done).resolves.toBe("up");
    const waits = tries.slice(1).map((t, i) => t - tries[i]!);
    expect(waits).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);

    random.mockReturnValue(0.5);
    const start = Date.now();
    let second = 0;
    const jittered = retry(async (n) => {
      if (n === 1) throw new Error("down");
      second = Date.now();
    });
    await vi.advanceTimersByTimeAsync(5000);
    await jittered;
    expect(second - start).toBe(1500);
  });

  it("stops at the first failure retryIf refuses, or when its signal aborts, and rejects with that failure", async () => {
    const refused = new Error("final");
    const task = vi.fn().mockRejectedValueOnce(new Error("again")).mockRejectedValueOnce(refused);
    await expect(retry(task, { minTimeout: 0, retryIf: (e) => e.message === "again" })).rejects.toBe(refused);
    expect(task).toHaveBeenCalledTimes(2);

    const stop = new AbortController();
    const forever = retry(
      async () => {
        throw new Error("down");
      },
      { signal: stop.signal, minTimeout: 10 },
    );
    stop.abort(new Error("stopped"));
    await expect(forever).rejects.toThrow("stopped");
  });
});

describe("live stream over fetch", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  const streamResponse = (...chunks: string[]) =>
    new Response(
      new ReadableStream({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
          controller.close();
        },
      }),
      { headers: { "Content-Type": "text/event-stream; charset=utf-8" } },
    );

  const STREAM =
    'retry: 3000\n\nevent: state\ndata: {"platformId":"p1","state":"connected","lastError":null,"serverTime":"2025-01-01T10:00:00.000Z"}\n\n: ping\n\nevent: removed\ndata: {"platformId":"p2"}\n\n';

  /** The messages one stream gives when its bytes arrive in these chunks. */
  async function messagesOf(chunks: string[]) {
    const messages: LiveMessage[] = [];
    const fetch = vi.fn(async () => streamResponse(...chunks));
    const stop = openLiveStream({ url: "/live", headers: async () => new Headers(), onMessage: (m) => messages.push(m), fetch });
    await vi.advanceTimersByTimeAsync(0);
    stop();
    return messages;
  }

  it("reads events whatever the chunking (mid-line, between CR and LF), ignores comments, and waits the server's retry: before reconnecting", async () => {
    vi.useFakeTimers();
    const whole = await messagesOf([STREAM]);
    expect(whole.map((m) => m.event)).toEqual(["state", "removed"]);
    expect(JSON.parse(whole[0]!.data)).toMatchObject({ platformId: "p1", state: "connected" });
    for (const size of [1, 3, 7]) expect(await messagesOf(STREAM.match(new RegExp(`[\\s\\S]{1,${size}}`, "g"))!)).toEqual(whole);
    const split = STREAM.replace(/\n/g, "\r\n").split("\r");
    expect(await messagesOf(split.map((part, i) => (i < split.length - 1 ? `${part}\r` : part)))).toEqual(whole);

    const fetch = vi.fn(async () => streamResponse(STREAM));
    const stop = openLiveStream({ url: "/live", headers: async () => new Headers(), onMessage: () => {}, fetch });
    await vi.advanceTimersByTimeAsync(2999);
    expect(fetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetch).toHaveBeenCalledTimes(2);
    stop();
  });

  it("sends the API headers, parses the stream and reconnects after it ends, then stops", async () => {
    vi.useFakeTimers();
    vi.spyOn(Math, "random").mockReturnValue(0);
    const fetch = vi.fn(async () => streamResponse('event: state\ndata: {"platformId":"p1","state":"connected"}\n\n'));
    const messages: LiveMessage[] = [];
    const statuses: StreamStatus[] = [];
    const stop = openLiveStream({
      url: "/api/tradePlatforms/live",
      headers: async () => new Headers({ Authorization: "Bearer t", OrganizationId: "org-1" }),
      onMessage: (m) => messages.push(m),
      onStatus: (s) => statuses.push(s),
      fetch,
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(messages).toHaveLength(1);
    const init = (fetch.mock.calls[0] as unknown as [string, RequestInit])[1];
    expect(new Headers(init.headers).get("Authorization")).toBe("Bearer t");
    expect(new Headers(init.headers).get("OrganizationId")).toBe("org-1");
    expect(new Headers(init.headers).get("Accept")).toBe("text/event-stream");
    expect(statuses).toEqual(["connecting", "open", "waiting"]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(messages).toHaveLength(2);
    stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(statuses.at(-1)).toBe("stopped");
  });

  it("backs off longer after each failure", async () => {
    vi.useFakeTimers();
    vi.spyOn(Math, "random").mockReturnValue(0);
    const fetch = vi.fn(async () => new Response("nope", { status: 503 }));
    const stop = openLiveStream({ url: "/live", headers: async () => new Headers(), onMessage: () => {}, fetch });
    await vi.advanceTimersByTimeAsync(0);
    expect(fetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(fetch).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1999);
    expect(fetch).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetch).toHaveBeenCalledTimes(3);
    stop();
  });
});
