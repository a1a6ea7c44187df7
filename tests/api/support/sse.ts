/** Reads Server-Sent Events (with their ids) from a fetch response body as they come. */
export interface SseEvent {
  id: string | undefined;
  event: string;
  data: unknown;
}

export function sseReader(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const events: SseEvent[] = [];
  let buffer = "";
  let ended = false;
  // One read at a time: a read that lost a race against a timer is awaited next time, never dropped.
  let reading: Promise<ReadableStreamReadResult<Uint8Array>> | null = null;

  async function readOnce(ms: number): Promise<void> {
    if (ended) return new Promise((r) => setTimeout(r, ms));
    reading ??= reader.read();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const chunk = await Promise.race([reading, new Promise<null>((r) => (timer = setTimeout(() => r(null), ms)))]).catch(() => ({
      done: true as const,
      value: undefined,
    }));
    clearTimeout(timer);
    if (chunk === null) return;
    reading = null;
    if (chunk.done) {
      ended = true;
      return;
    }
    buffer += decoder.decode(chunk.value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      const id = /^id: (.*)$/m.exec(block)?.[1];
      if (event && data) events.push({ id, event, data: JSON.parse(data) });
    }
  }

  /** Reads until `match` holds on what was read, or fails after `timeoutMs`. */
  async function until<T>(match: () => T | undefined | false, what: string, timeoutMs = 8_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = match();
      if (found !== undefined && found !== false) return found;
      if (ended) throw new Error(`stream ended before ${what}; last events: ${JSON.stringify(events.slice(-3)).slice(0, 600)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${what}; last events: ${JSON.stringify(events.slice(-3)).slice(0, 600)}`);
      await readOnce(Math.min(left, 200));
    }
  }

  /** Reads whatever comes for `ms`. */
  async function drainFor(ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline && !ended) await readOnce(deadline - Date.now());
  }

  return {
    events,
    until,
    drainFor,
    ended: () => ended,
    cancel: () => reader.cancel().catch(() => undefined),
  };
}
