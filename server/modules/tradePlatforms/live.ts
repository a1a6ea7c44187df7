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
import { sseHub } from "../../streams/sse.ts";
import type { PlatformRuntime } from "./runtime/runtime.ts";

const TICK_MS = 1_000;

export interface LiveStreams {
  open(request: FastifyRequest, reply: FastifyReply, platformIds: string[]): void;
  /** Ends every open stream (app shutdown: an open response would hold the server open). */
  closeAll(): void;
}

export function liveStreams(runtime: PlatformRuntime, bus: EventBus): LiveStreams {
  const hub = sseHub();
  return {
    open(request, reply, platformIds) {
      const organizationId = request.organization.id;
      const known = new Set(platformIds);
      const stream = hub.open(request, reply);
      const sendState = (platformId: string) => {
        const { state, lastError, serverTime } = runtime.liveState(platformId);
        stream.send("state", { platformId, state, lastError, ...(serverTime ? { serverTime } : {}) });
      };
      for (const id of known) sendState(id);

      const subscription = bus.subscribe({ types: ["platformState", "platformRemoved"], organizationId }, ({ event }) => {
        const { platformId } = event;
        if (event.type === "platformRemoved") {
          if (known.delete(platformId)) stream.send("removed", { platformId });
          return;
        }
        known.add(platformId);
        const { state, lastError, serverTime } = event;
        stream.send("state", { platformId, state, lastError, ...(serverTime ? { serverTime } : {}) });
      });
      const tick = setInterval(() => {
        for (const id of known) if (runtime.liveState(id).state === "connected") sendState(id);
      }, TICK_MS);
      stream.onClose(() => {
        clearInterval(tick);
        subscription.close();
      });
    },
    closeAll: hub.closeAll,
  };
}
