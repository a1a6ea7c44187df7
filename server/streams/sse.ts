/**
 * Server-Sent Events, the one way every live stream of the API is served (platform states, the
 * inbox's unread count, a platform's journal tail, the Trades Blotter). An `SseHub` opens streams
 * and ends them all when the app closes; each stream:
 *
 * - is written straight to the socket (a hijacked reply), so compression and other payload hooks
 *   never buffer it, with the headers the reply already has (security headers, CORS);
 * - tells the client to reconnect after 3 s (`retry:`), and writes a `: ping` comment every 15 s so
 *   that proxies do not close an idle stream;
 * - counts against the caps of open streams per person and per organization (./streamCaps.ts):
 *   past one, `open` throws a 429 before anything is written;
 * - ends when the client goes, when the app closes, when the access token that opened it expires
 *   (the client reconnects with a fresh one), or at once when the member loses access (removed, or
 *   a role without the permission the route asks for: the guard's `access.streams` decoration,
 *   server/http/auth/streamAccess.ts).
 *
 * Transport plumbing the modules' stream routes use, kept out of server/http/ so that the modules
 * never import the HTTP layer that composes them (docs/architecture.md "Layers").
 */
import type { ServerResponse } from "node:http";
import type { FastifyReply, FastifyRequest } from "fastify";
import { streamLifetimeMs } from "./lifetime.ts";
import { admitLiveStream } from "./streamCaps.ts";

export const SSE_HEARTBEAT_MS = 15_000;
export const SSE_RETRY_MS = 3_000;

export interface SseStream {
  /** The socket's response, for streams that manage their own back-pressure (`drain`, `writableLength`). */
  readonly res: ServerResponse;
  readonly closed: boolean;
  /** Writes one event with JSON data; nothing once the stream has ended. */
  send(event: string, data: unknown): void;
  /** Writes text already in SSE form; false when the socket's buffer is full (as `res.write`). */
  write(text: string): boolean;
  /** Runs `cleanup` when the stream ends, whatever ends it (each once, in the order added). */
  onClose(cleanup: () => void): void;
  close(): void;
}

export interface SseHub {
  open(request: FastifyRequest, reply: FastifyReply, options?: { heartbeatMs?: number }): SseStream;
  /** Ends every open stream (app shutdown: an open response would hold the server open). */
  closeAll(this: void): void;
}

export function sseHub(): SseHub {
  const open = new Set<SseStream>();
  return {
    open(request, reply, options = {}) {
      const release = admitLiveStream(request);
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        ...(reply.getHeaders() as Record<string, string>),
        "Content-Type": "text/event-stream; charset=utf-8",
        "Cache-Control": "no-store",
        Connection: "keep-alive",
        "X-Accel-Buffering": "no",
      });
      res.flushHeaders();
      res.write(`retry: ${SSE_RETRY_MS}\n\n`);

      const cleanups: (() => void)[] = [];
      let closed = false;
      const write = (text: string) => (closed || res.writableEnded ? false : res.write(text));
      const stream: SseStream = {
        res,
        get closed() {
          return closed;
        },
        send: (event, data) => void write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`),
        write,
        onClose: (cleanup) => void (closed ? cleanup() : cleanups.push(cleanup)),
        close() {
          if (closed) return;
          closed = true;
          open.delete(stream);
          for (const cleanup of cleanups) {
            try {
              cleanup();
            } catch (err) {
              request.log.warn({ err }, "a live stream's clean-up failed");
            }
          }
          if (!res.writableEnded) res.end();
        },
      };
      open.add(stream);

      const heartbeat = setInterval(() => write(": ping\n\n"), options.heartbeatMs ?? SSE_HEARTBEAT_MS);
      const expiry = setTimeout(() => stream.close(), streamLifetimeMs(request));
      const unwatch = request.server.access.streams.watch(request, () => stream.close());
      stream.onClose(() => {
        release();
        unwatch();
        clearInterval(heartbeat);
        clearTimeout(expiry);
      });
      const close = () => stream.close();
      request.raw.on("close", close);
      res.on("close", close);
      res.on("error", close);
      return stream;
    },
    closeAll() {
      for (const stream of [...open]) stream.close();
    },
  };
}
