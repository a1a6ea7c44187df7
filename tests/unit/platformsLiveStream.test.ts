import { afterEach, describe, expect, it, vi } from "vitest";
import { backoffDelay } from "~/features/trade-platforms/live/backoff";
import { readRemovedPlatform, readStateUpdates, useLiveStateStore } from "~/features/trade-platforms/live/liveStateStore";
import { openLiveStream, type StreamStatus } from "~/features/trade-platforms/live/liveStream";
import { createSseParser, type SseMessage } from "~/features/trade-platforms/live/sseParser";

function parse(chunks: string[]) {
  const messages: SseMessage[] = [];
  const parser = createSseParser((m) => messages.push(m));
  for (const chunk of chunks) parser.feed(chunk);
  return { messages, parser };
}

const STREAM = 'retry: 3000\n\nevent: state\ndata: {"platformId":"p1","state":"connected","lastError":null,"serverTime":"2025-01-01T10:00:00.000Z"}\n\n: ping\n\nevent: removed\ndata: {"platformId":"p2"}\n\n';

describe("SSE parser", () => {
  it("reads events, ignores comments and takes the server's retry", () => {
    const { messages, parser } = parse([STREAM]);
    expect(messages.map((m) => m.event)).toEqual(["state", "removed"]);
    expect(JSON.parse(messages[0].data)).toMatchObject({ platformId: "p1", state: "connected" });
    expect(parser.retryMs).toBe(3000);
  });

  it("gives the same events whatever the chunking, even mid-line and between CR and LF", () => {
    const whole = parse([STREAM]).messages;
    for (const size of [1, 2, 3, 7, 13]) {
      const chunks = STREAM.match(new RegExp(`[\\s\\S]{1,${size}}`, "g"))!;
      expect(parse(chunks).messages).toEqual(whole);
    }
    const crlf = STREAM.replace(/\n/g, "\r\n");
    const split = crlf.split("\r");
    // Every CR ends one chunk and its LF starts the next: a naive parser would see blank lines.
    const chunks = split.map((part, i) => (i < split.length - 1 ? `${part}\r` : part));
    expect(parse(chunks).messages).toEqual(whole);
  });

  it("joins multi-line data with newlines, defaults the event to message, strips one leading space only", () => {
    const { messages } = parse(["data: a\ndata:  b\ndata\n\n", "id: 7\ndata:x\r\r"]);
    expect(messages).toEqual([
      { event: "message", data: "a\n b\n", id: "" },
      { event: "message", data: "x", id: "7" },
    ]);
  });

  it("dispatches nothing for an event without data, and ignores a leading byte-order mark", () => {
    const { messages } = parse(["\ufeffevent: state\n\n", "event: state\ndata: {}\n\n"]);
    expect(messages).toEqual([{ event: "state", data: "{}", id: "" }]);
  });

  it("keeps an unfinished event until its blank line arrives", () => {
    const { messages, parser } = parse(["event: state\ndata: {\"platformId\":"]);
    expect(messages).toHaveLength(0);
    parser.feed('"p1"}\n');
    expect(messages).toHaveLength(0);
    parser.feed("\n");
    expect(messages).toHaveLength(1);
  });
});

describe("live state messages", () => {
  it("reads one update or a list, and drops what is malformed", () => {
    expect(readStateUpdates('{"platformId":"p1","state":"failed","lastError":"Refused"}')).toEqual([{ platformId: "p1", state: "failed", lastError: "Refused" }]);
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

describe("backoff", () => {
  it("doubles up to 30 s with ±20 % jitter", () => {
    expect(backoffDelay(0, 1000, () => 0.5)).toBe(1000);
    expect(backoffDelay(3, 1000, () => 0.5)).toBe(8000);
    expect(backoffDelay(20, 1000, () => 0.5)).toBe(30_000);
    expect(backoffDelay(0, 1000, () => 0)).toBe(800);
    expect(backoffDelay(0, 1000, () => 1)).toBe(1200);
  });
});

describe("live stream over fetch", () => {
  afterEach(() => vi.useRealTimers());

  const streamResponse = (text: string) =>
    new Response(
      new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(text));
          controller.close();
        },
      }),
      { headers: { "Content-Type": "text/event-stream; charset=utf-8" } },
    );

  it("sends the API headers, parses the stream and reconnects after it ends, then stops", async () => {
    vi.useFakeTimers();
    const fetch = vi.fn(async () => streamResponse('event: state\ndata: {"platformId":"p1","state":"connected"}\n\n'));
    const messages: SseMessage[] = [];
    const statuses: StreamStatus[] = [];
    const stop = openLiveStream({
      url: "/api/tradePlatforms/live",
      headers: async () => new Headers({ Authorization: "Bearer t", OrganizationId: "org-1" }),
      onMessage: (m) => messages.push(m),
      onStatus: (s) => statuses.push(s),
      fetch: fetch as unknown as typeof globalThis.fetch,
      random: () => 0.5,
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
    const fetch = vi.fn(async () => new Response("nope", { status: 503 }));
    const stop = openLiveStream({ url: "/live", headers: async () => new Headers(), onMessage: () => {}, fetch: fetch as unknown as typeof globalThis.fetch, random: () => 0.5 });
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
