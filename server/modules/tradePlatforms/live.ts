/**
 * GET /api/tradePlatforms/live: the organization's platforms' connection states as Server-Sent
 * Events, written straight to the socket (hijacked reply) so that compression and other payload
 * hooks never buffer it. Events:
 *   event: state    data: {platformId, state, lastError, serverTime?}  — each platform at once,
 *                   then on every change, and every second while connected (the server's clock);
 *   event: removed  data: {platformId}                                  — a platform was deleted;
 *   `: ping` comments every 15 s keep proxies from closing an idle stream.
 * States and removals come from the event bus (`platformState`, `platformRemoved`, this
 * organization's only), so a stream on one node also shows what another node's runtime says.
 * The stream ends when the client goes, when the app closes, or when the access token that
 * opened it expires (the client reconnects with a fresh one).
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { EventBus } from "../../events/bus.ts";
import { streamLifetimeMs } from "../../http/auth/tokenLifetime.ts";
import type { PlatformRuntime } from "./runtime/runtime.ts";

const TICK_MS = 1_000;
const HEARTBEAT_MS = 15_000;

export interface LiveStreams {
  open(request: FastifyRequest, reply: FastifyReply, platformIds: string[]): void;
  /** Ends every open stream (app shutdown: an open response would hold the server open). */
  closeAll(): void;
}

export function liveStreams(runtime: PlatformRuntime, bus: EventBus): LiveStreams {
  const open = new Set<() => void>();

  return {
    open(request, reply, platformIds) {
      const organizationId = request.organization.id;
      const known = new Set(platformIds);
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

      const send = (event: string, data: unknown) => {
        if (!res.writableEnded) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      };
      const sendState = (platformId: string) => {
        const { state, lastError, serverTime } = runtime.state(platformId);
        send("state", { platformId, state, lastError, ...(serverTime ? { serverTime } : {}) });
      };

      res.write("retry: 3000\n\n");
      for (const id of known) sendState(id);

      const subscription = bus.subscribe({ types: ["platformState", "platformRemoved"], organizationId }, ({ event }) => {
        const { platformId } = event;
        if (event.type === "platformRemoved") {
          if (known.delete(platformId)) send("removed", { platformId });
          return;
        }
        known.add(platformId);
        const { state, lastError, serverTime } = event;
        send("state", { platformId, state, lastError, ...(serverTime ? { serverTime } : {}) });
      });
      const tick = setInterval(() => {
        for (const id of known) if (runtime.state(id).state === "connected") sendState(id);
      }, TICK_MS);
      const heartbeat = setInterval(() => {
        if (!res.writableEnded) res.write(": ping\n\n");
      }, HEARTBEAT_MS);
      const expiry = setTimeout(() => close(), streamLifetimeMs(request));

      let closed = false;
      // A member removed (or whose role no longer allows it) loses the stream at once.
      const unwatch = request.server.access.streams.watch(request, () => close());
      const close = () => {
        if (closed) return;
        closed = true;
        unwatch();
        clearInterval(tick);
        clearInterval(heartbeat);
        clearTimeout(expiry);
        subscription.close();
        open.delete(close);
        if (!res.writableEnded) res.end();
      };
      open.add(close);
      request.raw.on("close", close);
      res.on("close", close);
      res.on("error", close);
    },

    closeAll() {
      for (const close of [...open]) close();
    },
  };
}
