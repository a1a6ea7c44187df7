/**
 * A Server-Sent Events parser (WHATWG HTML §9.2.6, "Interpreting an event stream"). We read
 * /api/tradePlatforms/live with fetch, not EventSource, because EventSource cannot send the
 * Authorization and OrganizationId headers; so the stream's text has to be parsed here.
 * Chunks may split a line, a CRLF pair or an event anywhere: the parser keeps what is unfinished.
 */
export interface SseMessage {
  /** The `event:` field, or "message" when none was given. */
  event: string;
  /** The `data:` lines joined with "\n". */
  data: string;
  /** The last `id:` seen on the stream (ids persist across events, as in EventSource). */
  id: string;
}

export interface SseParser {
  /** Text as decoded from the stream, in whatever pieces it arrived. */
  feed(chunk: string): void;
  /** The reconnection delay the server asked for with `retry:`, if any. */
  readonly retryMs: number | null;
  /** Forget any unfinished line or event (a new connection starts clean; the last id is kept). */
  reset(): void;
}

export function createSseParser(onMessage: (message: SseMessage) => void): SseParser {
  let buffer = "";
  let started = false;
  let eventType = "";
  let data: string[] = [];
  let lastId = "";
  let retryMs: number | null = null;
  /** The previous chunk ended with CR: a LF starting this one belongs to it (one CRLF, not two line ends). */
  let skipLf = false;

  function dispatch() {
    if (data.length) onMessage({ event: eventType || "message", data: data.join("\n"), id: lastId });
    eventType = "";
    data = [];
  }

  function line(text: string) {
    if (text === "") return dispatch();
    if (text.startsWith(":")) return; // a comment (servers send them as keep-alives)
    const colon = text.indexOf(":");
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? "" : text.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "event":
        eventType = value;
        break;
      case "data":
        data.push(value);
        break;
      case "id":
        if (!value.includes("\0")) lastId = value;
        break;
      case "retry":
        if (/^\d+$/.test(value)) retryMs = Number(value);
        break;
      default: // unknown fields are ignored
    }
  }

  return {
    feed(chunk) {
      if (skipLf && chunk.startsWith("\n")) chunk = chunk.slice(1);
      skipLf = false;
      if (!chunk) return;
      buffer += chunk;
      if (!started && buffer.length) {
        started = true;
        if (buffer.charCodeAt(0) === 0xfeff) buffer = buffer.slice(1);
      }
      let start = 0;
      for (let i = 0; i < buffer.length; i++) {
        const c = buffer[i];
        if (c !== "\n" && c !== "\r") continue;
        line(buffer.slice(start, i));
        // A CR at the very end may be the first half of a CRLF still on its way.
        if (c === "\r" && i === buffer.length - 1) skipLf = true;
        if (c === "\r" && buffer[i + 1] === "\n") i++;
        start = i + 1;
      }
      buffer = buffer.slice(start);
    },
    get retryMs() {
      return retryMs;
    },
    reset() {
      buffer = "";
      skipLf = false;
      started = false;
      eventType = "";
      data = [];
    },
  };
}
